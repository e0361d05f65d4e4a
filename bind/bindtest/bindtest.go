// Package bindtest writes the settings of a run compactly, for tests: one
// text per setting, "slot:NAME=VALUE", "config:KEY=VALUE",
// "input:NAME=VALUE" or "json:{...}".
package bindtest

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/bind"
)

// Parse turns setting texts into Settings, in the order given.
func Parse(texts []string) (bind.Settings, error) {
	var b bind.Settings
	for _, f := range texts {
		kind, rest, _ := strings.Cut(f, ":")
		name, value, _ := strings.Cut(rest, "=")
		a := bind.Assignment{Name: name, Value: value}
		switch kind {
		case "slot":
			b.Slots = append(b.Slots, a)
		case "config":
			b.Config = append(b.Config, a)
		case "input":
			b.Inputs = append(b.Inputs, a)
		case "json":
			b.InputJSON = rest
		default:
			return b, fmt.Errorf("bad setting %q: want slot, config, input or json before the colon", f)
		}
	}
	return b, nil
}

// Must is Parse for fixed test tables: a bad text is a mistake in the
// test itself, and panics.
func Must(texts ...string) *bind.Settings {
	b, err := Parse(texts)
	if err != nil {
		panic(err)
	}
	return &b
}
