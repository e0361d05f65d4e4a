package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/run"
)

// notesSpec declares one MCP server, notes.
const notesSpec = `---
name: keep-notes
kind: function
---

# Keep notes

### Parameters

- ` + "`topic`" + `: what the notes are about

### Returns

- ` + "`summary`" + `: what was written down

### Tools

- ` + "`mcp:notes`" + `: where notes are kept
`

func mcpFixture(t *testing.T) fixture {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "tally.prose.md"), []byte(notesSpec), 0o644))
	return fixture{dir: dir, ticks: filepath.Join(dir, "notes.log")}
}

// bumpArgs are the arguments of the notes servers' one tool.
type bumpArgs struct {
	Note string `json:"note"`
}

// scriptNotes is a model that writes two notes down, then answers.
func scriptNotes(t *testing.T) *llmtest.Server {
	return llmtest.NewServer(t,
		llmtest.Call("notes__bump", map[string]any{"note": "first"}),
		llmtest.Call("notes__bump", map[string]any{"note": "second"}),
		llmtest.JSON(map[string]any{"summary": "two notes"}))
}

// checkNotesRun runs the session, checks what the model was offered and
// read, then replays it: no model request, no tool call.
func checkNotesRun(t *testing.T, f fixture, opts run.Options, model *llmtest.Server, calls func() int) {
	t.Helper()
	res, err := run.Local{}.Run(context.Background(), f.request(), opts)
	must(t, err)
	if got := asJSON(t, res.Value); got != `{"summary":"two notes"}` {
		t.Fatalf("value %s", got)
	}
	if n := calls(); n != 2 {
		t.Fatalf("the MCP tool ran %d times, want 2", n)
	}
	reqs := model.Requests()
	if tools := reqs[0].Tools(); len(tools) != 1 || tools[0] != "notes__bump" {
		t.Errorf("offered %v, want [notes__bump]", tools)
	}
	msgs := reqs[2].Messages()
	last := msgs[len(msgs)-1]
	var out struct {
		Content []struct{ Type, Text string }
	}
	must(t, json.Unmarshal([]byte(last.Content), &out))
	if last.Role != "tool" || len(out.Content) != 1 || out.Content[0].Text != "2 notes" {
		t.Errorf("the model read %+v, want the server's result \"2 notes\"", last)
	}
	replayed, err := run.Replay(context.Background(), res.RunID, opts)
	must(t, err)
	if got := asJSON(t, replayed.Value); got != `{"summary":"two notes"}` {
		t.Errorf("replay value %s", got)
	}
	if model.Count() != 3 || calls() != 2 {
		t.Errorf("the replay asked the model %d times and ran the tool %d times", model.Count()-3, calls()-2)
	}
}

// An MCP server served in the process through the Go SDK.
func TestInProcessMCPSession(t *testing.T) {
	f := mcpFixture(t)
	var bumps atomic.Int64
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "bump", Description: "write a note down and count the notes"},
		func(ctx context.Context, req *mcp.CallToolRequest, in bumpArgs) (*mcp.CallToolResult, any, error) {
			n := bumps.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d notes", n)}}}, nil, nil
		})
	model := scriptNotes(t)
	opts := f.options(model)
	opts.MCPServers = map[string]*mcp.Server{"notes": srv}
	checkNotesRun(t, f, opts, model, func() int { return int(bumps.Load()) })
}

// An MCP server over stdio: a program the test builds, named by the
// project's .mcp.json, started once for the run and stopped with it.
func TestStdioMCPSession(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the test server with")
	}
	f := mcpFixture(t)
	bin := filepath.Join(t.TempDir(), "mcpserver")
	build := exec.Command("go", "build", "-o", bin, "./testdata/mcpserver")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the test server: %v\n%s", err, out)
	}
	conf, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"notes": map[string]any{"command": bin, "args": []string{f.ticks}}}})
	must(t, os.WriteFile(filepath.Join(f.dir, ".mcp.json"), conf, 0o644))
	must(t, os.Mkdir(filepath.Join(f.dir, ".git"), 0o755)) // the project root
	model := scriptNotes(t)
	checkNotesRun(t, f, f.options(model), model, func() int { return f.count(t) })
}

// An mcp: declaration that no configuration has refuses the run, saying
// which file was read and what it has.
func TestUnconfiguredMCPServerRefusesTheRun(t *testing.T) {
	f := mcpFixture(t)
	must(t, os.WriteFile(filepath.Join(f.dir, ".mcp.json"), []byte(`{"mcpServers": {"mail": {"command": "mail-mcp"}}}`), 0o644))
	model := llmtest.NewServer(t)
	_, err := run.Local{}.Run(context.Background(), f.request(), f.options(model))
	if err == nil || !strings.Contains(err.Error(), `has no server "notes" (it has mail)`) || !strings.Contains(err.Error(), "tally.prose.md:18:4") {
		t.Fatalf("err %v", err)
	}
}
