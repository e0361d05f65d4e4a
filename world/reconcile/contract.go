// A node's contract fingerprint and its memo key: what a render reads
// of its spec, in canonical form, with its inputs' versions.

package reconcile

import (
	"bytes"
	"strings"

	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/graph"
)

// memoContract is Contract, computed once per node and binding for as
// long as the graph is kept.
func memoContract(n *graph.Node, binding string) (string, error) {
	v, err := n.Memo("reconcile.contract\x00"+binding, func() (any, error) { return Contract(n, binding) })
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

func memoKey(contract string, inputs map[string]string, events string) (string, error) {
	in := map[string]any{}
	for k, v := range inputs {
		in[k] = v
	}
	return canon.Fingerprint(map[string]any{"contract": contract, "inputs": in, "events": events}, nil)
}

// Contract is the fingerprint of n's contract: what, when it changes,
// makes n render again though no input moved (decided, as upstream's
// runtime): n's identity (id and kind), the sections ### Requires,
// ### Maintains, ### Continuity and ### Execution (heading and text),
// and the binding that renders n. The title, Goal, Notes, Receives,
// Schedule and every other section are for readers and prompts: editing
// them moves nothing. Within the sections that count, neither whitespace
// nor comments move the contract: HTML comments are dropped; in Markdown
// sections blank lines, trailing and repeated spaces and the wrapping of
// a paragraph or list item are not compared (a list item's indentation
// is); in ### Execution, whose indentation is its block structure, blank
// lines, trailing spaces and `#` comment lines are not compared.
func Contract(n *graph.Node, binding string) (string, error) {
	// The RFC 8785 form of {"id", "kind", "sections": [{"heading",
	// "body"}...], "binding"}, written directly (members in their
	// canonical order): canon.Fingerprint of that object, without
	// building it (TestContractIsTheCanonicalObject).
	var b bytes.Buffer
	b.WriteString(`{"binding":`)
	canon.WriteString(&b, binding)
	b.WriteString(`,"id":`)
	canon.WriteString(&b, n.ID)
	b.WriteString(`,"kind":`)
	canon.WriteString(&b, string(n.Kind))
	b.WriteString(`,"sections":[`)
	first := true
	for _, s := range n.Spec.Sections {
		if !ContractSection(s.Heading) {
			continue
		}
		body := markdownText(s.Body)
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(s.Heading)), "execution") {
			body = codeText(s.Body)
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(`{"body":`)
		canon.WriteString(&b, body)
		b.WriteString(`,"heading":`)
		canon.WriteString(&b, strings.Join(strings.Fields(s.Heading), " "))
		b.WriteByte('}')
	}
	b.WriteString("]}")
	return canon.Hash(b.Bytes()), nil
}

// ContractSection reports whether a section with this heading counts in
// a node's contract fingerprint ("Continuity: external-driven" counts as
// Continuity).
func ContractSection(heading string) bool {
	h := strings.ToLower(strings.TrimSpace(heading))
	for _, c := range contractSections {
		if h == c || strings.HasPrefix(h, c+":") || strings.HasPrefix(h, c+" ") {
			return true
		}
	}
	return false
}

// withoutComments is s with its HTML comments blanked.
func withoutComments(s string) string {
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i+4:], "-->")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + " " + s[i+4+j+3:]
	}
}

// markdownText is the compared form of a Markdown section: one line per
// block start (a list item, heading, fence, table row or quote, with its
// indentation) and per paragraph, their words joined by single spaces.
func markdownText(s string) string {
	var out []string
	cont := false // the last line can be continued
	for _, line := range strings.Split(withoutComments(s), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			cont = false
		case cont && !blockStart(t):
			out[len(out)-1] += " " + strings.Join(strings.Fields(t), " ")
		default:
			indent := len(line) - len(strings.TrimLeft(line, " \t"))
			out = append(out, strings.Repeat(" ", indent)+strings.Join(strings.Fields(t), " "))
			cont = !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "```")
		}
	}
	return strings.Join(out, "\n")
}

// blockStart reports whether a trimmed line starts a Markdown block.
func blockStart(t string) bool {
	for _, p := range []string{"- ", "* ", "+ ", "#", "```", "~~~", "|", ">"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	i := 0
	for i < len(t) && '0' <= t[i] && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

// codeText is the compared form of an Execution: its lines without
// trailing spaces, blank lines and `#` comment lines; indentation kept.
func codeText(s string) string {
	var out []string
	for _, line := range strings.Split(withoutComments(s), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
