package temporal

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"

	"github.com/proselang/prose/bind"
)

// On a real server, a run's history, fetched as the Temporal CLI fetches
// it, holds its input only as ciphertext; through the codec server, with
// its token, the run's input, its activity's input and summary read in
// clear; without the token, or through a codec server of another key,
// they do not.
func TestE2ECodecServerReadsAHistory(t *testing.T) {
	conn := e2eConn(t, uniqueQueue(t))
	cl := dialTest(t, conn)
	startTestWorker(t, cl, conn, &Activities{})

	const brief = "ship the codec 7c1e"
	slots, err := bind.ParseAssignments("--slot", []string{
		`guard=exec:echo '{"proceed":true,"reason":"fine"}'`, `target=exec:cat`})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := bind.ParseAssignments("--input", []string{"task_brief=" + brief})
	req, err := Resolve(ResolveOptions{Path: "std/patterns/guard.prose.md", Bindings: bind.Settings{Slots: slots, Inputs: in}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	id, err := Start(ctx, cl, conn, "", req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Wait(ctx, cl, id); err != nil {
		t.Fatalf("run: %v", err)
	}

	// What the history holds: the run's input, each activity's input and
	// summary, as payloads.
	var input, activity, summaries []*commonpb.Payload
	it := cl.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetWorkflowExecutionStartedEventAttributes(); a != nil {
			input = append(input, a.GetInput().GetPayloads()...)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			activity = append(activity, a.GetInput().GetPayloads()...)
			if s := ev.GetUserMetadata().GetSummary(); s != nil {
				summaries = append(summaries, s)
			}
		}
	}
	if len(input) == 0 || len(activity) == 0 || len(summaries) == 0 {
		t.Fatalf("history: %d input, %d activity input, %d summary payloads", len(input), len(activity), len(summaries))
	}
	if inClear(input, brief) {
		t.Fatal("the history holds the run's input in clear")
	}

	// The codec server, on the workers' key, as the CLI calls it
	// (--codec-endpoint, --codec-auth).
	srv := serveCodec(t, conn.KeyFile)
	withToken := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{Endpoint: srv.URL,
		ModifyRequest: func(r *http.Request) error { r.Header.Set("Authorization", "Bearer op-token"); return nil }})
	dec, err := withToken.Decode(input)
	if err != nil || !inClear(dec, brief) {
		t.Fatalf("the run's input through the codec server: %v, want it in clear", err)
	}
	if dec, err := withToken.Decode(activity); err != nil || !inClear(dec, brief) {
		t.Errorf("the activities' input through the codec server: %v, want the brief in clear", err)
	}
	dec, err = withToken.Decode(summaries)
	if err != nil || !inClear(dec, "std/patterns/guard.prose.md: slot guard, call ") {
		t.Errorf("the activities' summaries through the codec server: %v %s, want the spec, slot and call", err, payloadText(dec))
	}

	noToken := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{Endpoint: srv.URL})
	if dec, err := noToken.Decode(input); err == nil || inClear(dec, brief) {
		t.Errorf("without the token: %v, want a refusal", err)
	}
	otherKey := filepath.Join(t.TempDir(), "temporal.key")
	if _, err := loadKey(otherKey); err != nil {
		t.Fatal(err)
	}
	other := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{Endpoint: serveCodec(t, otherKey).URL,
		ModifyRequest: func(r *http.Request) error { r.Header.Set("Authorization", "Bearer op-token"); return nil }})
	if dec, err := other.Decode(input); err == nil || inClear(dec, brief) {
		t.Errorf("a codec server of another key: %v, want it to read nothing", err)
	}
}

// serveCodec serves the codec of keyFile ("": the tests' key) with
// token op-token.
func serveCodec(t *testing.T, keyFile string) *httptest.Server {
	t.Helper()
	h, err := NewCodecHandler(CodecServerOptions{KeyFile: keyFile, Token: "op-token"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// inClear reports whether a payload's data holds s.
func inClear(ps []*commonpb.Payload, s string) bool {
	return strings.Contains(payloadText(ps), s)
}

func payloadText(ps []*commonpb.Payload) string {
	var b strings.Builder
	for _, p := range ps {
		b.Write(p.GetData())
		b.WriteByte('\n')
	}
	return b.String()
}
