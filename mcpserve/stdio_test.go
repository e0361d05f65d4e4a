package mcpserve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
)

// wire is a server on Stdio driven line by line, as a client's pipes
// drive it: what the test writes is the client's output, every line the
// server writes is kept in order.
type wire struct {
	in    *io.PipeWriter
	lines chan map[string]any
	done  chan error
	all   []map[string]any
}

func newWire(t *testing.T, ctx context.Context) *wire {
	root := testenv.MustRoot(t)
	srv := New(Options{RunDir: filepath.Join(t.TempDir(), "runs"), Dir: root})
	t.Cleanup(srv.Close)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{in: inW, lines: make(chan map[string]any, 1024), done: make(chan error, 1)}
	go func() {
		err := srv.MCP().Run(ctx, Stdio(ctx, inR, outW))
		outW.Close()
		w.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				w.lines <- m
			}
		}
		close(w.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	w.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`)
	w.reply(t, 1)
	w.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *wire) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// reply reads lines until the response to id, and returns it.
func (w *wire) reply(t *testing.T, id float64) map[string]any {
	t.Helper()
	for m := range w.lines {
		w.all = append(w.all, m)
		if m["id"] == id && m["method"] == nil {
			return m
		}
	}
	t.Fatalf("no response to request %v", id)
	return nil
}

// rest reads every line until the server closes its output.
func (w *wire) rest() {
	for m := range w.lines {
		w.all = append(w.all, m)
	}
}

func toolCall(id int, tool string, args map[string]any, token string) string {
	params := map[string]any{"name": tool, "arguments": args}
	if token != "" {
		params["_meta"] = map[string]any{"progressToken": token}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	return string(b)
}

var ratchetRun = map[string]any{"file": "std/patterns/ratchet.prose.md",
	"slots":  map[string]any{"advancer": "exec:testdata/run/advancer.sh", "certifier": "exec:testdata/run/certifier.sh"},
	"inputs": map[string]any{"task_brief": "ship release 1.2"}}

// A client that pipes its requests and closes its end at once gets every
// answer, the run's too; the run's progress all comes under the run
// call's token, before its answer, one per call, increasing.
func TestStdioAnswersEveryRequestAndProgressWhileActive(t *testing.T) {
	w := newWire(t, context.Background())
	args := map[string]any{"wait_seconds": 30}
	for k, v := range ratchetRun {
		args[k] = v
	}
	w.send(t, toolCall(2, "run", args, "tok-run"))
	w.send(t, toolCall(3, "lint", map[string]any{"paths": []string{"std/patterns/ratchet.prose.md"}}, ""))
	w.in.Close()
	w.rest()
	if err := <-w.done; err != nil && err != io.EOF {
		t.Logf("server ended with %v", err)
	}
	answered := map[float64]int{}
	progress := 0
	last := 0.0
	for i, m := range w.all {
		if id, ok := m["id"].(float64); ok && m["method"] == nil {
			answered[id] = i
			if m["error"] != nil {
				t.Errorf("request %v: %v", id, m["error"])
			}
			continue
		}
		if m["method"] != "notifications/progress" {
			continue
		}
		p := m["params"].(map[string]any)
		if p["progressToken"] != "tok-run" {
			t.Errorf("progress %v under a token the client never issued", p)
		}
		if _, ok := answered[2]; ok {
			t.Errorf("progress %v after the run call was answered", p)
		}
		if v := p["progress"].(float64); v <= last {
			t.Errorf("progress %v after %v", v, last)
		} else {
			last = v
		}
		progress++
	}
	if _, ok := answered[2]; !ok {
		t.Fatalf("the run call got no answer; lines %v", w.all)
	}
	if _, ok := answered[3]; !ok {
		t.Fatalf("the lint call got no answer")
	}
	res := w.all[answered[2]]["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if sc["status"] != StatusOK {
		t.Fatalf("run result %v: want ok", res)
	}
	if progress != 10 {
		t.Errorf("%d progress notifications, want 10 (one per call of the run)", progress)
	}
}

// A request the client cancels gets no response; the others do.
func TestStdioNoResponseToACancelledRequest(t *testing.T) {
	w := newWire(t, context.Background())
	args := map[string]any{"file": "std/patterns/ratchet.prose.md",
		"slots":  map[string]any{"advancer": "exec:sleep 60", "certifier": "exec:testdata/run/certifier.sh"},
		"inputs": map[string]any{"task_brief": "x"}}
	w.send(t, toolCall(2, "run", args, ""))
	res := w.reply(t, 2)["result"].(map[string]any)
	id := res["structuredContent"].(map[string]any)["run_id"].(string)
	w.send(t, toolCall(3, "result", map[string]any{"run_id": id, "wait_seconds": 30}, "tok-3"))
	w.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"the user pressed stop"}}`)
	w.send(t, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	w.in.Close()
	w.rest()
	<-w.done
	var ids []string
	for _, m := range w.all {
		if m["method"] == nil {
			ids = append(ids, fmt.Sprint(m["id"]))
		}
	}
	if got := strings.Join(ids, " "); got != "1 2 4" {
		t.Errorf("responses to %s, want 1 2 4 (none to the cancelled 3)", got)
	}
}

// When the server's context ends (Ctrl-C), a tool call waiting for a run
// ends with it and the server returns, the client's input still open.
func TestStdioStopsOnItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	w := newWire(t, ctx)
	args := map[string]any{"file": "std/patterns/ratchet.prose.md", "wait_seconds": 30,
		"slots":  map[string]any{"advancer": "exec:sleep 60", "certifier": "exec:testdata/run/certifier.sh"},
		"inputs": map[string]any{"task_brief": "x"}}
	w.send(t, toolCall(2, "run", args, ""))
	w.send(t, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	w.reply(t, 3)
	cancel()
	select {
	case <-w.done:
	case <-time.After(time.Minute): // a failure bound, not a measure
		t.Fatal("the server did not stop with its context")
	}
}
