package reconcile_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// buildBus builds the offline renders of the basic-unit-suite
// (testdata/world/bus).
func buildBus(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bus")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/world/bus")
	cmd.Dir = testenv.MustRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building bus: %v\n%s", err, out)
	}
	return bin
}

// suite drives drains of the basic-unit-suite against one state dir.
type suite struct {
	t   *testing.T
	g   *graph.Graph
	st  *store.Store
	bus string
	// binding overrides a node's binding.
	binding map[string]string
}

func newSuite(t *testing.T, bus, stateDir string) *suite {
	g, diags, err := graph.Load(testenv.Corpus015(t, "examples/basic-unit-suite"))
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	st, err := store.Open(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	return &suite{t: t, g: g, st: st, bus: bus, binding: map[string]string{}}
}

func (s *suite) bind(n *graph.Node) string {
	if b, ok := s.binding[n.ID]; ok {
		return b
	}
	return "exec:" + s.bus + " " + n.ID
}

// drain runs one drain with events for the gateway and self ticks.
func (s *suite) drain(events []any, ticks ...string) *reconcile.Result {
	s.t.Helper()
	o := reconcile.Options{
		Graph: s.g, Store: s.st, Ticks: ticks,
		Binding:  s.bind,
		Renderer: func(n *graph.Node) (reconcile.Renderer, error) { return render.Parse(s.bind(n)) },
		Now:      func() time.Time { return time.Unix(0, 0) },
	}
	if events != nil {
		o.Events = map[string][]any{"counter-events": events}
	}
	res, err := reconcile.Drain(context.Background(), o)
	if err != nil {
		s.t.Fatal(err)
	}
	return res
}

func ev(id, kind string, value int, material bool) any {
	return map[string]any{"id": id, "kind": kind, "value": value, "material": material}
}

// statuses maps node -> status of a drain's receipts.
func statuses(res *reconcile.Result) map[string]receipt.Status {
	m := map[string]receipt.Status{}
	for _, r := range res.Receipts {
		m[r.Node] = r.Status
	}
	return m
}

func rendered(res *reconcile.Result) []string {
	var out []string
	for _, r := range res.Receipts {
		if r.Status == receipt.Rendered {
			out = append(out, r.Node)
		}
	}
	sort.Strings(out)
	return out
}

func (s *suite) truth(node string) string {
	b, err := os.ReadFile(s.st.TruthPath(node))
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

var all7 = []string{"alert-projection", "alert-state", "count-summary", "count-trend", "counter-events", "executive-snapshot", "raw-event-auditor"}

// The acceptance cases of upstream's basic-unit-suite README, offline:
// every render bound to a program.
func TestBasicUnitSuite(t *testing.T) {
	bus := buildBus(t)
	s := newSuite(t, bus, t.TempDir())

	// U01/U02: the cold start renders all seven nodes once, in
	// topological order (U04's order too: counts before summary before
	// alert before projection).
	res := s.drain([]any{ev("e1", "click", 1, true)})
	if got := rendered(res); !reflect.DeepEqual(got, all7) || len(res.Receipts) != 7 {
		t.Fatalf("cold start rendered %q (%d receipts)", got, len(res.Receipts))
	}
	var order []string
	for _, r := range res.Receipts {
		order = append(order, r.Node)
		if r.Wake.Source != receipt.Boot {
			t.Errorf("%s: wake %s, want boot", r.Node, r.Wake.Source)
		}
	}
	want := []string{"counter-events", "count-summary", "count-trend", "raw-event-auditor", "alert-state", "alert-projection", "executive-snapshot"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("order %q, want %q", order, want)
	}

	// A drain with no event: nothing moved, nothing fires.
	res = s.drain(nil)
	if len(res.Receipts) != 0 || res.Programs != 0 {
		t.Errorf("quiet drain: %d receipts, %d programs", len(res.Receipts), res.Programs)
	}

	// U03: a byte-identical event skips the gateway and starts nothing.
	res = s.drain([]any{ev("e1", "click", 1, true)})
	if got := statuses(res); !reflect.DeepEqual(got, map[string]receipt.Status{"counter-events": receipt.Skipped}) || res.Programs != 0 {
		t.Errorf("identical event: %v, %d programs", got, res.Programs)
	}

	// U04 and U06: a material event propagates in DAG order, and the
	// diamond renders once.
	res = s.drain([]any{ev("e2", "click", 1, true)})
	if got := rendered(res); !reflect.DeepEqual(got, all7) || len(res.Receipts) != 7 {
		t.Errorf("material event rendered %q (%d receipts)", got, len(res.Receipts))
	}
	snap := 0
	for _, r := range res.Receipts {
		if r.Node == "executive-snapshot" {
			snap++
			if r.Wake.Source != receipt.Input || len(r.Wake.Refs) != 3 {
				t.Errorf("snapshot woken by %s %q, want input from its three producers", r.Wake.Source, r.Wake.Refs)
			}
		}
	}
	if snap != 1 {
		t.Errorf("the diamond rendered %d times", snap)
	}

	// U05: a metadata-only event moves raw_events, not counts: only the
	// auditor and the snapshot render beside the gateway.
	res = s.drain([]any{ev("m1", "click", 9, false)})
	if got := rendered(res); !reflect.DeepEqual(got, []string{"counter-events", "executive-snapshot", "raw-event-auditor"}) || len(res.Receipts) != 3 {
		t.Errorf("metadata event rendered %q (%d receipts)", got, len(res.Receipts))
	}
	if r := res.Receipts[0]; !reflect.DeepEqual(r.Diff.Moved, []string{"@atomic", "raw_events"}) {
		t.Errorf("gateway moved %q", r.Diff.Moved)
	}

	// U09: a self tick with unchanged inputs writes only skipped.
	res = s.drain(nil, "count-trend")
	if got := statuses(res); !reflect.DeepEqual(got, map[string]receipt.Status{"count-trend": receipt.Skipped}) || res.Programs != 0 {
		t.Errorf("self tick: %v, %d programs", got, res.Programs)
	}
	if res.Receipts[0].Wake.Source != receipt.Self {
		t.Errorf("tick wake %s", res.Receipts[0].Wake.Source)
	}

	// U08: a cosmetic re-render moves @atomic but not structured, and
	// wakes no one.
	s.binding["alert-projection"] = "exec:BUS_WORDING=2 " + bus + " alert-projection"
	res = s.drain(nil)
	if got := rendered(res); !reflect.DeepEqual(got, []string{"alert-projection"}) || len(res.Receipts) != 1 {
		t.Fatalf("cosmetic re-render: %q", got)
	}
	if r := res.Receipts[0]; !reflect.DeepEqual(r.Diff.Moved, []string{"@atomic"}) || !reflect.DeepEqual(r.Diff.Fields, []string{"html", "markdown", "projection_hash"}) {
		t.Errorf("projection moved %q, fields %q", r.Diff.Moved, r.Diff.Fields)
	}

	// U10: a failed alert-state keeps its prior truth and wakes no one;
	// the next drain retries it.
	before := s.truth("alert-state")
	t.Setenv("BUS_FAIL", "alert-state")
	res = s.drain([]any{ev("e3", "view", 5, true)})
	st := statuses(res)
	if st["alert-state"] != receipt.Failed || st["alert-projection"] != "" {
		t.Errorf("failure: %v", st)
	}
	if st["executive-snapshot"] != receipt.Rendered {
		t.Errorf("the snapshot did not render from the prior AlertState: %v", st)
	}
	if got := s.truth("alert-state"); got != before {
		t.Errorf("failed render changed the truth:\n%s", got)
	}
	t.Setenv("BUS_FAIL", "")
	res = s.drain(nil)
	if got := rendered(res); !reflect.DeepEqual(got, []string{"alert-projection", "alert-state", "executive-snapshot"}) {
		t.Errorf("retry rendered %q", got)
	}
	if got := s.truth("alert-state"); !bytes.Contains([]byte(got), []byte(`"status": "alert"`)) {
		t.Errorf("retried truth:\n%s", got)
	}

	// A second run with unchanged inputs: nothing starts.
	res = s.drain(nil)
	if len(res.Receipts) != 0 || res.Programs != 0 || res.Requests != 0 {
		t.Errorf("second run: %d receipts, %d programs, %d requests", len(res.Receipts), res.Programs, res.Requests)
	}
	problems, err := s.st.Verify(nil, nil)
	if err != nil || len(problems) > 0 {
		t.Errorf("verify: %v %v", err, problems)
	}
}

// U12: regenerating from the same events gives a byte-identical receipt
// ledger.
func TestBasicUnitSuiteReplayIsByteIdentical(t *testing.T) {
	bus := buildBus(t)
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		s := newSuite(t, bus, dir)
		s.drain([]any{ev("e1", "click", 1, true)})
		s.drain([]any{ev("e1", "click", 1, true)})
		s.drain([]any{ev("m1", "click", 1, false), ev("e2", "view", 2, true)})
		s.drain(nil, "count-trend")
	}
	for _, n := range all7 {
		a, err := os.ReadFile(filepath.Join(dirs[0], n, "receipts.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dirs[1], n, "receipts.jsonl"))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: ledgers differ:\n%s\n%s", n, a, b)
		}
	}
}

// A truth fingerprint ignores what the Maintains calls immaterial: the
// gateway's last_seen_at.
func TestImmaterialFieldMovesNothing(t *testing.T) {
	g, _, err := graph.Load(testenv.Corpus015(t, "examples/basic-unit-suite"))
	if err != nil {
		t.Fatal(err)
	}
	n := g.Node("counter-events")
	a, _ := canon.Decode([]byte(`{"counts":{"high_water_mark":1},"last_seen_at":"e1"}`))
	b, _ := canon.Decode([]byte(`{"counts":{"high_water_mark":1},"last_seen_at":"e9"}`))
	fa, _ := canon.Fingerprint(a, reconcile.Immaterial(g, n, graph.Atomic))
	fb, _ := canon.Fingerprint(b, reconcile.Immaterial(g, n, graph.Atomic))
	if fa != fb {
		t.Error("last_seen_at moved the atomic fingerprint")
	}
}
