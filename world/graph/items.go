package graph

import (
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// requiresItems reads the items of s's ### Requires from its Markdown:
// each top-level bullet (with its continuation lines) and each `####`
// facet-need heading (with the paragraph under it). Prose-only items are
// kept too: their name is their first backticked name.
func requiresItems(s *spec.Spec) []*Item {
	var sec *spec.Section
	for _, x := range s.Sections {
		if x.Key == "requires" {
			sec = x
			break
		}
	}
	if sec == nil {
		return nil
	}
	var out []*Item
	var cur *Item
	off := int(sec.BodyPos)
	lines := strings.SplitAfter(sec.Body, "\n")
	for _, raw := range lines {
		line := strings.TrimRight(raw, "\r\n")
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* "):
			cur = &Item{Text: strings.TrimSpace(line[2:]), Pos: diag.Pos(off + 2 + leading(line[2:]))}
			out = append(out, cur)
		case strings.HasPrefix(trim, "####") && !strings.HasPrefix(trim, "#####"):
			name := strings.Trim(strings.TrimSpace(strings.TrimLeft(trim, "#")), "`")
			cur = &Item{Name: name, Pos: diag.Pos(off + strings.Index(line, name))}
			out = append(out, cur)
		case trim == "":
			if cur != nil && cur.Name != "" && cur.Text == "" {
				break // a facet-need heading, its paragraph comes next
			}
			cur = nil
		case cur != nil && (line[0] == ' ' || line[0] == '\t' || cur.Text == "" && cur.Name != ""):
			if cur.Nested == 0 && cur.Text != "" && (strings.HasPrefix(trim, "- ") || strings.HasPrefix(trim, "* ")) {
				cur.Nested = diag.Pos(off + strings.Index(line, trim))
			}
			cur.Text = strings.TrimSpace(cur.Text + " " + trim)
		default:
			cur = nil
		}
		off += len(raw)
	}
	for _, it := range out {
		if it.Name == "" {
			it.Name = itemName(it.Text)
		}
		low := strings.ToLower(it.Text)
		it.Prior = strings.HasPrefix(low, "prior ") || strings.HasPrefix(low, "the prior ") || strings.HasPrefix(low, "its own prior")
	}
	return out
}

func leading(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

// itemName is the name of an item's text: `name`: ..., `name` — ...,
// name: ..., or the first backticked name of a sentence.
func itemName(text string) string {
	if strings.HasPrefix(text, "`") {
		if end := strings.IndexByte(text[1:], '`'); end > 0 {
			return text[1 : 1+end]
		}
	}
	if i := strings.IndexByte(text, ':'); i > 0 && ident(text[:i]) {
		return text[:i]
	}
	if refs := backticked(text); len(refs) > 0 {
		return refs[0]
	}
	return ""
}

// ident reports whether s is a name: letters, digits, _ and -, starting
// with a letter.
func ident(s string) bool {
	if s == "" || !letter(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !letter(c) && !('0' <= c && c <= '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func letter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// backticked returns the texts written in backticks in s.
func backticked(s string) []string {
	var out []string
	parts := strings.Split(s, "`")
	for i := 1; i < len(parts)-1; i += 2 {
		if p := strings.TrimSpace(parts[i]); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// families reads the facet families of s's ### Maintains: its `####`
// headings written `stem:<key>` (one facet per key; the loader keeps
// only facets of one name).
func families(s *spec.Spec) []string {
	var out []string
	for _, sec := range s.Sections {
		if !strings.EqualFold(strings.TrimSpace(sec.Heading), "maintains") {
			continue
		}
		for _, line := range strings.Split(sec.Body, "\n") {
			t := strings.TrimSpace(line)
			if !strings.HasPrefix(t, "####") || strings.HasPrefix(t, "#####") {
				continue
			}
			name := strings.Trim(strings.TrimSpace(strings.TrimLeft(t, "#")), "`")
			if _, ok := Family(name); ok && ident(strings.TrimSuffix(name[:strings.IndexByte(name, '<')], ":")) && !contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}
