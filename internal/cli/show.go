package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/spec"
)

// showOptions are the flags and arguments of `prose show`.
type showOptions struct {
	path string
}

func newShowCmd(s streams) *cobra.Command {
	var o showOptions
	return &cobra.Command{
		Use:   "show FILE",
		Short: "Print a spec as typed JSON",
		Long: `show loads one spec (*.prose.md: a pattern, a function, a responsibility,
a gateway or a test) and prints what the loader read from it as indented
JSON: name, kind, version, title, summary, slots, config, inputs, outputs,
invariants, shape, delegation (its prose, its code and the .md line of the
first code line) and notes; for Contract Markdown also its goal,
execution, errors, pattern instances and inline nodes, the sentences of
Parameters or Requires that name no input (needs), and which inputs were
read from a sentence (from_sentence); for a responsibility its id and
the text of its Maintains (maintains_text); for a test its fixtures
(name, case, value, position) and its expectations (output, claim,
negated, position).

FILE - reads the spec from standard input (named <stdin>).

Diagnostics go to stderr as FILE:LINE:COL: SEVERITY: MESSAGE [CODE]: the
loader's and the static checks' (the findings of prose lint), so an error
that makes prose run refuse the spec, such as a call to an undeclared
slot, is reported here too. show prints what it could load even when the
spec has errors.

Exit status: 0 when the spec has no error-level diagnostic; 2 when it
has one (an invalid spec, which prose run refuses; its JSON is printed
all the same) or when FILE cannot be read (missing, a directory, no
permission).`,
		Example: `  # A pattern of the built-in library, then one of your own
  prose show std/patterns/ratchet.prose.md
  prose show specs/review.prose.md

  # A spec from a pipe
  cat review.prose.md | prose show -

  # Just the config keys and their defaults
  prose show std/patterns/ratchet.prose.md | jq '.config[] | {name, default}'`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.path = args[0]
			return runShow(cmd.Context(), s, o)
		},
	}
}

func runShow(ctx context.Context, s streams, o showOptions) error {
	sp, diags, err := loadShown(ctx, s, o.path)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &exitError{Code: exitUsage, Err: fmt.Errorf("show: %w", err)}
	}
	// The static checks too, as prose run applies them: a spec run would
	// refuse does not pass show.
	diags = lint.Loaded(sp, diags).Dedupe()
	fmt.Fprint(s.err, diags.String())
	b, err := sp.JSON()
	if err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("show: %w", err)}
	}
	if b, err = withShownExtras(b, sp); err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("show: %w", err)}
	}
	if _, err := s.out.Write(b); err != nil {
		return &exitError{Code: exitFailure, Err: err}
	}
	// An invalid spec is exit 2, as prose run refuses it (the README's exit
	// statuses); its JSON is printed all the same.
	if diags.HasErrors() {
		return &exitError{Code: exitUsage}
	}
	return nil
}

// loadShown loads the spec at path, or from stdin for "-"; a read that
// blocks (a named pipe nobody writes) is abandoned when ctx is done.
func loadShown(ctx context.Context, s streams, path string) (*spec.Spec, diag.List, error) {
	type loaded struct {
		sp    *spec.Spec
		diags diag.List
	}
	l, err := untilDone(ctx, func() (loaded, error) {
		var l loaded
		var err error
		if path == "-" {
			l.sp, l.diags, err = spec.Read(s.in, spec.StdinName)
		} else {
			l.sp, l.diags, err = callgraph.LoadSpec(path)
		}
		return l, err
	})
	return l.sp, l.diags, err
}

// shownFixture and shownExpect are a test's items as show prints them.
type shownFixture struct {
	Name  string `json:"name"`
	Case  string `json:"case,omitempty"`
	Value any    `json:"value"`
	Line  int    `json:"line"`
}

type shownExpect struct {
	Output  string `json:"output,omitempty"`
	Path    string `json:"path,omitempty"`
	Claim   string `json:"claim"`
	Negated bool   `json:"negated,omitempty"`
	Line    int    `json:"line"`
}

// withShownExtras adds to the spec's JSON (an indented object) what the
// loader reads but its JSON does not hold: a responsibility's id and
// Maintains text, a test's fixtures and expectations. The fields go at
// the end, so the JSON of other specs is unchanged.
func withShownExtras(b []byte, sp *spec.Spec) ([]byte, error) {
	type field struct {
		key string
		val any
	}
	var extra []field
	if id, ok := sp.Front["id"]; ok && id != nil {
		extra = append(extra, field{"id", fmt.Sprint(id)})
	}
	for _, sec := range sp.Sections {
		if strings.EqualFold(strings.TrimSpace(sec.Heading), "Maintains") {
			extra = append(extra, field{"maintains_text", strings.TrimSpace(sec.Body)})
			break
		}
	}
	if sp.Kind == spec.KindTest {
		tf, _ := spec.ReadTest(sp)
		if tf != nil {
			fixtures := []shownFixture{}
			for _, f := range tf.Fixtures {
				fixtures = append(fixtures, shownFixture{Name: f.Name, Case: f.Case, Value: f.Value, Line: sp.File.Position(f.Pos).Line})
			}
			expects := []shownExpect{}
			for _, e := range tf.Expects {
				x := shownExpect{Output: e.Output, Claim: e.Claim, Negated: e.Negated, Line: sp.File.Position(e.Pos).Line}
				if e.Path != e.Output {
					x.Path = e.Path
				}
				expects = append(expects, x)
			}
			extra = append(extra, field{"fixtures", fixtures}, field{"expects", expects})
		}
	}
	if len(extra) == 0 {
		return b, nil
	}
	end := bytes.LastIndexByte(b, '}')
	if end < 0 {
		return b, nil
	}
	head := bytes.TrimRight(b[:end], " \n")
	var out bytes.Buffer
	out.Write(head)
	for _, f := range extra {
		var v bytes.Buffer
		enc := json.NewEncoder(&v)
		enc.SetEscapeHTML(false)
		enc.SetIndent("  ", "  ")
		if err := enc.Encode(f.val); err != nil {
			return nil, err
		}
		k, _ := json.Marshal(f.key)
		fmt.Fprintf(&out, ",\n  %s: %s", k, bytes.TrimRight(v.Bytes(), "\n"))
	}
	out.WriteString("\n}\n")
	return out.Bytes(), nil
}
