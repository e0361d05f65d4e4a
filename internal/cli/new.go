package cli

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/world/graph"
)

// newOptions are the flags and argument of `prose new`.
type newOptions struct {
	kind    string
	subject string
	force   bool
}

// specName is what a spec's name may be: lower-case words joined by
// hyphens, as the library's names are (the file is NAME.prose.md).
var specName = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

const newLong = `new writes a minimal spec to start from: NAME.prose.md in the current
directory, or DIR/NAME.prose.md for new DIR/NAME. NAME is lower-case words
joined by hyphens; the spec's name is the file's name.

Kinds:
  pattern    (the default) one slot, worker, called with the task brief;
             its answer is the result. It lints clean and runs:
               prose run NAME.prose.md --slot worker=exec:CMD --input task_brief=...
  function   Contract Markdown: ### Parameters (text), ### Returns
             (result), and an ### Execution block that calls one inline
             node, ## drafter, and returns its answer. It lints clean and
             runs offline, a program standing in for the drafter:
               prose run NAME.prose.md --input text=TEXT --slot 'drafter=exec:echo a first draft'
             With a model configured, leave out --slot: the drafter is
             rendered by the model from its contract.
  test       a test of the function above: subject (--subject, default
             NAME without a leading "test-" or a trailing "-test"),
             ### Fixtures (text, and the drafter bound to a program),
             ### Expects and ### Expects Not, claims decided without a
             model. Against the function
             new writes it lints clean and passes offline:
               prose test test-NAME.prose.md

An existing file is not overwritten unless --force is given.

Exit status: 0 written, 2 bad usage or the file exists.`

func newNewCmd(s streams) *cobra.Command {
	o := &newOptions{}
	cmd := &cobra.Command{
		Use:   "new NAME [--kind pattern|function|responsibility|test]",
		Short: "Write a minimal spec to start from",
		Long:  newLong,
		Example: `  prose new review
  prose run review.prose.md --slot worker=exec:./review.sh --input task_brief="check the draft"

  prose new summarize --kind function
  prose run summarize.prose.md --input text="a long text" --slot 'drafter=exec:echo a first draft'
  prose new test-summarize --kind test
  prose test test-summarize.prose.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 && slices.Contains([]string{"pattern", "function", "responsibility", "test"}, args[0]) {
				// `prose new function summarize`: the kind is a flag
				return usageErrorf("new takes one NAME and the kind as a flag: prose new %s --kind %s", args[1], args[0])
			}
			if len(args) != 1 {
				return usageErrorf("new takes one NAME (e.g. prose new review), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNew(s, o, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.kind, "kind", "pattern", "what to write: `pattern`, function, responsibility or test")
	fl.StringVar(&o.subject, "subject", "", "the function a test runs (default: NAME without a leading \"test-\" or a trailing \"-test\")")
	fl.BoolVar(&o.force, "force", false, "overwrite an existing file")
	return cmd
}

func runNew(s streams, o *newOptions, arg string) error {
	dir, name := filepath.Split(strings.TrimSuffix(arg, ".prose.md"))
	if !specName.MatchString(name) {
		return usageErrorf("new: %q is not a spec name: use lower-case words joined by hyphens, e.g. code-review", name)
	}
	text, err := newSpecText(o, name)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, name+".prose.md")
	if dir != "" {
		// prose new sub/dir/x makes the folders it names.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usageErrorf("new: %v", err)
		}
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if o.force {
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return usageErrorf("new: %s exists; pick another name, or pass --force to overwrite it", path)
	}
	if err != nil {
		return usageErrorf("new: %v", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return &exitError{Code: exitFailure, Err: fmt.Errorf("new: %v", err)}
	}
	if err := f.Close(); err != nil {
		return &exitError{Code: exitFailure, Err: fmt.Errorf("new: %v", err)}
	}
	fmt.Fprintf(s.out, "%s\n", path)
	fmt.Fprintf(s.err, "prose: wrote %s; check it with: prose lint %s\n", path, path)
	switch o.kind {
	case "pattern":
		fmt.Fprintf(s.err, "prose: run it with: prose run %s --slot worker=exec:CMD --input task_brief=TEXT\n", path)
	case "function":
		fmt.Fprintf(s.err, "prose: run it with: prose run %s --input text=TEXT --slot 'drafter=exec:echo a first draft' (or a model: no --slot)\n", path)
	case "responsibility":
		fmt.Fprintf(s.err, "prose: run it with: prose run %s --input source=TEXT --slot '%s=exec:CMD' (or a model: no --slot)\n", path, name)
	case "test":
		fmt.Fprintf(s.err, "prose: run it with: prose test %s\n", path)
	}
	return nil
}

// newSpecText is the text of a new spec of o.kind named name.
func newSpecText(o *newOptions, name string) (string, error) {
	title := titleOf(name)
	switch o.kind {
	case "pattern":
		return fmt.Sprintf(patternTemplate, name, title), nil
	case "function":
		return fmt.Sprintf(functionTemplate, name, title), nil
	case "responsibility":
		// A responsibility's id is its identity (its name is for
		// display): a new one gets its own, as prose fix --ids writes.
		id, err := graph.NewID(time.Now(), rand.Reader)
		if err != nil {
			return "", &exitError{Code: exitFailure, Err: fmt.Errorf("new: %v", err)}
		}
		return fmt.Sprintf(responsibilityTemplate, name, title, id), nil
	case "test":
		subject := o.subject
		if subject == "" {
			// test-summarize and summarize-test test summarize (never
			// the test itself).
			subject = strings.TrimSuffix(strings.TrimPrefix(name, "test-"), "-test")
		}
		return fmt.Sprintf(testTemplate, name, subject, title), nil
	}
	return "", usageErrorf("new: --kind %q: want pattern, function, responsibility or test", o.kind)
}

// titleOf turns code-review into "Code review".
func titleOf(name string) string {
	t := strings.ReplaceAll(name, "-", " ")
	return strings.ToUpper(t[:1]) + t[1:]
}

const fence = "```"

var patternTemplate = `---
name: %[1]s
kind: pattern
version: 0.1.0
---

# %[2]s

One worker does the task; its answer is the result.

### Description

Say here who the roles are and how work passes between them. As written,
the pattern has one slot, the worker, which gets the task brief and
whose answer is returned.

### Slots

- ` + "`worker`" + ` (primary)
  - requires: task_brief
  - ensures: the finished work

### Config

None: add keys as bullets, e.g. ` + "`max_rounds`" + ` (integer, default: 3): how many tries.

### Invariants

- The worker is called exactly once
- Its answer is returned unchanged

### Shape

- ` + "`self`" + `: hand the brief to the worker and return its answer
- ` + "`delegates`" + `:
  - ` + "`worker`" + `: do the task
- ` + "`prohibited`" + `: editing the worker's answer

### Requires

- Pattern instance receives:
    task_brief: string     -- what the worker is asked to do

### Ensures

- result: the worker's answer

### Delegation

The brief goes to the worker once.

` + fence + `prose
let result = call worker
  task_brief: task_brief

return {
  result: result
}
` + fence + `
`

var functionTemplate = `---
name: %[1]s
kind: function
version: 0.1.0
---

# %[2]s

Say in a sentence what the function gives back for what it is given.

### Parameters

- ` + "`text`" + `: what the function works on

### Returns

- ` + "`result`" + `: what it gives back

### Execution

The drafter, a node of this file (below), writes the answer, and the
function returns it; add calls and steps as the work needs. Run it
offline with a program standing in for the drafter (the program reads the
call's arguments as JSON on stdin and prints the answer):
prose run %[1]s.prose.md --input text=TEXT --slot 'drafter=exec:echo a first draft'.
With a model configured, leave out --slot: the drafter is rendered by the
model from its Parameters and Returns.

` + fence + `prose
let draft = call drafter
  text: text
return {
  result: draft
}
` + fence + `

## drafter

Writes the answer for the text it is given.

### Parameters

- ` + "`text`" + `: what to work on

### Returns

- ` + "`draft`" + `: the answer
`

var responsibilityTemplate = `---
name: %[1]s
kind: responsibility
id: %[3]s
version: 0.1.0
---

# %[2]s

Say in a sentence what truth this responsibility keeps, and from what.

### Requires

- ` + "`source`" + `: what the truth is kept from

### Maintains

- ` + "`summary`" + `: the truth, kept up to date with source
`

var testTemplate = `---
name: %[1]s
kind: test
subject: %[2]s
version: 0.1.0
---

# %[3]s

Runs %[2]s on a fixed input, a program standing in for its drafter, and
states what its answer must and must not be. Run it with prose test; the
claims below are decided without a model. Bind the drafter to llm (or
leave it out, with a model configured) to test the model's answer, and
state what that answer must say.

### Fixtures

- ` + "`text`" + `: Prose runs specs written in Markdown.
- ` + "`drafter`" + `: exec:echo a first draft

### Expects

- ` + "`result`" + `: contains "draft"

### Expects Not

- ` + "`result`" + `: is empty
`
