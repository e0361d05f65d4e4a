package graph

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	types "github.com/proselang/prose/shape"
	"github.com/proselang/prose/spec"
)

// Events a gateway receives (decided). Upstream's ### Receives is prose
// ("A counter event: `{ id, kind, value, material? }`"); where it holds
// exactly one backticked object of keys, each a name, `name?` for one an
// event may leave out, or `name: type` (a type prose knows is checked:
// `value: number` refuses "5"; another is not), that
// is the shape of the gateway's events, and an event delivered to it
// (prose run --event, POST /trigger, a connector) is checked where it
// arrives: it must be a JSON object holding every key not marked
// optional, and a key it has that is no declared key but within a small
// edit distance of one (`valeu`) is refused too. Other keys pass: an
// event may carry more than its gateway reads. A refused event is never
// queued or delivered: the gateway would otherwise fold an event without
// the key it reads (a value lost to null) and publish with exit 0. An
// item that is an HTTP route (`- POST /inbox/deliver`) declares where
// `prose serve` takes the gateway's events (routes.go). A Receives that
// holds no such object but lists the event's keys as a Maintains lists
// fields (- `amount` (number): the amount, - `note` (string, optional):
// ...) declares the same shape: each item a key, optional where its
// parentheses say so, typed where they give a type prose knows; its
// other items (a route, a provider) declare nothing. Read otherwise the
// list would be passed over, and an event lacking a listed key
// delivered. Any other Receives (providers, several objects) declares
// nothing and nothing is checked.
type EventShape struct {
	// Keys are the keys in the order written; Optional those marked `?`.
	Keys     []string
	Optional map[string]bool
	// Types are the declared types of the keys that have one.
	Types map[string]string
	// Text is the object as written and Pos where it is.
	Text string
	Pos  diag.Position
	// KeyPos is where each key's item is, for keys listed as items (a
	// message about one key names its own line).
	KeyPos map[string]diag.Position
}

// eventShape reads the shape s's ### Receives declares, or nil.
func eventShape(s *spec.Spec) *EventShape {
	var out *EventShape
	for _, sec := range s.Sections {
		if !strings.EqualFold(strings.TrimSpace(sec.Heading), "receives") {
			continue
		}
		body := sec.Body
		for i := 0; ; {
			open := strings.IndexByte(body[i:], '`')
			if open < 0 {
				break
			}
			open += i
			end := strings.IndexByte(body[open+1:], '`')
			if end < 0 {
				break
			}
			end += open + 1
			i = end + 1
			text := strings.TrimSpace(body[open+1 : end])
			if !strings.HasPrefix(text, "{") || !strings.HasSuffix(text, "}") {
				continue
			}
			if out != nil {
				return nil // two objects: which is the event's is not said
			}
			sh := &EventShape{Optional: map[string]bool{}, Types: map[string]string{}, Text: text, Pos: s.File.Position(sec.BodyPos + diag.Pos(open+1))}
			for entry := range strings.SplitSeq(text[1:len(text)-1], ",") {
				name, typ, _ := strings.Cut(entry, ":")
				name, typ = strings.TrimSpace(name), strings.TrimSpace(typ)
				opt := strings.HasSuffix(name, "?")
				name = strings.TrimSuffix(name, "?")
				if !ident(strings.ReplaceAll(name, "-", "_")) || sh.Optional[name] || contains(sh.Keys, name) {
					return nil
				}
				sh.Keys = append(sh.Keys, name)
				if typ != "" && types.Known(typ) {
					sh.Types[name] = typ
				}
				if opt {
					sh.Optional[name] = true
				}
			}
			if len(sh.Keys) == 0 {
				return nil
			}
			out = sh
		}
		if out == nil {
			out = keyItems(s, sec)
		}
	}
	return out
}

// keyItem is a Receives item that names one key of the event: its name
// in backticks, then parentheses or a separator.
var keyItem = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^[ \t]*[-*+][ \t]+`([A-Za-z_][\\w-]*)`[ \t]*(?:\\(([^)]*)\\))?[ \t]*(?::|—|–|--|-)")
})

// keyItems reads the keys a Receives lists as items, or nil.
func keyItems(s *spec.Spec, sec *spec.Section) *EventShape {
	sh := &EventShape{Optional: map[string]bool{}, Types: map[string]string{}, Pos: s.File.Position(sec.BodyPos), KeyPos: map[string]diag.Position{}}
	var names []string
	off := 0
	for line := range strings.SplitSeq(sec.Body, "\n") {
		at := off
		off += len(line) + 1
		m := keyItem().FindStringSubmatch(line)
		if m == nil || contains(sh.Keys, m[1]) {
			continue
		}
		sh.KeyPos[m[1]] = s.File.Position(sec.BodyPos + diag.Pos(at+strings.IndexByte(line, '`')+1))
		if len(sh.Keys) == 0 { // where the keys start
			sh.Pos = sh.KeyPos[m[1]]
		}
		sh.Keys = append(sh.Keys, m[1])
		for i, part := range strings.Split(m[2], ",") {
			part = strings.TrimSpace(part)
			switch {
			case strings.EqualFold(part, "optional"):
				sh.Optional[m[1]] = true
			case i == 0 && part != "" && types.Known(part):
				sh.Types[m[1]] = part
			}
		}
		if sh.Optional[m[1]] {
			names = append(names, m[1]+"?")
		} else {
			names = append(names, m[1])
		}
	}
	if len(sh.Keys) == 0 {
		return nil
	}
	sh.Text = "{ " + strings.Join(names, ", ") + " }"
	return sh
}

// CheckEvent checks event v, delivered to gateway n, against the shape
// its ### Receives declares (nil when it declares none, or v fits).
func (n *Node) CheckEvent(v any) error {
	sh := n.Events
	if sh == nil {
		return nil
	}
	keys := fmt.Sprintf("%s (%s's ### Receives, %s)", sh.Text, n.Label(), sh.Pos)
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("the event is %s, not an object of %s: send a JSON object", KindName(v), keys)
	}
	var extra []string
	for k := range m {
		if !contains(sh.Keys, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	var missing []string
	for _, k := range sh.Keys {
		if _, ok := m[k]; !ok && !sh.Optional[k] {
			missing = append(missing, k)
		}
	}
	for _, k := range extra {
		if best := nearest(k, sh.Keys); best != "" {
			if p, ok := sh.KeyPos[best]; ok {
				keys = fmt.Sprintf("%s (%s's ### Receives, %s)", sh.Text, n.Label(), p)
			}
			return fmt.Errorf("the event has %q, which is no key of %s; did you mean %q?", k, keys, best)
		}
	}
	if len(missing) > 0 {
		if p, ok := sh.KeyPos[missing[0]]; ok {
			opt := "optional"
			if t := sh.Types[missing[0]]; t != "" {
				opt = t + ", optional"
			}
			return fmt.Errorf("the event lacks %s, of %s (%s's ### Receives, %s): give it, or mark it optional there (`%s` (%s))",
				quoteAll(missing), sh.Text, n.Label(), p, missing[0], opt)
		}
		return fmt.Errorf("the event lacks %s, of %s: give it, or mark it optional there (`%s?`)",
			quoteAll(missing), keys, missing[0])
	}
	for _, k := range sh.Keys {
		x, ok := m[k]
		typ := sh.Types[k]
		if !ok || typ == "" || x == nil && sh.Optional[k] {
			continue
		}
		if val, err := delegation.FromGo(x); err == nil && !types.Fits(typ, val) {
			if p, ok := sh.KeyPos[k]; ok {
				keys = fmt.Sprintf("%s (%s's ### Receives, %s)", sh.Text, n.Label(), p)
			}
			return fmt.Errorf("the event gives %s for %q, which %s declares %s: send %s", types.Show(val), k, keys, typ, types.Article(typ))
		}
	}
	return nil
}

// KindName says what kind of JSON value v is, for a message: "null",
// "a list", "a string", "a boolean" or "a number" (an object is not asked).
func KindName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}
