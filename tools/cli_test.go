package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/redact"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/tools"
)

// cliBox is a box offering one cli: tool, NAME, a script in a directory
// of its own on PATH.
func cliBox(t *testing.T, name, script string, opt tools.Options) llm.Toolbox {
	t.Helper()
	bin := t.TempDir()
	must(t, os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+script), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	src := "---\nname: n\nkind: function\n---\n\n# N\n\n### Tools\n\n- `cli:" + name + "`: the tool\n"
	sp, _, err := spec.Read(strings.NewReader(src), "n.prose.md")
	must(t, err)
	box := tools.NewBox(opt).For(tools.Declared(sp))
	if _, err := box.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	return box
}

func callTool(t *testing.T, box llm.Toolbox, name string, arguments string) (*delegation.Object, error) {
	t.Helper()
	args := delegation.NewObject()
	v, err := delegation.FromJSON([]byte(arguments))
	must(t, err)
	args.Set("arguments", v)
	out, err := box.Service(name).Call(context.Background(), &delegation.CallRequest{Args: args, Attempt: 1})
	if err != nil {
		return nil, err
	}
	return out.(*delegation.Object), nil
}

func field(o *delegation.Object, k string) any {
	v, _ := o.Get(k)
	return v
}

// Output past the cap is cut, and the result says so.
func TestCLIOutputIsCapped(t *testing.T) {
	box := cliBox(t, "loud", "head -c 5000 /dev/zero | tr '\\0' x\n", tools.Options{MaxOutput: 100})
	out, err := callTool(t, box, "loud", `{"args": []}`)
	must(t, err)
	if s := field(out, "stdout").(string); len(s) != 100 {
		t.Errorf("stdout of %d bytes, want the 100 of the cap", len(s))
	}
	if field(out, "truncated") == nil {
		t.Errorf("the result does not say its output was cut: %v", out)
	}
}

// A program that outlasts its timeout is stopped, and the call fails
// saying why (the model reads it as the tool's error).
func TestCLITimeout(t *testing.T) {
	box := cliBox(t, "slow", "exec sleep 60\n", tools.Options{Timeout: 50 * time.Millisecond})
	_, err := callTool(t, box, "slow", `{"args": []}`)
	if err == nil || !strings.Contains(err.Error(), "stopped at its timeout of 50ms") {
		t.Fatalf("err %v, want the timeout named", err)
	}
}

// The arguments are an argument vector, never a shell string: a word
// with spaces and shell syntax arrives as one argument, and stdin as
// given; anything else is refused.
func TestCLIArgv(t *testing.T) {
	box := cliBox(t, "show", "for a in \"$@\"; do echo \"[$a]\"; done; cat\n", tools.Options{})
	out, err := callTool(t, box, "show", `{"args": ["a b", "$(id)", ";", "*"], "stdin": "in"}`)
	must(t, err)
	if got := field(out, "stdout"); got != "[a b]\n[$(id)]\n[;]\n[*]\nin" {
		t.Errorf("stdout %q", got)
	}
	for _, bad := range []string{`"ls -l"`, `{"args": "ls -l"}`, `{"args": [1]}`, `{"args": [], "stdin": 3}`} {
		if _, err := callTool(t, box, "show", bad); err == nil {
			t.Errorf("arguments %s were accepted", bad)
		}
	}
}

// A secret the run knows never reaches the model through a tool's output.
func TestCLIOutputIsRedacted(t *testing.T) {
	const secret = "tok-0123456789abcdef"
	t.Setenv("DEPLOY_TOKEN", secret)
	box := cliBox(t, "leak", "echo \"token=$DEPLOY_TOKEN\"; echo \"$DEPLOY_TOKEN\" >&2\n",
		tools.Options{Redact: redact.ForEnv(nil).String})
	out, err := callTool(t, box, "leak", `{"args": []}`)
	must(t, err)
	if s := field(out, "stdout").(string) + field(out, "stderr").(string); strings.Contains(s, secret) || !strings.Contains(s, redact.Mark) {
		t.Errorf("output %q", s)
	}
}

// Declarations keep their positions; (none) declares nothing.
func TestDeclaredPositions(t *testing.T) {
	src := "---\nname: n\nkind: function\n---\n\n# N\n\n### Tools\n\n- `cli:jq`: JSON\n  - `cli:gh`\n* mcp:mail: mail\n- (none)\n"
	sp, _, err := spec.Read(strings.NewReader(src), "n.prose.md")
	must(t, err)
	var got []string
	for _, d := range tools.Declared(sp) {
		got = append(got, d.Position().String()+" "+d.Kind+":"+d.Name+" "+d.Desc)
	}
	want := []string{"n.prose.md:10:4 cli:jq JSON", "n.prose.md:11:6 cli:gh ", "n.prose.md:12:3 mcp:mail mail"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("declarations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["1"], "env": {"K": "v"}}, "b": {"url": "http://127.0.0.1/mcp"}}}`))
	f.Add([]byte(`{"mcpServers": {"a": {}}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := tools.ParseConfig(data, "x.json")
		if err == nil {
			for _, n := range c.Names() {
				s := c.Servers[n]
				if (s.Command == "") == (s.URL == "") {
					t.Fatalf("server %q accepted with neither or both of command and url", n)
				}
			}
		}
	})
}

func FuzzDeclared(f *testing.F) {
	f.Add("- `cli:jq`: JSON\n- gh\n- `http:x`\n")
	f.Add("* `mcp:`\n-  `cli:a/b\n")
	f.Fuzz(func(t *testing.T, body string) {
		src := "---\nname: n\nkind: function\n---\n\n# N\n\n### Tools\n\n" + body
		sp, _, err := spec.Read(strings.NewReader(src), "n.prose.md")
		if err != nil || sp == nil {
			return
		}
		for _, d := range tools.Declared(sp) {
			if d.Pos < 0 || int(d.Pos) > len(src) || !strings.HasPrefix(src[d.Pos:], d.Text) {
				t.Fatalf("declaration %q at %d does not start there", d.Text, d.Pos)
			}
			d.Problem()
		}
	})
}

// A responsibility's tools apply to its inline nodes, in addition to
// their own; a declaration both make is offered once.
func TestResponsibilityToolsApplyToItsNodes(t *testing.T) {
	src := "---\nname: r\nkind: responsibility\n---\n\n# R\n\n### Goal\n\nKeep it.\n\n### Maintains\n\n- `x`: a value\n\n### Tools\n\n- `cli:jq`: JSON\n- `cli:gh`: GitHub\n\n## helper\n\n### Returns\n\n- `y`: a value\n\n### Tools\n\n- `cli:gh`: GitHub again\n- `cli:sed`: edits\n"
	sp, _, err := spec.Read(strings.NewReader(src), "r.prose.md")
	must(t, err)
	if len(sp.Nodes) != 1 {
		t.Fatalf("%d inline nodes", len(sp.Nodes))
	}
	var got []string
	for _, d := range tools.ForRender(sp.Nodes[0]) {
		got = append(got, d.Text+"@"+strings.TrimPrefix(d.Position().String(), "r.prose.md:"))
	}
	if want := "cli:gh@29:4 cli:sed@30:4 cli:jq@18:4"; strings.Join(got, " ") != want {
		t.Errorf("helper is offered %v, want %s", got, want)
	}
	if n := len(tools.ForRender(sp)); n != 2 {
		t.Errorf("the responsibility itself is offered %d tools, want its own 2", n)
	}
}
