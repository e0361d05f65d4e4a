package lint

import (
	"encoding/json"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// instanceRefusals runs the checks a pattern makes of its own config (its
// `throw usage` statements, delegation/semantics.md 31a) with the config
// a ### Patterns instance gives it (and the pattern's defaults), so that
// a value the pattern would refuse at run time (worker-critic's
// max_rounds: 0, refine's threshold: 80) is lint/config-value at the
// instance's config line, before the run. What delegation.Refusal cannot
// know without a run (a check that reads an input) is left to the run.
func instanceRefusals(s *spec.Spec, p *spec.PatternInstance, ps *spec.Spec) diag.List {
	b := ps.Body()
	if b == nil || b.Program == nil || b != ps.Delegation {
		return nil
	}
	known := map[string]delegation.Value{}
	for _, c := range ps.Config {
		raw, given := p.Config[c.Name]
		if !given {
			if !c.HasDefault {
				continue
			}
			raw = c.Default
		}
		v, ok := spec.ConfigValue(c.Type, raw)
		if !ok {
			continue // lint/config-value already says so
		}
		if dv, ok := runValue(v); ok {
			known[c.Name] = dv
		}
	}
	e, st := delegation.Refusal(b.Program, known)
	if e == nil {
		return nil
	}
	// at the config line of a key the refusing statement reads, when the
	// instance sets one
	at := p.Pos
	for _, n := range delegation.ReadNames(st) {
		if pos, ok := p.ConfigPos[n]; ok {
			at = pos
			break
		}
	}
	var out diag.List
	out.Errorf(s.File, at, CodeConfigValue, "pattern instance %s: %s refuses this config at %s: %s", p.Name, ps.Name, e.Pos, e.Msg)
	return out
}

// runValue is the run-time value of a decoded config value.
func runValue(v any) (delegation.Value, bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	dv, err := delegation.FromJSON(raw)
	return dv, err == nil
}
