package reconcile

import (
	"context"
	"fmt"
	"strings"

	"github.com/proselang/prose/claim"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/world/graph"
)

// Postconditions checks the postconditions of n's Maintains that the
// data decides: a claim written about a top-level member,
// "`field` CLAIM" (“- postcondition: `total` is at least 0“), decided
// by package claim's forms without a model. A claim no form decides is
// left to the render (and to a judge, where one is configured); one that
// is decided false fails the render.
func Postconditions(ctx context.Context, n *graph.Node, truth any) error {
	t := n.Spec.Truth
	if t == nil {
		return nil
	}
	m, _ := truth.(map[string]any)
	for _, c := range t.Postconditions {
		field, rest, ok := fieldClaim(c.Text)
		if !ok {
			continue
		}
		v, present := m[field]
		if !present {
			continue
		}
		val, err := delegation.FromGo(v)
		if err != nil {
			continue
		}
		r, decided := claim.Decide(ctx, claim.Question{Path: field, Claim: rest, Value: val})
		if decided && !r.Holds {
			pos := n.Spec.File.Position(c.Pos)
			detail := ""
			if r.Detail != "" {
				detail = " (" + r.Detail + ")"
			}
			return fmt.Errorf("%s: postcondition does not hold: `%s` %s%s", pos, field, rest, detail)
		}
	}
	return nil
}

// fieldClaim splits "`field` claim" into its parts.
func fieldClaim(text string) (field, rest string, ok bool) {
	if !strings.HasPrefix(text, "`") {
		return "", "", false
	}
	end := strings.IndexByte(text[1:], '`')
	if end <= 0 {
		return "", "", false
	}
	field, rest = text[1:1+end], strings.TrimSpace(text[2+end:])
	// Only a single claim: a sentence that goes on ("; ...", " iff ")
	// is the render's to police.
	if rest == "" || strings.ContainsAny(rest, ";") || strings.Contains(rest, " iff ") {
		return "", "", false
	}
	return field, strings.TrimSuffix(rest, "."), true
}
