package callgraph

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

// RenderInfo is the contract of node n as the render prompt states it.
func RenderInfo(n *spec.Spec, name, model string) llm.RenderInfo {
	info := llm.RenderInfo{Name: name, Kind: string(n.Kind), Pos: n.File.Position(n.Pos).String(), Model: model,
		Description: strings.TrimSpace(n.Description), Goal: n.Goal, Strategies: n.Strategies,
		Invariants: n.Invariants, Continuity: n.Continuity}
	if info.Description == "" {
		info.Description = n.Summary
	}
	for _, in := range n.Inputs {
		info.Parameters = append(info.Parameters, llm.Field{Name: in.Name, Description: in.Description, Type: in.Type})
	}
	for _, o := range n.Outputs {
		info.Returns = append(info.Returns, llm.Field{Name: o.Name, Description: o.Description, Type: o.ValueType()})
	}
	if len(info.Returns) == 0 {
		// Returns or Maintains written as prose, or absent: the render
		// answers {"result": VALUE}, the shape a program's plain value
		// takes too (Outputs).
		desc := "the result"
		if body := ensuresBody(n); body != "" {
			desc = body
		}
		info.Returns = []llm.Field{{Name: "result", Description: desc}}
	}
	info.Needs = n.Needs
	info.Environment = renderEnvironment(n)
	for _, e := range n.Errors {
		info.Errors = append(info.Errors, llm.Field{Name: e.Name, Description: e.Description})
	}
	if sh := n.Shape; sh != nil {
		var b strings.Builder
		if sh.Self != "" {
			fmt.Fprintf(&b, "self: %s\n", sh.Self)
		}
		for _, d := range sh.Delegates {
			fmt.Fprintf(&b, "delegates %s: %s\n", d.Name, d.Role)
		}
		if sh.Prohibited != "" {
			fmt.Fprintf(&b, "prohibited: %s\n", sh.Prohibited)
		}
		info.Shape = b.String()
	}
	if len(n.Outputs) > 0 {
		info.Maintains = maintainsText(n)
		info.ReturnsText = returnsText(n)
	}
	if n.Execution != nil && n.Execution.Program == nil {
		info.Guidance = n.Execution.Prose
	}
	return info
}

// RenderWith is an Env.Render hook over clients: client returns the
// client of a model ("" for the configured one), or nil when none is
// configured.
func RenderWith(client func(model string) (*llm.Client, error)) func(*bind.Render) (service.Service, error) {
	return func(b *bind.Render) (service.Service, error) {
		c, err := client(b.Model)
		if err != nil {
			return nil, err
		}
		if c == nil {
			return nil, bind.ErrNoModel
		}
		return llm.NewRenderService(c, RenderInfo(b.Node, b.Name, b.Model)), nil
	}
}

// maintainsText is the body of n's ### Maintains when it holds more than
// list items (prose, postconditions, #### facets), else "": the items
// alone are already the outputs of the prompt. A top-level item that
// only declares an output (`- `brief`: the brief`, with nothing indented
// under it) is left out of it too: the prompt lists it under the outputs,
// and a second copy is tokens the model is paid for.
func maintainsText(n *spec.Spec) string {
	outputs := map[string]bool{}
	for _, o := range n.Outputs {
		outputs[o.Name] = true
	}
	for _, sec := range n.Sections {
		if sec.Key != "ensures" || !strings.EqualFold(strings.TrimSpace(sec.Heading), "maintains") {
			continue
		}
		lines := strings.Split(sec.Body, "\n")
		more := false
		for _, line := range lines {
			t := strings.TrimSpace(line)
			if t != "" && !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") && line[0] != ' ' && line[0] != '\t' {
				more = true
				break
			}
		}
		if !more {
			return ""
		}
		var kept []string
		facets := false // under a #### facet, an item says where its field belongs: kept
		for i, line := range lines {
			facets = facets || strings.HasPrefix(line, "#")
			if name, ok := declarationItem(line); ok && !facets && outputs[name] && !indentedAfter(lines, i) {
				continue
			}
			kept = append(kept, line)
		}
		return strings.TrimSpace(collapseBlankLines(strings.Join(kept, "\n")))
	}
	return ""
}

// declarationItem is the name a top-level list item declares
// (`- `name`: ...` or `- name: ...`), and whether the line is one.
func declarationItem(line string) (string, bool) {
	if !strings.HasPrefix(line, "- ") && !strings.HasPrefix(line, "* ") {
		return "", false
	}
	rest := line[2:]
	name, _, ok := strings.Cut(rest, ":")
	if !ok {
		return "", false
	}
	name = strings.TrimSpace(name)
	if strings.HasPrefix(name, "`") && strings.HasSuffix(name, "`") && len(name) > 2 {
		name = name[1 : len(name)-1]
	}
	if name == "" || strings.ContainsAny(name, " `") {
		return "", false
	}
	return name, true
}

// indentedAfter reports whether lines[i] is followed by an indented
// line before the next line at its level (an item's nested text).
func indentedAfter(lines []string, i int) bool {
	for _, l := range lines[i+1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		return l[0] == ' ' || l[0] == '\t'
	}
	return false
}

// collapseBlankLines turns runs of blank lines into one.
func collapseBlankLines(s string) string {
	var b strings.Builder
	blank := false
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

// returnsText is the body of n's ### Returns when it holds more than its
// outputs: a postcondition, an `each ... has:` item or a conditional
// clause (`- if research is unavailable: a partial report`), which the
// outputs alone would not tell the model; else "".
func returnsText(n *spec.Spec) string {
	for _, sec := range n.Sections {
		if sec.Key != "ensures" || !strings.EqualFold(strings.TrimSpace(sec.Heading), "returns") {
			continue
		}
		if n.Truth != nil && (len(n.Truth.Postconditions) > 0 || len(n.Truth.Each) > 0) {
			return strings.TrimSpace(sec.Body)
		}
		for _, line := range strings.Split(sec.Body, "\n") {
			t := strings.ToLower(strings.TrimLeft(line, "-* "))
			if (strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ")) && (strings.HasPrefix(t, "if ") || strings.HasPrefix(t, "when ") || strings.HasPrefix(t, "unless ")) {
				return strings.TrimSpace(sec.Body)
			}
		}
	}
	return ""
}

// ensuresBody is the text of n's Returns (or Maintains) section, "" when
// it has none.
func ensuresBody(n *spec.Spec) string {
	for _, sec := range n.Sections {
		if sec.Key == "ensures" {
			return strings.Join(strings.Fields(sec.Body), " ")
		}
	}
	return ""
}

// renderEnvironment is what a render's prompt says of the variables of
// n's ### Environment (decided): the docs call them variables the host
// supplies to the node. The prompt names each one, with its description,
// as set by the host (the run refuses to start when one is unset, see
// callGraph.render), and never states its value: such values are
// credentials and capabilities (a webhook URL, a token), and a model's
// prompt goes to a server and into traces. A value the model must read
// is an input; a program bound to the node (--slot NAME=exec:...) gets
// the variables themselves, in its environment.
func renderEnvironment(n *spec.Spec) []llm.Field {
	desc := map[string]string{}
	for _, sec := range n.Sections {
		if sec.Key != "environment" {
			continue
		}
		for _, line := range strings.Split(sec.Body, "\n") {
			item, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
			if !ok {
				continue
			}
			name, text, _ := strings.Cut(item, ":")
			desc[strings.Trim(strings.TrimSpace(name), "`")] = strings.TrimSpace(text)
		}
	}
	var out []llm.Field
	for _, name := range n.Environment {
		d := "set by the host (its value is not shown)"
		if t := desc[name]; t != "" {
			d = t + "; " + d
		}
		out = append(out, llm.Field{Name: name, Description: d})
	}
	return out
}
