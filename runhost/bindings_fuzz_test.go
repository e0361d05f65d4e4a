package runhost

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/std"
)

// typedFunction is a Contract Markdown function with typed, defaulted
// and list inputs, for the --input texts.
const typedFunction = "---\nname: typed\nkind: function\n---\n\n### Parameters\n\n- `item-count` (integer): how many\n- `rate` (number, default: 1.5): a rate\n- `tags` (string[], optional): labels\n- `rush` (boolean, optional): today\n- `note`: free text\n\n### Returns\n\n- `total` (integer): the sum\n\n### Execution\n\n```prose\nlet t = call pricer\n  n: item-count\nreturn t\n```\n\n## pricer\n\n### Parameters\n\n- `n`: how many\n\n### Returns\n\n- `total`: sum\n"

// FuzzBindingTexts: whatever --slot, --config, --input and --input-json
// say, binding a pattern (typed config, list slots) and a function (typed
// inputs, callees) never panics and never starts a service; a refusal is
// an error, never a crash.
func FuzzBindingTexts(f *testing.F) {
	f.Add("advancer=exec:./a.sh\ncertifier=llm:gpt", "max_steps=3", "task_brief=ship it", "")
	f.Add("pricer=exec:x\npricer.y=z", "", "item-count=10\nrate=2e3\ntags=[\"a\",1]\nrush=yes", `{"note": {"a": [1, null]}}`)
	f.Add("=\n.=.", "max_steps=1e400", "tags=a\ntags=b\nitem-count=-0", `[1,2]`)
	f.Add("advancer=std/patterns/ratchet.prose.md", "max_steps=", "item-count=9223372036854775808", `{"item-count": 1.5}`)
	data, file, err := std.Open("std/patterns/ratchet.prose.md")
	if err != nil {
		f.Fatal(err)
	}
	pattern, _ := spec.Parse(file, data)
	function, _ := spec.Parse("typed.prose.md", []byte(typedFunction))
	refuse := func(string) (service.Service, error) { return nil, errors.New("not in a fuzz test") }
	env := &bind.Env{
		LLM:    func(b *bind.Slot) (service.Service, error) { return stub(b.Name), nil },
		Nested: func(b *bind.Slot) (service.Service, error) { return refuse(b.Name) },
		Render: func(b *bind.Render) (service.Service, error) { return stub(b.Name), nil },
	}
	f.Fuzz(func(t *testing.T, slots, configs, inputs, inputJSON string) {
		var b bind.Settings
		var err error
		if b.Slots, err = bind.ParseAssignments("--slot", lines(slots)); err != nil {
			return
		}
		if b.Config, err = bind.ParseAssignments("--config", lines(configs)); err != nil {
			return
		}
		if b.Inputs, err = bind.ParseAssignments("--input", lines(inputs)); err != nil {
			return
		}
		b.InputJSON = inputJSON
		for _, sp := range []*spec.Spec{pattern, function} {
			_, _ = Prepare(RunOptions{Path: sp.File.Name, Spec: sp, Bindings: b, Env: env})
		}
	})
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func stub(name string) service.Service {
	return &service.Func{Name: name, Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
		panic("a service was called while binding")
	}}
}
