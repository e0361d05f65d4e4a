package bind

import (
	"errors"
	"fmt"
	"strings"

	"github.com/proselang/prose/delegation"
)

// Inputs typed run or run[] (a contract's "- `subject`: run — ...") name
// earlier runs, by id or by the path of their run directory. The binder
// splits what was given into references and hands each to Env.Runs,
// which package run supplies (run.ResolveRunInput: what a reference
// resolves to, which runs may be bound, and the bound value are decided
// there). Decided here:
//
//   - run takes one reference: one --input NAME=REF, or a JSON string.
//   - run[] takes a list: --input NAME=A,B (comma-separated; blanks
//     around a comma are dropped, an empty element is an error),
//     --input 'NAME=["A","B"]' (a JSON array of strings), one --input per
//     run, or a JSON array of strings (or one comma-separated string) in
//     --input-json. An empty JSON array binds no runs.
//   - a value that is not a reference (a number, an object) is an error,
//     never passed on as it is.
//   - without Env.Runs (a run that reads no run directory) such an input
//     cannot be bound: an error, not the id as a plain string.
//
// The binder resolves the inputs of the run's own spec; a callee's
// (a ## node or sibling function called from an Execution) are resolved
// at each call from the id its caller passes (callgraph, runArgs), and
// a run the caller bound already is passed on as it is.

// CodeRunInput is the warning of a run-typed input bound to a run that
// failed or whose spec changed since it ran.
const CodeRunInput = "run/run-input"

// RunResolver resolves one reference to a run (an id, or the path of a
// run directory) to the value an input typed run binds; each warning is
// told with the run's warnings (the run failed, its spec changed since).
type RunResolver func(ref string) (v delegation.Value, warnings []string, err error)

// IsRunType reports whether a declared input type is run or run[].
func IsRunType(typ string) bool { return typ == "run" || typ == "run[]" }

// errNoRuns is RunInput's error when e.Runs is nil.
var errNoRuns = errors.New("an input typed run names a run of a run directory, and this run reads none (an engine that replays runs elsewhere cannot): give it to a local prose run")

// RunInput binds the value given for an input declared typ (run or
// run[]): texts are its --input texts when fromText, else v is the value
// (from --input-json or a default). It returns the bound value and the
// warnings of the runs bound.
func (e *Env) RunInput(typ string, v delegation.Value, texts []string, fromText bool) (delegation.Value, []string, error) {
	refs, err := runRefs(typ, v, texts, fromText)
	if err != nil {
		return nil, nil, err
	}
	if e == nil || e.Runs == nil {
		return nil, nil, errNoRuns
	}
	var warnings []string
	var out []delegation.Value
	for _, ref := range refs {
		rv, w, err := e.Runs(ref)
		if err != nil {
			return nil, nil, err
		}
		warnings = append(warnings, w...)
		out = append(out, rv)
	}
	if typ == "run" {
		return out[0], warnings, nil
	}
	return delegation.NewList(out...), warnings, nil
}

// runRefs are the references given for an input of type typ.
func runRefs(typ string, v delegation.Value, texts []string, fromText bool) ([]string, error) {
	list := typ == "run[]"
	if fromText {
		if !list {
			if len(texts) != 1 {
				return nil, fmt.Errorf("given %d times, but it takes one run (declare it run[] for several)", len(texts))
			}
			return oneRef(texts[0])
		}
		var refs []string
		for _, t := range texts {
			r, err := refList(t)
			if err != nil {
				return nil, err
			}
			refs = append(refs, r...)
		}
		return refs, nil
	}
	switch v := v.(type) {
	case string:
		if list {
			return refList(v)
		}
		return oneRef(v)
	case *delegation.List:
		if !list {
			break
		}
		var refs []string
		for i, e := range v.Elems() {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("element %d: want a run id (text), got %s", i, delegation.TypeName(e))
			}
			r, err := oneRef(s)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			refs = append(refs, r...)
		}
		return refs, nil
	}
	if list {
		return nil, fmt.Errorf("want run ids (a list of text, or one text of ids separated by commas), got %s", delegation.TypeName(v))
	}
	return nil, fmt.Errorf("want a run id (text), got %s", delegation.TypeName(v))
}

func oneRef(text string) ([]string, error) {
	r := strings.TrimSpace(text)
	if r == "" {
		return nil, errors.New("no run given: give a run id ('prose runs' lists the runs) or the path of a run directory")
	}
	return []string{r}, nil
}

// refList reads run[] text: a JSON array of strings, or ids separated by
// commas.
func refList(text string) ([]string, error) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "[") {
		v, err := delegation.FromJSON([]byte(t))
		if err != nil {
			return nil, fmt.Errorf("%q is not a JSON array of run ids: %v", t, err)
		}
		return runRefs("run[]", v, nil, false)
	}
	if t == "" {
		return nil, errors.New("no runs given: give run ids separated by commas ('prose runs' lists the runs), or [] for none")
	}
	var refs []string
	for i, r := range strings.Split(t, ",") {
		r = strings.TrimSpace(r)
		if r == "" {
			return nil, fmt.Errorf("%q: run %d of the list is empty: give run ids separated by single commas", t, i+1)
		}
		refs = append(refs, r)
	}
	return refs, nil
}
