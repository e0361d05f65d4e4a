package std_test

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation/syntax"
	"github.com/proselang/prose/internal/testenv"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/std"
)

// The library's own promises (FORMAT.md): lint-clean, every name the
// Delegation uses declared and every declaration used, one canonical
// layout, and no text taken from the upstream corpus.

var wantPatterns = []string{
	"assumption-miner", "blind-review", "coherence-probe", "contrastive-probe", "dialectic",
	"ensemble-synthesizer", "fallback-chain", "fan-out", "guard", "map-reduce", "oversight",
	"pipeline", "proposer-adversary", "race", "ratchet", "refine", "retry-with-learning",
	"stochastic-probe", "worker-critic",
}

// loadAll loads every embedded pattern.
func loadAll(t *testing.T) map[string]*spec.Spec {
	t.Helper()
	paths, ok := std.Walk("std/patterns")
	if !ok {
		t.Fatal("std is not in the embedded library")
	}
	out := map[string]*spec.Spec{}
	for _, p := range paths {
		sp, diags, err := spec.LoadFS(std.FS(), p)
		if err != nil {
			t.Fatal(err)
		}
		if diags.HasErrors() {
			t.Errorf("%s:\n%s", p, diags)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".prose.md")] = sp
	}
	return out
}

func TestLibraryHasEveryPattern(t *testing.T) {
	all := loadAll(t)
	var names []string
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	if !slices.Equal(names, wantPatterns) {
		t.Errorf("patterns %v\nwant %v", names, wantPatterns)
	}
}

func TestLibraryLintsClean(t *testing.T) {
	res, err := lint.Paths([]string{"std"}, lint.Options{Resolve: std.Resolve})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != len(wantPatterns)+len(wantRoles) {
		t.Errorf("linted %d files, want %d patterns and %d roles", res.Files, len(wantPatterns), len(wantRoles))
	}
	if len(res.Diags) > 0 {
		t.Errorf("prose lint std/ reports:\n%s", res.Diags)
	}
}

var canonicalSections = []string{"Description", "Slots", "Config", "Invariants", "Shape", "Requires", "Ensures", "Delegation", "Notes"}

func TestLibraryCanonicalLayout(t *testing.T) {
	for name, sp := range loadAll(t) {
		if sp.Name != name || sp.Kind != "pattern" || sp.Version == "" {
			t.Errorf("%s: front matter name %q kind %q version %q", name, sp.Name, sp.Kind, sp.Version)
		}
		if sp.Title == "" || sp.Summary == "" {
			t.Errorf("%s: no title or summary", name)
		}
		var got []string
		for _, s := range sp.Sections {
			got = append(got, s.Heading)
		}
		if !slices.Equal(got, canonicalSections) {
			t.Errorf("%s: sections %v, want %v", name, got, canonicalSections)
		}
		if len(sp.Invariants) == 0 || sp.Shape == nil || sp.Delegation == nil || sp.Delegation.Info != "prose" {
			t.Errorf("%s: missing invariants, shape or a ```prose delegation", name)
		}
		for _, sl := range sp.Slots {
			if sl.Requires == "" || sl.Ensures == "" {
				t.Errorf("%s: slot %s needs requires and ensures", name, sl.Name)
			}
		}
	}
}

// TestLibraryDeclaresWhatItUses is `prose show` against the Delegation:
// every slot, config key, input and output the code uses is declared, and
// every declaration is used.
func TestLibraryDeclaresWhatItUses(t *testing.T) {
	for name, sp := range loadAll(t) {
		t.Run(name, func(t *testing.T) {
			u := usesOf(sp.Delegation.Program)
			declared := map[string]string{}
			for _, s := range sp.Slots {
				declared[s.Name] = "slot"
			}
			for _, c := range sp.Config {
				declared[c.Name] = "config"
			}
			inputs := map[string]*spec.Input{}
			for _, in := range sp.Inputs {
				inputs[in.Name] = in
				if declared[in.Name] == "" {
					declared[in.Name] = "input"
				}
			}
			for _, n := range u.free {
				if declared[n] == "" {
					t.Errorf("uses %q, which is not declared", n)
				}
			}
			for n, kind := range declared {
				if !slices.Contains(u.free, n) {
					t.Errorf("declares %s %q but never uses it", kind, n)
				}
				if inputs[n] == nil {
					t.Errorf("%s %q is missing from the inputs block", kind, n)
				}
			}
			for _, c := range sp.Config {
				in := inputs[c.Name]
				if in == nil {
					continue
				}
				if in.Type != c.Type {
					t.Errorf("config %q is %s, but %s in the inputs block", c.Name, c.Type, in.Type)
				}
				// A required input line marks a config key with no default as
				// required; an optional one must repeat Config's default.
				if !in.Optional && c.HasDefault || in.HasDefault && js(in.Default) != js(c.Default) {
					t.Errorf("config %q: the inputs block says optional=%v default %s, Config says default %s", c.Name, in.Optional, js(in.Default), js(c.Default))
				}
			}
			var outs []string
			for _, o := range sp.Outputs {
				if o.Inferred {
					t.Errorf("output %q is not declared under Ensures", o.Name)
				}
				outs = append(outs, o.Name)
			}
			for i, keys := range u.returns {
				if !slices.Equal(keys, outs) {
					t.Errorf("return %d has keys %v, want the declared outputs %v", i+1, keys, outs)
				}
			}
			for _, s := range sp.Slots {
				args := strings.Split(s.Requires, ", ")
				if got := u.args[s.Name]; !sameSet(got, args) {
					t.Errorf("slot %q requires %v but is called with %v", s.Name, args, got)
				}
			}
		})
	}
}

// uses is what a Delegation refers to.
type uses struct {
	free    []string            // names read before (or without) being bound locally
	returns [][]string          // keys of each top-level return object
	args    map[string][]string // argument keys passed to each slot
}

func usesOf(prog *syntax.Program) *uses {
	u := &uses{args: map[string][]string{}}
	local := map[string]bool{}
	alias := map[string]string{} // loop variable -> list slot it ranges over
	bind := func(id *syntax.Ident) {
		if id != nil {
			local[id.Name] = true
		}
	}
	read := func(name string) {
		if !local[name] && !slices.Contains(u.free, name) {
			u.free = append(u.free, name)
		}
	}
	syntax.Walk(prog, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.LetStmt:
			syntax.Walk(n.Value, func(m syntax.Node) bool { return visitExpr(m, read, bind, alias, u) })
			bind(n.Name)
			return false
		case *syntax.AssignStmt:
			syntax.Walk(n.Value, func(m syntax.Node) bool { return visitExpr(m, read, bind, alias, u) })
			if id, ok := n.LHS.(*syntax.Ident); ok {
				read(id.Name)
			}
			return false
		case *syntax.TryStmt:
			bind(n.CatchVar)
		case *syntax.ReturnStmt:
			if obj, ok := n.Value.(*syntax.ObjectLit); ok && topLevel(prog, n) {
				var keys []string
				for _, f := range obj.Fields {
					keys = append(keys, f.Key)
				}
				u.returns = append(u.returns, keys)
			}
		}
		return visitExpr(n, read, bind, alias, u)
	})
	return u
}

// visitExpr handles the expression nodes of usesOf's walk.
func visitExpr(n syntax.Node, read func(string), bind func(*syntax.Ident), alias map[string]string, u *uses) bool {
	switch n := n.(type) {
	case *syntax.Ident:
		read(n.Name)
	case *syntax.ForExpr:
		if id, ok := n.X.(*syntax.Ident); ok {
			read(id.Name)
			alias[n.Var.Name] = id.Name
		} else {
			syntax.Walk(n.X, func(m syntax.Node) bool { return visitExpr(m, read, bind, alias, u) })
		}
		bind(n.Var)
		bind(n.Index)
		for _, st := range n.Body {
			syntax.Walk(st, func(m syntax.Node) bool { return visitStmt(m, read, bind, alias, u) })
		}
		return false
	case *syntax.RepeatExpr:
		bind(n.Var)
	case *syntax.CallExpr:
		if id, ok := n.Target.(*syntax.Ident); ok {
			slot := id.Name
			if s, ok := alias[slot]; ok {
				slot = s
			}
			for _, f := range n.Args {
				if !slices.Contains(u.args[slot], f.Key) {
					u.args[slot] = append(u.args[slot], f.Key)
				}
			}
		}
	case *syntax.NaturalCond:
		// Only the criterion and subject of a `says` condition, or the
		// leading subject of a verdict condition, are names; the rest is
		// English.
		root := func(p string) string { return strings.Split(p, ".")[0] }
		switch {
		case n.Says != nil:
			read(root(n.Says.Criterion))
			read(root(n.Says.Subject))
		case len(n.Words) > 0:
			read(root(n.Words[0].Path))
		}
	}
	return true
}

// visitStmt is the statement half of usesOf's walk, for loop bodies.
func visitStmt(n syntax.Node, read func(string), bind func(*syntax.Ident), alias map[string]string, u *uses) bool {
	switch n := n.(type) {
	case *syntax.LetStmt:
		syntax.Walk(n.Value, func(m syntax.Node) bool { return visitExpr(m, read, bind, alias, u) })
		bind(n.Name)
		return false
	case *syntax.TryStmt:
		bind(n.CatchVar)
	}
	return visitExpr(n, read, bind, alias, u)
}

// topLevel reports whether r is a statement of the program's body (not
// inside a loop body, where return ends an iteration).
func topLevel(prog *syntax.Program, r *syntax.ReturnStmt) bool {
	inLoop := false
	syntax.Walk(prog, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ForExpr, *syntax.RepeatExpr:
			syntax.Walk(n, func(m syntax.Node) bool {
				if m == syntax.Node(r) {
					inLoop = true
				}
				return !inLoop
			})
			return false
		}
		return true
	})
	return !inLoop
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	sort.Strings(x)
	sort.Strings(y)
	return slices.Equal(x, y)
}

// TestLibraryOwnWords checks that no line of 40 characters or more (prose
// or code, trimmed) repeats a line of the upstream corpus.
func TestLibraryOwnWords(t *testing.T) {
	dir := testenv.Corpus(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	corpus := map[string]bool{}
	for _, e := range entries {
		for _, l := range longLines(t, filepath.Join(dir, e.Name())) {
			corpus[l] = true
		}
	}
	paths, _ := std.Walk("std")
	paths = append(paths, "std/patterns/README.md", "std/FORMAT.md")
	for _, p := range paths {
		data, err := std.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); len(l) >= 40 && corpus[l] {
				t.Errorf("%s repeats a corpus line: %q", p, l)
			}
		}
	}
}

func longLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); len(l) >= 40 {
			out = append(out, l)
		}
	}
	return out
}

// TestEmbeddedMatchesDisk guards against a stale build: the compiled
// library is the one in the source tree.
func TestEmbeddedMatchesDisk(t *testing.T) {
	paths, _ := std.Walk("std")
	for _, p := range paths {
		disk, err := os.ReadFile(strings.TrimPrefix(p, "std/"))
		if err != nil {
			t.Fatal(err)
		}
		emb, _ := std.ReadFile(p)
		if string(disk) != string(emb) {
			t.Errorf("%s: embedded copy differs from the file", p)
		}
	}
}

// TestLibraryNamesMatchFiles: the loader lets a spec's name differ from its
// file's stem (a user's copy of a pattern under another name), but the
// library's own files keep them equal, so a std/ path and a call by name
// find the same spec.
func TestLibraryNamesMatchFiles(t *testing.T) {
	for _, dir := range []string{"std/patterns", "std/roles"} {
		paths, ok := std.Walk(dir)
		if !ok || len(paths) == 0 {
			t.Fatalf("%s is not in the embedded library", dir)
		}
		for _, p := range paths {
			sp, _, err := spec.LoadFS(std.FS(), p)
			if err != nil {
				t.Fatal(err)
			}
			if stem := strings.TrimSuffix(filepath.Base(p), ".prose.md"); sp.Name != stem {
				t.Errorf("%s: name %q, want %q (the file's stem)", p, sp.Name, stem)
			}
		}
	}
}
