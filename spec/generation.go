package spec

import (
	"regexp"
	"strings"
	"sync"
)

// Which rules read a pattern (issue 18, item 31).
//
// A pattern whose front matter gives a version is read by the rules that
// version selects (isContract: 0.15 or later in the 0.x line is Contract
// Markdown; the project's own library numbers its patterns 1.x and keeps
// the earlier rules). A pattern without a version is read by the 0.15
// rules when the file itself is written in a form only 0.15 has, and by
// the earlier rules otherwise. Decided: the forms are
//
//   - a `### Returns`, `### Parameters` or `### Maintains` section (the
//     earlier generation writes `### Ensures` and `### Requires`);
//   - `config.NAME` in a ```prose block (the earlier generation reads a
//     config key by its bare name, and has no `config` object);
//   - a `### Config` item in the value form `` - `max_rounds`: 3 `` (the
//     earlier generation writes `` - `max_rounds` (integer, default: 3):
//     text ``).
//
// Each is a form the earlier rules cannot read (a section they ignore, a
// name they call undefined, a key without a type), so a file that has one
// was not written for them. A file with none reads the same either way for
// what both generations share, and keeps the earlier rules; where such a
// file reads `config.NAME` anyway (a version that selects the earlier
// rules), the checker's message says how to mark it.

var (
	contractHeading = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?im)^#{3}[ \t]+(returns|parameters|maintains)[ \t]*#*[ \t]*$`)
	})
	configMemberRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bconfig\.[A-Za-z_]`) })
	configValueItem = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^[-*+][ \t]+`[A-Za-z_][A-Za-z0-9_-]*`[ \t]*:") })
)

// contractForms reports whether the Markdown body (after the front
// matter) of an unversioned pattern is written in a form only Contract
// Markdown has (see above).
func contractForms(body string) bool {
	if contractHeading().MatchString(body) {
		return true
	}
	fence, inConfig := "", false
	for line := range strings.Lines(body) {
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.TrimLeft(t, fence[:1]) == "" {
				fence = ""
			} else if configMemberRe().MatchString(t) {
				return true
			}
			continue
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			info := strings.TrimSpace(strings.TrimLeft(t, t[:1]))
			if f := strings.Fields(info); len(f) > 0 && f[0] == "prose" {
				fence = t[:len(t)-len(strings.TrimLeft(t, t[:1]))]
			}
			continue
		case strings.HasPrefix(t, "#"):
			h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(t, "#")))
			inConfig = strings.HasPrefix(t, "### ") && h == "config"
			continue
		}
		if inConfig && line == strings.TrimLeft(line, " \t") && configValueItem().MatchString(t) {
			return true
		}
	}
	return false
}
