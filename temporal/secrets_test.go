package temporal

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/run"
)

// The codec opens what it sealed, passes a payload it did not seal
// through (histories recorded before it), and refuses one sealed with
// another key, naming the key file.
func TestCodecRoundTrip(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "temporal.key")
	k, err := loadKey(file)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := loadKey(file); !bytes.Equal(again, k) {
		t.Fatal("a second load made another key")
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode: %v %v, want 0600", st.Mode(), err)
	}
	c, _ := newCodec(k, file)
	plain := &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte("json/plain")}, Data: []byte(`"API_TOKEN=hunter2hunter2"`)}
	enc, err := c.Encode([]*commonpb.Payload{plain})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := proto.Marshal(enc[0]); bytes.Contains(raw, []byte("hunter2")) || bytes.Contains(raw, []byte("json/plain")) {
		t.Fatalf("an encoded payload shows its text: %q", raw)
	}
	dec, err := c.Decode(append(enc, plain))
	if err != nil || !proto.Equal(dec[0], plain) || !proto.Equal(dec[1], plain) {
		t.Fatalf("decode: %v, %v", dec, err)
	}
	other, _ := newCodec(bytes.Repeat([]byte{7}, 32), "/elsewhere/temporal.key")
	if _, err := other.Decode(enc); err == nil || !strings.Contains(err.Error(), "/elsewhere/temporal.key") {
		t.Errorf("decoding with another key: %v, want an error naming the key file", err)
	}
	if err := os.WriteFile(file, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadKey(file); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a bad key file: %v", err)
	}
}

// On a real server, the history of a run whose exec binding holds
// API_TOKEN=... and whose input is an sk-... key holds neither value
// anywhere (request, activity inputs and results, the run's result, its
// failure), while the run sees both.
func TestE2ETemporalHistoryHoldsNoSecret(t *testing.T) {
	conn := e2eConn(t, uniqueQueue(t))
	cl := dialTest(t, conn)
	startTestWorker(t, cl, conn, &Activities{})

	const token, key = "tok-4f9a1c22e8b7d0", "sk-live0123456789abcdefXYZ"
	slots, err := bind.ParseAssignments("--slot", []string{
		`guard=exec:API_TOKEN=` + token + ` sh -c 'echo "{\"proceed\":true,\"reason\":\"$API_TOKEN\"}"'`,
		`target=exec:echo "\"$0 failed\"" >&2; exit 3`,
	})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := bind.ParseAssignments("--input", []string{"task_brief=" + key})
	for _, target := range []string{`exec:cat`, `exec:API_TOKEN=` + token + ` sh -c 'echo "$API_TOKEN" >&2; exit 3'`} {
		slots[1].Value = target
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
		v, err := Wait(ctx, cl, id)
		var re *RunError
		if strings.HasPrefix(target, "exec:cat") {
			if err != nil {
				t.Fatalf("run: %v", err)
			}
		} else if !errors.As(err, &re) || !strings.Contains(re.Msg, token) {
			// the run's own error is read back whole by this process
			t.Fatalf("failing run: %v %v, want its message with the token", v, err)
		}
		it := cl.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		events := 0
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			events++
			raw, err := proto.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{token, key, "API_TOKEN"} {
				if bytes.Contains(raw, []byte(s)) {
					t.Errorf("%s: history event %d (%s) holds %q", target, ev.GetEventId(), ev.GetEventType(), s)
				}
			}
		}
		if events < 5 {
			t.Fatalf("%s: only %d history events read", target, events)
		}
	}
}

// On a real server, a start with the workflow id of a running run is
// refused, naming it; with Attach the engine waits for that run instead.
func TestE2ETemporalRunningWorkflowID(t *testing.T) {
	conn := e2eConn(t, uniqueQueue(t))
	cl := dialTest(t, conn)
	startTestWorker(t, cl, conn, &Activities{})
	gate := filepath.Join(t.TempDir(), "gate")
	slots := []string{
		`guard=exec:echo '{"proceed":true}'`,
		// the first run waits for the gate file, so it is running while
		// the others start
		"target=exec:while [ ! -e " + shq(gate) + " ]; do sleep 0.05; done; echo '\"first\"'",
	}
	as, _ := bind.ParseAssignments("--slot", slots)
	in, _ := bind.ParseAssignments("--input", []string{"task_brief=go"})
	req := run.Request{Spec: "std/patterns/guard.prose.md", Bindings: bind.Settings{Slots: as, Inputs: in}}
	id := "wf-" + uniqueQueue(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first := &Engine{Conn: conn, Client: cl, WorkflowID: id}
	if _, err := first.Start(ctx, req, run.Options{}); err != nil {
		t.Fatal(err)
	}
	other := req
	other.Bindings.Slots = append([]bind.Assignment(nil), as...)
	other.Bindings.Slots[1].Value = `exec:echo '"second"'`
	_, err := (&Engine{Conn: conn, Client: cl, WorkflowID: id}).Run(ctx, other, run.Options{})
	var ar *AlreadyRunningError
	if !errors.As(err, &ar) || ar.ID != id || !strings.Contains(err.Error(), "workflow "+id+" is already running") || !strings.Contains(err.Error(), "--attach") {
		t.Fatalf("second start: %v, want it refused naming %s", err, id)
	}
	// Attached, Start returns the running run's id and starts none.
	attach := &Engine{Conn: conn, Client: cl, WorkflowID: id, Attach: true}
	if got, err := attach.Start(ctx, other, run.Options{}); err != nil || got != id {
		t.Fatalf("attached start: %q %v, want %s", got, err, id)
	}
	stderr := &lockedBuffer{}
	type outcome struct {
		res *run.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		// The engine tells that it attached (prose prints it).
		attached := func(n run.Notice) {
			if n.Remote != nil && n.Remote.Attached {
				stderr.Write([]byte(n.Remote.ID + " was already running"))
			}
		}
		res, err := attach.Run(ctx, other, run.Options{Notify: attached})
		done <- outcome{res, err}
	}()
	for !strings.Contains(stderr.String(), id+" was already running") {
		select {
		case o := <-done:
			t.Fatalf("attached run ended before saying it attached: %v %v, stderr %q", o.res, o.err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	if got, _ := delegation.ToJSON(o.res.Value); o.res.RunID != id || !strings.Contains(string(got), `"result":"first"`) {
		t.Errorf("attached: run %s value %s, want %s's value \"first\"", o.res.RunID, got, id)
	}
	if _, err := Wait(ctx, cl, "no-such-"+id); !errors.As(err, new(*UnknownRunError)) {
		t.Errorf("waiting for an unknown id: %v, want an *UnknownRunError", err)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
