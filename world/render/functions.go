package render

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/receipt"
)

// Functions in a model render.
//
// A node rendered by a model is offered, as tools, the functions its
// ### Execution or its contract names: a name written `call NAME` or in
// backticks that resolves as a call made in the node would to a sibling
// file whose kind is function. Each tool is the
// function's name, its description (Summary, else Description) and a
// JSON schema of its Parameters. A tool call runs the function through
// the run core, as a call in an Execution runs it: bound by --slot
// NODE.FN=BINDING when one is given (NODE.FN.SLOT binds a slot of it),
// else its own Execution, else a model render of its contract. Its
// value (JSON) is the tool's result; a call that fails is given to the
// model as {"error": ...}, except one that cannot run as configured (a
// usage error or an invalid spec), which fails the render. The calls'
// programs, model requests and tokens are counted in the render's cost.
// A render makes at most MaxTurns model requests (llm.DefaultMaxTurns
// when 0); a model still calling functions at the bound fails it.
//
// An inline `##` function of the node's file, or a std/ spec, is not
// offered: only a function in a file of its own is run this way.

// function is a function a model render may call.
type function struct {
	name string     // as the node names it
	spec *spec.Spec // its contract
	path string     // its file
}

var (
	callName     = regexp.MustCompile(`\bcall\s+` + "`?" + `([A-Za-z0-9_][A-Za-z0-9_./-]*[A-Za-z0-9_])`)
	backtickName = regexp.MustCompile("`([A-Za-z0-9_][A-Za-z0-9_./-]*[A-Za-z0-9_])`")
)

// namedFunctions lists the functions sp's Execution or contract names,
// in the order first named.
func namedFunctions(sp *spec.Spec, d *Drain) []function {
	var texts []string
	if sp.Execution != nil {
		texts = append(texts, sp.Execution.Code)
	}
	for _, s := range sp.Sections {
		texts = append(texts, s.Body)
	}
	seen := map[string]bool{sp.Name: true}
	var out []function
	for _, text := range texts {
		for _, re := range []*regexp.Regexp{callName, backtickName} {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				name := m[1]
				if seen[name] {
					continue
				}
				seen[name] = true
				if fn, ok := resolveFunction(sp, name, d); ok {
					out = append(out, fn)
				}
			}
		}
	}
	return out
}

// resolveFunction resolves name as a call made in sp, keeping it when it
// is a function in a file of its own.
func resolveFunction(sp *spec.Spec, name string, d *Drain) (function, bool) {
	c := sp.ResolveCall(name, nil, d.finder())
	if c == nil || c.Kind != spec.CalleeSibling {
		return function{}, false
	}
	fn, _, err := d.load(c.Path)
	if err != nil || fn.Kind != spec.KindFunction {
		return function{}, false
	}
	return function{name: name, spec: fn, path: c.Path}, true
}

// tool is fn as a tool offered to the model.
func (fn function) tool() llm.Tool {
	desc := strings.TrimSpace(fn.spec.Summary)
	if desc == "" {
		desc = strings.TrimSpace(fn.spec.Description)
	}
	if desc == "" {
		desc = strings.TrimSpace(fn.spec.Title)
	}
	props := map[string]any{}
	required := []string{}
	for _, in := range fn.spec.Inputs {
		p := map[string]any{}
		if in.Description != "" {
			p["description"] = in.Description
		}
		if t := simpleType(in.Type); t != "" {
			p["type"] = t
		}
		props[in.Name] = p
		if !in.Optional && !in.HasDefault {
			required = append(required, in.Name)
		}
	}
	sort.Strings(required)
	params, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
	return llm.Tool{Name: fn.name, Description: desc, Parameters: params}
}

// simpleType is the JSON schema type of a declared type, "" when it is
// not one word JSON Schema knows.
func simpleType(t string) string {
	switch t = strings.ToLower(strings.TrimSpace(t)); t {
	case "string", "number", "integer", "boolean", "object", "array":
		return t
	case "int":
		return "integer"
	case "bool":
		return "boolean"
	}
	if strings.HasSuffix(t, "[]") {
		return "array"
	}
	return ""
}

// callFunction runs fn with the arguments the model wrote (JSON text),
// bound by m.Slots (the node's NODE.FN bindings, FN.* without the node),
// and returns the text the model reads and what the call cost. Only an
// error the model cannot act on (a stopped context, a binding or spec
// that cannot run) is returned as an error.
func (m *Model) callFunction(ctx context.Context, fn function, args string) (string, receipt.Cost, error) {
	var cost receipt.Cost
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	if msg := fn.checkArgs(args); msg != "" {
		return errorJSON(msg), cost, nil
	}
	root := fn.spec.Name
	if root == "" {
		root = fn.name
	}
	var bound []bind.Assignment
	for _, a := range m.Slots {
		switch {
		case a.Name == fn.name:
			bound = append(bound, bind.Assignment{Name: root, Value: a.Value})
		case strings.HasPrefix(a.Name, fn.name+"."):
			bound = append(bound, bind.Assignment{Name: strings.TrimPrefix(a.Name, fn.name+"."), Value: a.Value})
		}
	}
	// A function no binding serves and with no runnable Execution is
	// rendered by the model that renders the node.
	model, baseURL := "", ""
	if rendered := fn.spec.Body() == nil && !bindsRoot(bound, root); rendered {
		model, baseURL = m.Model, m.BaseURL
		if model == "" && m.Client != nil {
			model = m.Client.Model()
		}
	}
	rq := m.Drain.request(fn.path, m.Dir)
	rq.Bindings, rq.Model, rq.BaseURL = bind.Settings{Slots: bound, InputJSON: args}, model, baseURL
	// Loaded from the drain's graph; no journal: the model render that
	// calls it keeps none either.
	var o run.Options
	if m.Drain != nil {
		o.Specs, o.Getenv, o.Telemetry = m.Drain.Specs, m.Drain.Getenv, m.Drain.Telemetry
	}
	o.ContractCheck = lint.Contract
	res, err := run.Local{}.Run(ctx, rq, o)
	if res != nil {
		// A call the run made of a model (a render, an llm slot) is a
		// model request, not a program.
		t := res.Totals
		cost = receipt.Cost{Programs: t.Calls, Requests: t.ModelJudgments, TokensIn: int(t.TokensIn), TokensOut: int(t.TokensOut)}
		if u := res.ModelUsage; u != nil {
			cost.Requests = int(u.ModelCalls)
			cost.Programs = max(t.Calls-int(u.ModelCalls-u.JudgeCalls), 0)
		}
	}
	if err != nil {
		switch run.CodeOf(err) {
		case run.CodeUsage, run.CodeInvalidSpec, run.CodeCanceled:
			return "", cost, fmt.Errorf("function %s: %v", fn.name, err)
		}
		if ctx.Err() != nil {
			return "", cost, ctx.Err()
		}
		return errorJSON(err.Error()), cost, nil
	}
	raw, err := delegation.ToJSON(res.Value)
	if err != nil {
		return "", cost, fmt.Errorf("function %s: %v", fn.name, err)
	}
	return string(raw), cost, nil
}

// bindsRoot reports whether bound binds the function root itself.
func bindsRoot(bound []bind.Assignment, root string) bool {
	for _, a := range bound {
		if a.Name == root {
			return true
		}
	}
	return false
}

// checkArgs says what is wrong with the arguments a model wrote for fn
// ("" when nothing is): they are a JSON object naming its parameters, each
// one without a default given.
func (fn function) checkArgs(args string) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		return fmt.Sprintf("the arguments of %s are not a JSON object: %v", fn.name, err)
	}
	known := map[string]bool{}
	var names []string
	for _, in := range fn.spec.Inputs {
		known[in.Name] = true
		names = append(names, in.Name)
	}
	for _, in := range fn.spec.Inputs {
		if _, ok := m[in.Name]; !ok && !in.Optional && !in.HasDefault {
			return fmt.Sprintf("%s needs the argument %s (its parameters: %s)", fn.name, in.Name, strings.Join(names, ", "))
		}
	}
	for k := range m {
		if !known[k] {
			return fmt.Sprintf("%s has no parameter %s (its parameters: %s)", fn.name, k, strings.Join(names, ", "))
		}
	}
	return ""
}

// addCost adds c's counts to cost.
func addCost(cost *receipt.Cost, c receipt.Cost) {
	cost.Requests += c.Requests
	cost.Programs += c.Programs
	cost.TokensIn += c.TokensIn
	cost.TokensOut += c.TokensOut
}

// errorJSON is {"error": msg}, what the model reads of a call that failed.
func errorJSON(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}
