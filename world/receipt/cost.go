package receipt

import "sort"

// CostRow sums the receipts of one node or one wake source.
type CostRow struct {
	Key       string `json:"key" jsonschema:"the node id, or the wake source"`
	Rendered  int    `json:"rendered"`
	Skipped   int    `json:"skipped"`
	Failed    int    `json:"failed"`
	Requests  int    `json:"requests"`
	TokensIn  int    `json:"tokens_in"`
	TokensOut int    `json:"tokens_out"`
	Programs  int    `json:"programs"`
}

// Costs sums rs by node and by wake source, each sorted by key: what
// prose receipts cost prints.
func Costs(rs []*Receipt) (byNode, byWake []CostRow) {
	return costBy(rs, func(r *Receipt) string { return r.Node }), costBy(rs, func(r *Receipt) string { return r.Wake.Source })
}

func costBy(rs []*Receipt, key func(*Receipt) string) []CostRow {
	m := map[string]*CostRow{}
	var keys []string
	for _, r := range rs {
		k := key(r)
		row := m[k]
		if row == nil {
			row = &CostRow{Key: k}
			m[k] = row
			keys = append(keys, k)
		}
		switch r.Status {
		case Rendered:
			row.Rendered++
		case Skipped:
			row.Skipped++
		default:
			row.Failed++
		}
		row.Requests += r.Cost.Requests
		row.TokensIn += r.Cost.TokensIn
		row.TokensOut += r.Cost.TokensOut
		row.Programs += r.Cost.Programs
	}
	sort.Strings(keys)
	out := []CostRow{}
	for _, k := range keys {
		out = append(out, *m[k])
	}
	return out
}
