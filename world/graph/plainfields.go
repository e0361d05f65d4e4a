package graph

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/proselang/prose/diag"
	types "github.com/proselang/prose/shape"
)

// CodePlainField is a ### Maintains bullet written as a field without
// backticks (`- total (integer): the sum`): it declares nothing.
const CodePlainField = "graph/plain-field"

// CodeFieldType is a ### Maintains item whose parenthetical is no type
// prose reads (`- `band` (string, one of low/mid/high): ...`): the
// item declares no field.
const CodeFieldType = "graph/field-type"

// Plain fields (decided: a warning; a backticked name with a
// parenthetical no type, an error, as a misspelt type is). A ### Maintains field is a
// backticked name (- `total` (integer): the sum); a bullet that
// starts with a lower-case name and a separator, the way a field is
// written but with the name plain or bold (`- total: the sum`, `-
// **total** (integer): ...`), declares no field, so nothing checks that
// a truth gives it, nor of what type; with no field declared at all a
// truth of any members is published. The bullets the Maintains reads
// otherwise (postcondition, freshness, material, immaterial, each)
// and a name it declares already are not reported.
func (g *Graph) plainFields() diag.List {
	var out diag.List
	for _, n := range g.Nodes {
		for _, sec := range n.Spec.Sections {
			if !strings.EqualFold(strings.TrimSpace(sec.Heading), "maintains") {
				continue
			}
			off := int(sec.BodyPos)
			fenced := false
			facet := "" // the `####` facet the line is under
			for _, raw := range strings.SplitAfter(sec.Body, "\n") {
				line := strings.TrimRight(raw, "\r\n")
				if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
					fenced = !fenced
				} else if !fenced && strings.HasPrefix(t, "####") && !strings.HasPrefix(t, "#####") {
					facet = strings.Trim(strings.TrimSpace(strings.TrimLeft(t, "#")), "`")
				}
				if m := unreadField().FindStringSubmatchIndex(line); !fenced && m != nil && facet != "" {
					// Under a facet a list describes the facet (spec,
					// facets.go): a typed item there is no field, whatever
					// its type, and saying its type is unread would send
					// the author to fix what is right.
					name := line[m[2]:m[3]]
					if !n.hasPart(name) && !maintainsWord[strings.ToLower(name)] {
						out.Errorf(n.Spec.File, diag.Pos(off+m[2]), CodeFieldType,
							"### Maintains of %s declares no field %q: it is written under the facet #### %s, where a list describes the facet, so nothing checks that a truth gives it, nor its type; to have it checked, declare it as a field of the truth, above the first ####",
							n.Label(), name, facet)
					}
				} else if m != nil && !fenced {
					name, paren := line[m[2]:m[3]], line[m[4]:m[5]]
					if !n.hasPart(name) && !maintainsWord[strings.ToLower(name)] {
						fix := "write the type alone, (string), (integer, optional) or (string, default: x), and the rest after the colon"
						if strings.Contains(strings.ToLower(paren), "immaterial") {
							fix = fmt.Sprintf("to keep it out of the fingerprint, say so after the colon (- `%s`: ... (immaterial)), with a type alone in the parentheses if any", name)
						} else if words := bareWordSet(paren); words != "" {
							fix = fmt.Sprintf("a set of words is written quoted, %s", words)
						}
						out.Errorf(n.Spec.File, diag.Pos(off+m[4]), CodeFieldType,
							"### Maintains of %s declares no field %q: %s is no type prose reads, so the item is passed over and nothing checks the field; %s",
							n.Label(), name, paren, fix)
					}
				}
				if m := plainField().FindStringSubmatchIndex(line); !fenced && m != nil {
					from, to := m[2], m[3] // a bold name
					if from < 0 {
						from, to = m[4], m[5]
					}
					name := line[from:to]
					if !maintainsWord[strings.ToLower(name)] && !n.hasPart(name) {
						out.Warnf(n.Spec.File, diag.Pos(off+from), CodePlainField,
							"### Maintains of %s writes %q as a field without backticks, so it declares no field: nothing checks that a truth gives it, nor its type; write it in backticks (- `%s` ...)",
							n.Label(), name, name)
					}
				}
				off += len(raw)
			}
		}
	}
	return out
}

// maintainsWord are the words a ### Maintains bullet may start with
// that are no field.
var maintainsWord = map[string]bool{
	"postcondition": true, "postconditions": true, "freshness": true, "material": true,
	"immaterial": true, "each": true, "note": true, "notes": true,
}

// unreadField is a bullet `- `name` (...)`: a backticked name with a
// parenthetical after it, group 1 the name, group 2 the parenthetical.
var unreadField = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^[-*] +`([A-Za-z][\\w-]*)` *(\\([^)]*\\))")
})

// plainField is a bullet `- name (type)?: ...` or `- **name** ...`
// with a separator (`:`, an em or en dash, ` - `): group 1 a bold name,
// group 2 a plain one.
var plainField = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-*] +(?:\*\*([a-z][\w-]*)\*\*|([a-z][a-z0-9]*(?:[_-][a-z0-9]+)*))(?: *\([^)]*\))? *(?::|—|–| - )`)
})

// bareWordSet is the quoted form of a parenthetical that lists words
// apart by | without quotes ("(low | mid | high)" gives `("low" | "mid"
// | "high")`), or "" when it is not one.
func bareWordSet(paren string) string {
	inner := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(paren), "("), ")")
	parts := strings.Split(inner, "|")
	if len(parts) < 2 {
		return ""
	}
	quoted := make([]string, 0, len(parts))
	for _, w := range parts {
		w = strings.TrimSpace(w)
		if !ident(w) || types.Known(w) {
			return ""
		}
		quoted = append(quoted, `"`+w+`"`)
	}
	return "(" + strings.Join(quoted, " | ") + ")"
}
