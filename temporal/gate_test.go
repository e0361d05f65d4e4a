package temporal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
)

// waitForGate polls the run's gates until gate waits (the workflow gets
// there on its own time; the test's deadline bounds the wait).
func waitForGate(t *testing.T, ctx context.Context, cl client.Client, id, gate string) WaitingGate {
	t.Helper()
	for {
		gates, err := Gates(ctx, cl, id)
		if err == nil && len(gates) == 1 && gates[0].Gate == gate {
			return gates[0]
		}
		if ctx.Err() != nil {
			t.Fatalf("gate %s never waited: %v %+v", gate, err, gates)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func startGateRun(t *testing.T, ctx context.Context, cl client.Client, conn Conn, path string) string {
	t.Helper()
	b := bind.Settings{Slots: []bind.Assignment{{Name: "shipper", Value: "exec:cat"}}}
	req, err := Resolve(ResolveOptions{Path: path, Bindings: b, Dir: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	id, err := Start(ctx, cl, conn, "", req)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// A run on Temporal waits at each gate until prose answer's signal, then
// goes on with the answer.
func TestE2EGateWaitsForAnswer(t *testing.T) {
	conn := e2eConn(t, uniqueQueue(t))
	cl := dialTest(t, conn)
	startTestWorker(t, cl, conn, &Activities{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec, err := filepath.Abs(filepath.Join("..", "testdata", "gates", "release.prose.md"))
	if err != nil {
		t.Fatal(err)
	}
	id := startGateRun(t, ctx, cl, conn, spec)

	g := waitForGate(t, ctx, cl, id, "L19")
	if g.Kind != "ask_user" || string(g.Question) != `"Which release should ship?"` {
		t.Fatalf("first gate %+v", g)
	}
	if _, err := Answer(ctx, cl, id, "", json.RawMessage(`{"a":1}`)); err == nil {
		t.Fatal("ask_user took an object")
	}
	if _, err := Answer(ctx, cl, id, "", json.RawMessage(`"v1.2"`)); err != nil {
		t.Fatal(err)
	}
	g = waitForGate(t, ctx, cl, id, "L20")
	if g.Kind != "gate" || g.Deadline.IsZero() || string(g.Question) != `{"release":"v1.2","options":["ship","hold"]}` {
		t.Fatalf("second gate %+v", g)
	}
	if _, err := Answer(ctx, cl, id, "L20", json.RawMessage(`{"choice":"ship"}`)); err != nil {
		t.Fatal(err)
	}
	v, err := Wait(ctx, cl, id)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := delegation.ToJSON(v); string(got) != `{"release":"v1.2","choice":"ship"}` {
		t.Fatalf("result %s", got)
	}
	if _, err := Answer(ctx, cl, id, "", json.RawMessage(`"late"`)); err == nil {
		t.Fatal("a finished run took an answer")
	}
}

// A gate whose timeout passes unanswered takes its on_fail use value (the
// cluster's timer, not this machine's speed, decides when).
func TestE2EGateTimeoutTakesFallback(t *testing.T) {
	conn := e2eConn(t, uniqueQueue(t))
	cl := dialTest(t, conn)
	startTestWorker(t, cl, conn, &Activities{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "hold.prose.md")
	src := "---\nname: hold\nkind: pattern\n---\n\n# Hold\n\nWaits a second for a decision.\n\n### Slots\n\n- `shipper`\n\n### Delegation\n\n```prose\n" +
		"let verdict = gate \"ship?\"\n  timeout 1s\n  on_fail use \"hold\"\nlet shipped = call shipper\n  choice: verdict\nreturn shipped\n```\n"
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	id := startGateRun(t, ctx, cl, conn, spec)
	v, err := Wait(ctx, cl, id)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := delegation.ToJSON(v); string(got) != `{"choice":"hold"}` {
		t.Fatalf("result %s, want the fallback", got)
	}
}
