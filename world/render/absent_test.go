package render_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
	"github.com/proselang/prose/world/render"
	"github.com/proselang/prose/world/store"
)

// releaseProject is a gateway and three subscribers of its `version`:
// one whose Execution reads it, one that tests it first, one rendered by
// whatever the test binds.
var releaseProject = map[string]string{
	"releases.prose.md": `---
name: releases
kind: gateway
---

# Releases

### Maintains

- ` + "`version`" + `: the latest release
`,
	"release-notes.prose.md": `---
name: release-notes
kind: responsibility
---

# Release notes

### Requires

- ` + "`version`" + `: the latest release

### Maintains

- ` + "`notes`" + `: the notes

### Execution

` + "```prose" + `
return { notes: "release v{version}" }
` + "```" + `
`,
	"release-status.prose.md": `---
name: release-status
kind: responsibility
---

# Release status

### Requires

- ` + "`version`" + `: the latest release

### Maintains

- ` + "`status`" + `: the status

### Execution

` + "```prose" + `
if version is present:
  return { status: "released " + version }
return { status: "no release yet" }
` + "```" + `
`,
	"release-board.prose.md": `---
name: release-board
kind: responsibility
---

# Release board

### Requires

- ` + "`version`" + `: the latest release

### Maintains

- ` + "`board`" + `: what the board shows
`,
}

type releases struct {
	t     *testing.T
	g     *graph.Graph
	st    *store.Store
	board reconcile.Renderer
}

func newReleases(t *testing.T, board reconcile.Renderer) *releases {
	dir := t.TempDir()
	for name, text := range releaseProject {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, diags, err := graph.Load(dir)
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "world"))
	if err != nil {
		t.Fatal(err)
	}
	return &releases{t: t, g: g, st: st, board: board}
}

func (r *releases) drain(events ...any) map[string]*receipt.Receipt {
	r.t.Helper()
	o := reconcile.Options{
		Graph: r.g, Store: r.st,
		Renderer: func(n *graph.Node) (reconcile.Renderer, error) {
			switch n.ID {
			case "releases":
				return render.Parse(printer(r.t, "releases", `{"version": "1.2"}`))
			case "release-board":
				return r.board, nil
			}
			return &render.Execution{}, nil
		},
		Now: func() time.Time { return time.Unix(0, 0) },
	}
	if len(events) > 0 {
		o.Events = map[string][]any{"releases": events}
	}
	res, err := reconcile.Drain(context.Background(), o)
	if err != nil {
		r.t.Fatal(err)
	}
	out := map[string]*receipt.Receipt{}
	for _, rc := range res.Receipts {
		out[rc.Node] = rc
	}
	return out
}

func (r *releases) truth(node string) string {
	r.t.Helper()
	b, err := os.ReadFile(r.st.TruthPath(node))
	if err != nil {
		return ""
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// Before its first event a gateway has no truth and does not render; an
// Execution that reads its absent value fails, naming it, and publishes
// nothing; one that tests it first handles the cold start. The event
// publishes the truth, and the failed render runs again.
func TestAbsentInputColdStart(t *testing.T) {
	echo, err := render.Parse("exec:printf '{\"board\": %s}' \"$(cat)\"")
	if err != nil {
		t.Fatal(err)
	}
	r := newReleases(t, echo)
	got := r.drain()
	if got["releases"] != nil {
		t.Errorf("the gateway rendered with no event: %+v", got["releases"])
	}
	notes := got["release-notes"]
	if notes == nil || notes.Status != receipt.Failed ||
		!strings.Contains(notes.Reason, "'version' is absent: releases has not published it yet") {
		t.Fatalf("release-notes: %+v", notes)
	}
	if r.truth("release-notes") != "" {
		t.Errorf("a truth was published from an absent input: %s", r.truth("release-notes"))
	}
	if s := got["release-status"]; s == nil || s.Status != receipt.Rendered || r.truth("release-status") != `{ "status": "no release yet" }` {
		t.Errorf("release-status: %+v %s", s, r.truth("release-status"))
	}
	// A program finds the input missing and listed as absent.
	if b := r.truth("release-board"); !strings.Contains(b, `"absent": [ "version" ]`) || !strings.Contains(b, `"inputs": {}`) {
		t.Errorf("the program read: %s", b)
	}

	// Nothing moved: the render that failed on the absent input is not
	// tried again until its producer publishes.
	if got := r.drain(); len(got) != 0 {
		t.Errorf("second cold drain: %v", got)
	}

	got = r.drain(map[string]any{"id": "r1"})
	for _, n := range []string{"releases", "release-notes", "release-status"} {
		if got[n] == nil || got[n].Status != receipt.Rendered {
			t.Errorf("%s after the event: %+v", n, got[n])
		}
	}
	if s := r.truth("release-notes"); s != `{ "notes": "release v1.2" }` {
		t.Errorf("release-notes: %s", s)
	}
	if s := r.truth("release-status"); s != `{ "status": "released 1.2" }` {
		t.Errorf("release-status: %s", s)
	}
	if b := r.truth("release-board"); !strings.Contains(b, `"absent": []`) || !strings.Contains(b, `"inputs": { "version": "1.2" }`) {
		t.Errorf("the program read: %s", b)
	}
}

// A model render is told which inputs are absent, and is not given them
// as null.
func TestAbsentInputToldToModel(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"board": "waiting for a release"}`})
	c, err := llm.NewClient(llm.Config{BaseURL: srv.URL, Model: "test-model", APIKey: "k", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newReleases(t, &render.Model{Client: c})
	if got := r.drain(); got["release-board"] == nil || got["release-board"].Status != receipt.Rendered {
		t.Fatalf("board: %+v", got["release-board"])
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var user, system string
	for _, m := range reqs[0].Messages() {
		switch m.Role {
		case "user":
			user += m.Content
		case "system":
			system += m.Content
		}
	}
	if !strings.Contains(user, "releases has not published it yet") || strings.Contains(user, `"version": null`) || strings.Contains(user, `"version":null`) {
		t.Errorf("user message:\n%s", user)
	}
	if !strings.Contains(system, `"absent": the inputs that do not exist yet`) {
		t.Errorf("system prompt does not say what absent means:\n%s", system)
	}
}
