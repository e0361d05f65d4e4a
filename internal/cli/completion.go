package cli

import (
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/std"
	"github.com/proselang/prose/world/drain"
	"github.com/proselang/prose/world/graph"
)

// Shell completion. cobra's `prose completion SHELL` writes the script;
// the functions here give it values, not only flag names:
//
//   - spec files (*.md) for run, show and lint, and the paths of the
//     built-in library once the word starts like std/ (beside the local
//     files while the word is still a prefix of std/: "s" offers both);
//   - run ids (and latest) for resume, replay, runs show and runs rm,
//     read from --run-dir;
//   - for run: --slot, --config and --input complete the slot, config and
//     input names of the spec given on the command line (NAME=); --slot
//     also the callees of a function or responsibility (the names its
//     Execution and its nodes call, its inline nodes, its own render);
//     and a slot's binding kinds after the =; for a project directory,
//     its nodes by id and by name (NODE.CALLEE for --slot, NODE.INPUT
//     for --input), as --tick and graph --explain complete them;
//   - the fixed values of lint --format and new --kind.
//
// Completion never fails loudly: a spec that does not load or a run
// directory that does not exist completes nothing.

// addCompletions registers the value completions on the command tree.
func addCompletions(root *cobra.Command) {
	for _, c := range root.Commands() {
		switch c.Name() {
		case "run":
			c.ValidArgsFunction = completeSpecFile
			completeFlag(c, "slot", completeSpecNames("slot"))
			completeFlag(c, "config", completeSpecNames("config"))
			completeFlag(c, "input", completeSpecNames("input"))
			completeFlag(c, "tick", completeNodes)
		case "graph":
			completeFlag(c, "explain", completeNodes)
		case "show":
			c.ValidArgsFunction = completeSpecFile
		case "lint":
			c.ValidArgsFunction = completeSpecPaths
			completeFlag(c, "format", fixedValues("text", "json", "github", "sarif"))
		case "resume", "replay":
			c.ValidArgsFunction = completeRunIDs(true, true)
		case "new":
			completeFlag(c, "kind", fixedValues("pattern", "function", "responsibility", "test"))
		case "runs":
			for _, sub := range c.Commands() {
				switch sub.Name() {
				case "rm":
					sub.ValidArgsFunction = completeRunIDs(false, false)
				case "show":
					sub.ValidArgsFunction = completeRunIDs(true, true)
				}
			}
		}
	}
}

type completeFunc = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective)

func completeFlag(c *cobra.Command, name string, f completeFunc) {
	if c.Flags().Lookup(name) != nil {
		_ = c.RegisterFlagCompletionFunc(name, f)
	}
}

func fixedValues(vals ...string) completeFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return withPrefix(vals, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

func withPrefix(vals []string, prefix string) []string {
	var out []string
	for _, v := range vals {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// wantsStd reports whether a word being completed names the built-in
// library: it starts like "std/" and no local std directory shadows it.
func wantsStd(toComplete string) bool {
	if toComplete == "" || !(strings.HasPrefix(toComplete, "std/") || strings.HasPrefix("std/", toComplete)) {
		return false
	}
	_, err := os.Stat("std")
	return err != nil
}

// stdPaths are the built-in library's spec paths starting with prefix.
func stdPaths(prefix string) []string {
	paths, _ := std.Walk("std")
	sort.Strings(paths)
	return withPrefix(paths, prefix)
}

// completeSpecFile completes the one spec file of run and show.
func completeSpecFile(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return completeSpecPaths(cmd, args, toComplete)
}

// completeSpecPaths completes spec paths: the library's under std/, else
// Markdown files and directories.
func completeSpecPaths(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if wantsStd(toComplete) {
		out := stdPaths(toComplete)
		if !strings.HasPrefix(toComplete, "std/") {
			// "s": the library and the local files that start so
			out = append(out, localSpecPaths(toComplete)...)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	return []string{"md"}, cobra.ShellCompDirectiveFilterFileExt
}

// localSpecPaths are the Markdown files and directories of the current
// directory whose names start with prefix (a word without a slash).
func localSpecPaths(prefix string) []string {
	entries, _ := os.ReadDir(".")
	var out []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case !strings.HasPrefix(name, prefix) || strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, "."):
		case e.IsDir():
			out = append(out, name+"/")
		case strings.HasSuffix(name, ".md") && e.Type().IsRegular():
			out = append(out, name)
		}
	}
	return out
}

// completeRunIDs completes run ids under the command's --run-dir, newest
// first, with the spec and status as a description; latest adds the
// "latest" alias. one stops after the first argument.
func completeRunIDs(latest, one bool) completeFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if one && len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		dir := run.DefaultRunDir
		if f := cmd.Flag("run-dir"); f != nil && f.Value.String() != "" {
			dir = f.Value.String()
		}
		runs, _ := journal.List(dir)
		var out []string
		if latest && strings.HasPrefix(latestRun, toComplete) && len(runs) > 0 {
			out = append(out, latestRun+"\tthe newest run")
		}
		for _, r := range runs {
			if strings.HasPrefix(r.ID, toComplete) && !contains(args, r.ID) {
				out = append(out, r.ID+"\t"+r.Status+" "+shortPath(r.Spec))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// completeSpecNames completes NAME= for the slot, config or input names
// (kind) of the spec on the command line; after a slot's =, its binding
// kinds.
func completeSpecNames(kind string) completeFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if name, val, ok := strings.Cut(toComplete, "="); ok {
			if kind != "slot" {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return bindingValues(name, val), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		}
		var out []string
		for _, n := range specNames(args[0], kind) {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, n+"=")
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// worldNames lists, for a drain of the project in dir, what --slot
// (nodes and NODE.CALLEE), --input (NODE.INPUT) or --tick and --explain
// (nodes) name: each node by its id and by its name.
func worldNames(dir, kind string) []string {
	g, _, err := graph.Load(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range g.Nodes {
		names := []string{n.ID}
		if n.Name != "" && n.Name != n.ID {
			names = append(names, n.Name)
		}
		for _, name := range names {
			switch kind {
			case "slot":
				out = append(out, name)
				for _, c := range drain.Callees(n.Spec) {
					if c != n.Spec.Name {
						out = append(out, name+"."+c)
					}
				}
			case "input":
				for _, in := range n.CallerInputs {
					out = append(out, name+"."+in)
				}
			case "node":
				out = append(out, name)
			}
		}
	}
	return out
}

// completeNodes completes the node ids and names of the project given
// on the command line.
func completeNodes(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, n := range worldNames(args[0], "node") {
		if strings.HasPrefix(n, toComplete) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// bindingValues are the binding kinds a slot takes, as NAME=VALUE words.
func bindingValues(name, val string) []string {
	var vals []string
	if strings.HasPrefix(val, "std/") || (val != "" && strings.HasPrefix("std/", val)) {
		vals = stdPaths(val)
	}
	vals = append(vals, "exec:", "llm", "llm:")
	var out []string
	for _, v := range withPrefix(vals, val) {
		out = append(out, name+"="+v)
	}
	return out
}

// specNames lists the slot, config or input names of the spec at path
// (none when it does not load).
func specNames(path, kind string) []string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return worldNames(path, kind)
	}
	sp, _, err := callgraph.LoadSpec(path)
	if err != nil || sp == nil {
		return nil
	}
	var out []string
	switch kind {
	case "slot":
		for _, s := range sp.Slots {
			out = append(out, s.Name)
		}
		out = append(out, drain.Callees(sp)...)
	case "config":
		for _, c := range sp.Config {
			out = append(out, c.Name)
		}
	case "input":
		for _, in := range sp.Inputs {
			out = append(out, in.Name)
		}
	}
	return out
}
