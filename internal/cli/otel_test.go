package cli

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/telemetry"
)

// otlpSpan is what the receiver reads of a span in an OTLP/HTTP export.
type otlpSpan struct {
	name, traceID, spanID, parentID string
	attrs                           map[string]string
}

// otlpReceiver is an OTLP/HTTP trace receiver on 127.0.0.1: it decodes
// each ExportTraceServiceRequest (protobuf) into the spans it carries.
type otlpReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []otlpSpan
	paths []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		spans, err := decodeExport(body)
		if err != nil {
			t.Errorf("OTLP request: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.spans = append(r.spans, spans...)
		r.paths = append(r.paths, req.URL.Path)
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(r.Close)
	return r
}

// fields calls fn for each field of the protobuf message b.
func fields(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v []byte
		switch typ {
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			v = b[:max(n, 0)]
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := fn(num, typ, v); err != nil {
			return err
		}
	}
	return nil
}

// decodeExport reads ExportTraceServiceRequest.resource_spans(1) >
// ResourceSpans.scope_spans(2) > ScopeSpans.spans(2) > Span: trace_id(1),
// span_id(2), parent_span_id(4), name(5), attributes(9: KeyValue key(1),
// value(2: AnyValue string(1), bool(2), int(3))).
func decodeExport(b []byte) ([]otlpSpan, error) {
	var out []otlpSpan
	err := fields(b, func(n protowire.Number, _ protowire.Type, rs []byte) error {
		if n != 1 {
			return nil
		}
		return fields(rs, func(n protowire.Number, _ protowire.Type, ss []byte) error {
			if n != 2 {
				return nil
			}
			return fields(ss, func(n protowire.Number, _ protowire.Type, sp []byte) error {
				if n != 2 {
					return nil
				}
				s, err := decodeSpan(sp)
				out = append(out, s)
				return err
			})
		})
	})
	return out, err
}

func decodeSpan(b []byte) (otlpSpan, error) {
	s := otlpSpan{attrs: map[string]string{}}
	err := fields(b, func(n protowire.Number, _ protowire.Type, v []byte) error {
		switch n {
		case 1:
			s.traceID = hex.EncodeToString(v)
		case 2:
			s.spanID = hex.EncodeToString(v)
		case 4:
			s.parentID = hex.EncodeToString(v)
		case 5:
			s.name = string(v)
		case 9:
			var key, val string
			err := fields(v, func(n protowire.Number, _ protowire.Type, kv []byte) error {
				switch n {
				case 1:
					key = string(kv)
				case 2:
					return fields(kv, func(n protowire.Number, typ protowire.Type, av []byte) error {
						switch {
						case n == 1:
							val = string(av)
						case typ == protowire.VarintType:
							x, _ := protowire.ConsumeVarint(av)
							val = fmt.Sprint(x)
						}
						return nil
					})
				}
				return nil
			})
			s.attrs[key] = val
			return err
		}
		return nil
	})
	return s, err
}

const otelKey = "sk-otel-0123456789abcdefghij"

// prose run with OTEL_EXPORTER_OTLP_ENDPOINT set sends the run's spans
// over OTLP/HTTP to a receiver on 127.0.0.1, and --otel-file writes the
// same spans as JSON lines; the API key is in neither.
func TestRunExportsOTLPOverHTTP(t *testing.T) {
	recv := newOTLPReceiver(t)
	model := llmtest.NewServer(t, llmtest.Text("a finished essay"), llmtest.Verdict(true, "finished"))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "judged.prose.md"), []byte(judgedRunSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("OPENAI_BASE_URL", model.URL)
	t.Setenv("OPENAI_API_KEY", otelKey)
	t.Setenv("PROSE_MODEL", "fake")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	code, stdout, stderr := runMain(t, "run", "judged.prose.md", "--slot", "worker=llm", "--input", "task=write an essay",
		"--otel-file", "spans.jsonl", "--otel-content", "-q")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}

	recv.mu.Lock()
	spans, paths := recv.spans, recv.paths
	recv.mu.Unlock()
	if len(paths) == 0 || paths[0] != "/v1/traces" {
		t.Fatalf("OTLP requests to %v, want /v1/traces", paths)
	}
	byName := map[string][]otlpSpan{}
	for _, s := range spans {
		byName[s.name] = append(byName[s.name], s)
		for k, v := range s.attrs {
			if strings.Contains(v, otelKey) {
				t.Errorf("span %s attribute %s holds the API key", s.name, k)
			}
		}
	}
	runs, calls, chats := byName["invoke_workflow judged"], byName["call worker"], byName["chat fake"]
	if len(runs) != 1 || len(calls) != 1 || len(chats) != 2 {
		t.Fatalf("spans received %v: want one run, one call, two chats", slices.Collect(maps.Keys(byName)))
	}
	if runs[0].parentID != "" || calls[0].parentID != runs[0].spanID || calls[0].traceID != runs[0].traceID {
		t.Errorf("call's parent %s, run span %s", calls[0].parentID, runs[0].spanID)
	}
	if !strings.Contains(stderr, runs[0].attrs[string(telemetry.RunID)]) || runs[0].attrs[string(telemetry.RunID)] == "" {
		t.Errorf("run span's run id %q is not the run's (stderr %s)", runs[0].attrs[string(telemetry.RunID)], stderr)
	}
	var slotChat *otlpSpan
	for i := range chats {
		if chats[i].parentID == calls[0].spanID {
			slotChat = &chats[i]
		}
	}
	if slotChat == nil {
		t.Fatalf("no chat span under the call")
	}
	if a := slotChat.attrs; a[string(telemetry.OperationName)] != "chat" || a[string(telemetry.UsageInputTokens)] != "10" ||
		!strings.Contains(a[string(telemetry.OutputMessages)], "a finished essay") {
		t.Errorf("chat span attributes %v", a)
	}

	// The file holds the same spans, one JSON object a line.
	f, err := os.ReadFile("spans.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Spans carry the run's data: the file is its owner's alone.
	if fi, err := os.Stat("spans.jsonl"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("spans.jsonl: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	var fileNames []string
	sc := bufio.NewScanner(bytes.NewReader(f))
	for sc.Scan() {
		var fs telemetry.FileSpan
		if err := json.Unmarshal(sc.Bytes(), &fs); err != nil {
			t.Fatalf("span line %s: %v", sc.Bytes(), err)
		}
		if fs.TraceID != runs[0].traceID || fs.Attributes == nil {
			t.Errorf("span line %s: want trace %s and attributes", sc.Bytes(), runs[0].traceID)
		}
		fileNames = append(fileNames, fs.Name)
	}
	if strings.Contains(string(f), otelKey) {
		t.Errorf("the span file holds the API key")
	}
	slices.Sort(fileNames)
	want := []string{"call worker", "chat fake", "chat fake", "invoke_workflow judged"}
	if !slices.Equal(fileNames, want) {
		t.Errorf("span file names %v, want %v", fileNames, want)
	}
}

// --otel-content with nowhere to send spans is a usage error.
func TestOtelContentNeedsAnExporter(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	code, _, stderr := runMain(t, "run", "--no-journal", "x.prose.md", "--otel-content")
	if code != exitUsage || !strings.Contains(stderr, "--otel-file") {
		t.Errorf("exit %d, stderr %s: want a usage error naming --otel-file", code, stderr)
	}
}
