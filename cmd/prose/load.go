package main

import (
	"os"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/std"
)

// loadSpec is the one place the commands load a spec named on the command
// line. A file on disk wins; a std/... path that is not on disk is read
// from the embedded library (see package std). The error is for a path
// that cannot be read; problems in the file are diagnostics.
func loadSpec(path string) (*spec.Spec, diag.List, error) {
	if _, err := os.Stat(path); err != nil && std.IsStd(path) {
		src, name, err := std.Open(path)
		if err != nil {
			return nil, nil, err
		}
		s, diags := spec.Parse(name, src)
		return s, diags, nil
	}
	return spec.Load(path)
}
