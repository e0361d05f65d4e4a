package callgraph

// Loading the specs of a run: LoadSpec reads one named by a path,
// LoadChecked checks it as a run needs it (a *SpecError when it cannot
// run).

import (
	"fmt"
	"os"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/std"
)

// SpecError is an invalid spec: its error-level diagnostics (exit 2).
type SpecError struct {
	Diags diag.List
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("%s: the spec has errors and cannot run:\n%s", e.Diags[0].File, e.Diags.String())
}

// LoadChecked loads the spec at path with load (nil: LoadSpec), unless
// sp is the spec already loaded, and runs the checker on its program:
// error-level findings make a *SpecError, a path that cannot be read a
// *bind.UsageError. The other findings are returned.
func LoadChecked(path string, sp *spec.Spec, load func(string) (*spec.Spec, diag.List, error)) (*spec.Spec, diag.List, error) {
	var diags diag.List
	if sp == nil {
		if load == nil {
			load = LoadSpec
		}
		var err error
		sp, diags, err = load(path)
		if err != nil {
			return nil, nil, bind.Usagef("%v", err)
		}
	}
	if sp.Delegation == nil || sp.Delegation.Program == nil {
		// A file the loader refused (too large, empty, no front matter)
		// has no Delegation because of that error: no echo of it.
		if !diags.HasErrors() {
			diags.Errorf(sp.File, 0, "run/no-delegation", "the spec has no Delegation block with a ```prose code block: nothing to run")
		}
	} else {
		diags = append(diags, spec.CheckProgram(sp, diags)...)
	}
	diags = diags.Dedupe()
	if diags.HasErrors() {
		return nil, nil, &SpecError{Diags: diags.Errors()}
	}
	return sp, diags, nil
}

// LoadSpec is how a spec named by a path is loaded: by prose run and
// prose show, and for a slot bound to a spec. A file on disk wins (read by
// spec.Load, with its size cap and directory check); a std/... path that
// is not on disk is read from the embedded library (std.Open). The error
// is for a path that cannot be read; problems in the file are
// diagnostics.
func LoadSpec(path string) (*spec.Spec, diag.List, error) {
	if _, err := os.Stat(path); err != nil && std.IsStd(path) {
		src, name, err := std.Open(path)
		if err != nil {
			return nil, nil, err
		}
		sp, diags := spec.Parse(name, src)
		return sp, diags, nil
	}
	return spec.Load(path)
}
