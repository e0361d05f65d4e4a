package view

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"

	"github.com/proselang/prose/world/canon"
)

// Change is one field that differs between two JSON values.
type Change struct {
	// Path names the field: members by name joined with dots ("a.b"), a
	// name that is not an identifier quoted (["a b"]), list items by
	// index (items[2]); "" for the whole value.
	Path string `json:"path"`
	// Kind is "added", "removed" or "changed".
	Kind string `json:"kind"`
	// From and To are the canonical JSON of the field before and after
	// ("" when absent).
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// The kinds of Change.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Diff lists the fields that differ from a to b, depth first, members
// in sorted order: objects member by member, lists item by item (an item
// past the shorter list's end is added or removed), anything else by
// canonical JSON (so 1 and 1.0 are equal, as their fingerprints are).
func Diff(a, b any) []Change {
	out := []Change{}
	diffAt("", a, b, &out)
	return out
}

func diffAt(path string, a, b any, out *[]Change) {
	if am, ok := a.(map[string]any); ok {
		if bm, ok := b.(map[string]any); ok {
			keys := map[string]bool{}
			for k := range am {
				keys[k] = true
			}
			for k := range bm {
				keys[k] = true
			}
			sorted := make([]string, 0, len(keys))
			for k := range keys {
				sorted = append(sorted, k)
			}
			sort.Strings(sorted)
			for _, k := range sorted {
				av, inA := am[k]
				bv, inB := bm[k]
				p := member(path, k)
				switch {
				case !inA:
					*out = append(*out, Change{Path: p, Kind: Added, To: text(bv)})
				case !inB:
					*out = append(*out, Change{Path: p, Kind: Removed, From: text(av)})
				default:
					diffAt(p, av, bv, out)
				}
			}
			return
		}
	}
	if al, ok := a.([]any); ok {
		if bl, ok := b.([]any); ok {
			for i := 0; i < max(len(al), len(bl)); i++ {
				p := fmt.Sprintf("%s[%d]", path, i)
				switch {
				case i >= len(al):
					*out = append(*out, Change{Path: p, Kind: Added, To: text(bl[i])})
				case i >= len(bl):
					*out = append(*out, Change{Path: p, Kind: Removed, From: text(al[i])})
				default:
					diffAt(p, al[i], bl[i], out)
				}
			}
			return
		}
	}
	if ta, tb := text(a), text(b); ta != tb {
		*out = append(*out, Change{Path: path, Kind: Changed, From: ta, To: tb})
	}
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_:-]*$`)

// member is path's member k.
func member(path, k string) string {
	if !identifier.MatchString(k) {
		q, _ := json.Marshal(k)
		return path + "[" + string(q) + "]"
	}
	if path == "" {
		return k
	}
	return path + "." + k
}

// text is v's canonical JSON.
func text(v any) string {
	b, err := canon.Marshal(v)
	if err != nil {
		return fmt.Sprintf("(not JSON: %v)", err)
	}
	return string(b)
}
