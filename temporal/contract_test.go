package temporal

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/runhost"
	"github.com/proselang/prose/spec"
)

// Contract Markdown graphs (functions, responsibilities) run on the
// in-memory test environment with the same result as on the local engine,
// their calls resolved among the files that travelled with the run: the
// spec's directory is copied to a temporary one, the request is resolved
// from there, and the copy is removed before the workflow runs, so a
// worker that looked at its own disk would not find the callees.

type contractCase struct {
	name   string
	dir    string // the directory holding the spec and its siblings
	file   string // the spec, in dir
	inputs []string
	slots  []string
	// replies answer renders: a node name to its reply (nil: no model).
	replies map[string]any
}

// copySpecs copies the .prose.md files under dir to a new directory.
func copySpecs(t *testing.T, dir string) string {
	dst := filepath.Join(t.TempDir(), "specs")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !strings.HasSuffix(p, spec.Suffix) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// modelFor starts a fake model answering each node's render with its
// reply and returns the models a run uses with it.
func modelFor(t *testing.T, replies map[string]any) (*run.Models, *llmtest.Server) {
	names := make([]string, 0, len(replies))
	for n := range replies {
		names = append(names, n)
	}
	sort.Strings(names)
	var script []llmtest.Reply
	for _, n := range names {
		raw, _ := json.Marshal(replies[n])
		script = append(script, llmtest.Reply{Content: string(raw), Times: -1, Match: `\"` + regexp.QuoteMeta(n) + `\"`})
	}
	srv := llmtest.NewServer(t, script...)
	env := map[string]string{"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": srv.URL, "PROSE_MODEL": "test-model"}
	mods, err := run.NewModels(func(k string) string { return env[k] }, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return mods, srv
}

func (c *contractCase) bindings(t *testing.T) bind.Settings {
	slots, err := bind.ParseAssignments("--slot", c.slots)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := bind.ParseAssignments("--input", c.inputs)
	if err != nil {
		t.Fatal(err)
	}
	return bind.Settings{Slots: slots, Inputs: inputs}
}

func jsonOf(t *testing.T, v delegation.Value, err error) string {
	t.Helper()
	if err != nil {
		return "error: " + err.Error()
	}
	raw, err := delegation.ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func (c *contractCase) runLocal(t *testing.T) (string, int) {
	dir := copySpecs(t, c.dir)
	env := &bind.Env{Nested: callgraph.NestedSpec}
	var srv *llmtest.Server
	if c.replies != nil {
		var mods *run.Models
		mods, srv = modelFor(t, c.replies)
		env.Render, env.LLM = mods.RenderService, mods.SlotService
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	v, err := runhost.Run(ctx, runhost.RunOptions{Path: filepath.Join(dir, c.file), Bindings: c.bindings(t), Env: env})
	out := jsonOf(t, v, err)
	if srv != nil {
		return out, srv.Count()
	}
	return out, 0
}

func (c *contractCase) runWorkflow(t *testing.T) (string, int) {
	dir := copySpecs(t, c.dir)
	req, err := Resolve(ResolveOptions{Path: filepath.Join(dir, c.file), Bindings: c.bindings(t), HaveModel: c.replies != nil})
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	req = roundTrip(t, req)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	a := &Activities{}
	var srv *llmtest.Server
	if c.replies != nil {
		var mods *run.Models
		mods, srv = modelFor(t, c.replies)
		a.Render, a.LLM = mods.RenderService, mods.SlotService
	}
	env := newTestEnvWith(t, a)
	env.ExecuteWorkflow(WorkflowName, req)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	var out string
	if err := env.GetWorkflowError(); err != nil {
		out = jsonOf(t, nil, runError(err))
	} else {
		var res Result
		if err := env.GetWorkflowResult(&res); err != nil {
			t.Fatal(err)
		}
		out = string(res.Value)
	}
	if srv != nil {
		return out, srv.Count()
	}
	return out, 0
}

func runScript(t *testing.T, name string) string {
	p, err := filepath.Abs(filepath.Join("..", "testdata", "run", name))
	if err != nil {
		t.Fatal(err)
	}
	return "exec:" + shq(p)
}

func contractCases(t *testing.T) []contractCase {
	runDir, _ := filepath.Abs(filepath.Join("..", "testdata", "run"))
	cases := []contractCase{
		{name: "release-note/programs", dir: runDir, file: "release-note.prose.md",
			inputs: []string{"changes=faster search; new export; fixed login", "audience=users"},
			slots:  []string{"headline-writer=" + runScript(t, "headline.sh"), "summarizer=" + runScript(t, "summarize.sh")}},
		{name: "release-note/model", dir: runDir, file: "release-note.prose.md",
			inputs: []string{"changes=faster search; new export", "audience=users"},
			replies: map[string]any{
				"headline-writer": map[string]any{"headline": "Now: faster search"},
				"summarizer":      map[string]any{"text": "Two changes.", "count": 2},
			}},
		{name: "digest/programs", dir: runDir, file: "digest.prose.md",
			inputs: []string{"source=inbox"},
			slots:  []string{"collector=" + runScript(t, "collect.sh"), "digest=" + runScript(t, "digest.sh")}},
		// use lines name files beside the spec and beyond its directory
		{name: "use/programs", dir: "testdata/contract-use", file: "app/main.prose.md",
			inputs: []string{"person=Ada"}},
		{name: "sibling-and-index/model", dir: "testdata/contract", file: "main.prose.md",
			inputs: []string{"person=Ada"},
			replies: map[string]any{
				"shout": map[string]any{"loud": "ADA!"},
				"greet": map[string]any{"greeting": "hello Ada"},
			}},
	}
	return cases
}

func TestContractSameAsLocal(t *testing.T) {
	for _, c := range contractCases(t) {
		t.Run(c.name, func(t *testing.T) {
			local, lcalls := c.runLocal(t)
			remote, rcalls := c.runWorkflow(t)
			if strings.HasPrefix(local, "error:") {
				t.Fatalf("the local run failed: %s", local)
			}
			if remote != local || rcalls != lcalls {
				t.Errorf("local:    %s (%d model requests)\ntemporal: %s (%d model requests)", local, lcalls, remote, rcalls)
			}
		})
	}
}

// The 0.15 smoke fixtures (beside the repository; skipped when absent):
// every run case, its renders answered by a fake model, gives the same
// outputs on both engines, with one model request per render on each.
func TestContractSmokeSameAsLocal(t *testing.T) {
	dir := testenv.Corpus015(t, "smoke")
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Cases []struct {
			ID, Command, Source string
			Inputs              map[string]string
		}
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sc := range m.Cases {
		if sc.Command != "run" {
			continue
		}
		n++
		c := contractCase{name: sc.ID, dir: dir, file: sc.Source, replies: map[string]any{}}
		for k, v := range sc.Inputs {
			c.inputs = append(c.inputs, k+"="+v)
		}
		sort.Strings(c.inputs)
		sp, diags, err := spec.Load(filepath.Join(dir, sc.Source))
		if err != nil || diags.HasErrors() {
			t.Fatalf("%s: %v %v", sc.Source, err, diags)
		}
		for _, node := range append([]*spec.Spec{sp}, sp.Nodes...) {
			c.replies[node.Name] = smokeAnswer(node)
		}
		t.Run(c.name, func(t *testing.T) {
			local, lcalls := c.runLocal(t)
			remote, rcalls := c.runWorkflow(t)
			if strings.HasPrefix(local, "error:") || !strings.Contains(local, "-smoke-pass") {
				t.Fatalf("the local run did not pass: %s", local)
			}
			if remote != local || rcalls != lcalls || lcalls == 0 {
				t.Errorf("local:    %s (%d model requests)\ntemporal: %s (%d model requests)", local, lcalls, remote, rcalls)
			}
		})
	}
	if n == 0 {
		t.Fatal("the manifest has no run cases")
	}
}

// smokeAnswer is the fake model's reply for node n (llmtest.RenderAnswer).
func smokeAnswer(n *spec.Spec) map[string]any {
	outs := make([]llmtest.Output, len(n.Outputs))
	for i, o := range n.Outputs {
		outs[i] = llmtest.Output{Name: o.Name, Description: o.Description}
	}
	return llmtest.RenderAnswer(n.Name, outs)
}

// TestE2EContractSameAsLocal runs the contract table on a real server
// through the Engine (a worker in this process, with the cases' fake
// model), compares with the local engine, and, when asked, writes the
// histories the replay test reads.
func TestE2EContractSameAsLocal(t *testing.T) {
	for _, c := range contractCases(t) {
		t.Run(c.name, func(t *testing.T) {
			conn := e2eConn(t, uniqueQueue(t))
			cl := dialTest(t, conn)
			local, lcalls := c.runLocal(t)
			a := &Activities{}
			var srv *llmtest.Server
			if c.replies != nil {
				var mods *run.Models
				mods, srv = modelFor(t, c.replies)
				a.Render, a.LLM = mods.RenderService, mods.SlotService
			}
			w := NewWorker(cl, conn, a, WorkerOptions{})
			if err := w.Start(); err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			dir := copySpecs(t, c.dir)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			var eng run.Engine = &Engine{Conn: conn, Client: cl}
			env := map[string]string{}
			if c.replies != nil {
				env["PROSE_MODEL"] = "test-model"
			}
			res, err := eng.Run(ctx, run.Request{Spec: filepath.Join(dir, c.file), Bindings: c.bindings(t)},
				run.Options{Getenv: func(k string) string { return env[k] }})
			if err != nil {
				t.Fatalf("temporal: %v", err)
			}
			remote := jsonOf(t, res.Value, nil)
			rcalls := 0
			if srv != nil {
				rcalls = srv.Count()
			}
			if remote != local || rcalls != lcalls {
				t.Errorf("local:    %s (%d model requests)\ntemporal: %s (%d model requests)", local, lcalls, remote, rcalls)
			}
			if record := os.Getenv(envRecord); record != "" {
				writeHistory(t, cl, res.RunID, filepath.Join(record, "contract-"+strings.ReplaceAll(c.name, "/", "-")+".json"))
			}
		})
	}
}
