package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/telemetry"
)

// otelWorld is a world model of three nodes: feed (rendered by a
// program), tally (its Execution calls score, bound to a program) and
// brief (rendered by a model).
var otelWorld = map[string]string{
	"feed.prose.md":  "---\nname: feed\nkind: responsibility\n---\n\n# Feed\n\n### Maintains\n\n- `counts`: n\n",
	"tally.prose.md": "---\nname: tally\nkind: responsibility\n---\n\n# Tally\n\n### Requires\n\n- `feed.counts`: n\n\n### Maintains\n\n- `t`: n\n\n### Execution\n\n```prose\nlet s = call score\nreturn { t: s }\n```\n",
	"score.prose.md": "---\nname: score\nkind: function\n---\n\n# Score\n\n### Returns\n\n- `n`: a number\n",
	"brief.prose.md": "---\nname: brief\nkind: responsibility\n---\n\n# Brief\n\n### Requires\n\n- `tally.t`: the tally\n\n### Maintains\n\n- `line`: one line on the tally\n",
}

func writeOtelWorld(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	world := filepath.Join(dir, "world")
	if err := os.MkdirAll(world, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range otelWorld {
		if err := os.WriteFile(filepath.Join(world, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return world
}

// readSpanFile reads an --otel-file, checking it is its owner's alone.
func readSpanFile(t *testing.T, path string) []telemetry.FileSpan {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no span file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s is mode %v, want 0600", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []telemetry.FileSpan
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var fs telemetry.FileSpan
		if err := json.Unmarshal(sc.Bytes(), &fs); err != nil {
			t.Fatalf("span line %s: %v", sc.Bytes(), err)
		}
		out = append(out, fs)
	}
	return out
}

// checkDrainTrace checks that spans hold one drain trace per drain
// (drains of them): a root drain span, a render span of each node under
// it, tally's Execution run under its render with its call of score
// beneath, and brief's model request under its render. It returns the
// drain spans.
func checkDrainTrace(t *testing.T, spans []telemetry.FileSpan, drains int) []telemetry.FileSpan {
	t.Helper()
	byID := map[string]telemetry.FileSpan{}
	var roots []telemetry.FileSpan
	for _, s := range spans {
		byID[s.SpanID] = s
		if s.Name == "drain" {
			roots = append(roots, s)
		}
	}
	if len(roots) != drains {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name)
		}
		t.Fatalf("%d drain spans, want %d; spans %v", len(roots), drains, names)
	}
	// under reports whether s is a descendant of anc, and the names of
	// the spans between them.
	under := func(s telemetry.FileSpan, anc string) (bool, []string) {
		var path []string
		for p := s.ParentSpanID; p != ""; p = byID[p].ParentSpanID {
			if p == anc {
				return true, path
			}
			if _, ok := byID[p]; !ok {
				return false, path
			}
			path = append(path, byID[p].Name)
		}
		return false, path
	}
	for _, root := range roots {
		if root.ParentSpanID != "" {
			t.Errorf("drain span has a parent %s", root.ParentSpanID)
		}
		if n, ok := root.Attributes[string(telemetry.DrainNumber)].(float64); !ok || n < 1 {
			t.Errorf("drain span attributes %v: want prose.drain.number", root.Attributes)
		}
		renders := map[string]telemetry.FileSpan{}
		for _, s := range spans {
			if strings.HasPrefix(s.Name, "render ") && s.ParentSpanID == root.SpanID {
				if s.TraceID != root.TraceID {
					t.Errorf("render span %s in trace %s, its drain in %s", s.Name, s.TraceID, root.TraceID)
				}
				renders[s.Name] = s
			}
		}
		for _, n := range []string{"render feed", "render tally", "render brief"} {
			if _, ok := renders[n]; !ok {
				t.Fatalf("no span %q under the drain; renders %v", n, renders)
			}
		}
		var calls, chats int
		for _, s := range spans {
			switch {
			case s.Name == "call score":
				if ok, path := under(s, renders["render tally"].SpanID); ok && s.TraceID == root.TraceID {
					calls++
				} else {
					t.Errorf("call score not under render tally: its ancestors %v", path)
				}
			case strings.HasPrefix(s.Name, "chat"):
				if s.ParentSpanID == renders["render brief"].SpanID && s.TraceID == root.TraceID {
					chats++
					a := s.Attributes
					if a[string(telemetry.RequestModel)] != "fake" || a[string(telemetry.OutputType)] != "json" ||
						a[string(telemetry.ResponseID)] == nil || a[string(telemetry.RequestMaxTokens)] == nil {
						t.Errorf("render's chat span attributes %v", a)
					}
				}
			}
		}
		if calls != 1 || chats != 1 {
			t.Errorf("drain trace %s: %d calls of score under render tally, %d chat spans under render brief; want 1 and 1", root.TraceID, calls, chats)
		}
	}
	return roots
}

func otelWorldEnv(t *testing.T) {
	model := llmtest.NewServer(t, llmtest.Reply{Content: `{"line": "seven so far"}`, Times: -1})
	t.Setenv("OPENAI_BASE_URL", model.URL)
	t.Setenv("OPENAI_API_KEY", "sk-otel-world-0123456789")
	t.Setenv("PROSE_MODEL", "fake")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
}

// prose run DIR --otel-file F exports the drain as one trace: the drain,
// each render under it, and each call and model request under its
// render.
func TestWorldDrainOtelFile(t *testing.T) {
	world := writeOtelWorld(t)
	otelWorldEnv(t)
	recv := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	file := filepath.Join(t.TempDir(), "spans.jsonl")
	code, stdout, stderr := runMain(t, "run", world, "--slot", `feed=exec:echo '{"counts": 3}'`, "--slot", "tally.score=exec:echo 7",
		"--slot", "brief=llm", "--otel-file", file)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	roots := checkDrainTrace(t, readSpanFile(t, file), 1)
	// OTLP, where the environment says, gets the same trace.
	recv.mu.Lock()
	defer recv.mu.Unlock()
	got := map[string]string{}
	for _, s := range recv.spans {
		got[s.name] = s.traceID
	}
	for _, name := range []string{"drain", "render feed", "render tally", "render brief", "call score", "chat fake"} {
		if got[name] != roots[0].TraceID {
			t.Errorf("OTLP: span %q in trace %q, want the drain's %s", name, got[name], roots[0].TraceID)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader.
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

// prose serve --otel-file F exports each drain as a trace, nested as a
// drain of prose run DIR is.
func TestServeOtelFile(t *testing.T) {
	world := writeOtelWorld(t)
	otelWorldEnv(t)
	file := filepath.Join(t.TempDir(), "spans.jsonl")
	o := &serveOptions{path: world, state: filepath.Join(t.TempDir(), "state"), addr: "127.0.0.1:0", logFormat: "text", engine: "local",
		maxParallel: 4, maxEventBytes: 1 << 20, otel: otelFlags{file: file},
		slots: []string{`feed=exec:echo '{"counts": 3}'`, "tally.score=exec:echo 7", "brief=llm"}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &lockedBuffer{}
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, streams{in: strings.NewReader(""), out: io.Discard, err: stderr}, o) }()
	listen := regexp.MustCompile(`listening on (http://\S+)`)
	var url string
	for deadline := time.Now().Add(time.Minute); url == ""; time.Sleep(5 * time.Millisecond) {
		if m := listen.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended before listening: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not listen within a minute:\n%s", stderr.String())
		}
	}
	resp, err := http.Post(url+"/trigger/feed", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ack struct{ Drain int }
	json.NewDecoder(resp.Body).Decode(&ack)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted || ack.Drain == 0 {
		t.Fatalf("POST /trigger/feed: %d, drain %d", resp.StatusCode, ack.Drain)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		resp, err := http.Get(fmt.Sprintf("%s/drains/%d", url, ack.Drain))
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ State string }
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if st.State == "done" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("drain %d not done within a minute", ack.Drain)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	checkDrainTrace(t, readSpanFile(t, file), 1)
}
