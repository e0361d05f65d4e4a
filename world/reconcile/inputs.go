package reconcile

import "github.com/proselang/prose/world/graph"

// InputFingerprints are the fingerprints a drain reads for edge e of g
// when its producer's published truth is truth (nil: it has published
// none), by the receipt input keys the drain records: EdgeKey(e), or for
// a facet family one key per family key; AbsentFingerprint when the part
// is absent. A reader compares them with a node's last non-failed
// receipt's Inputs to tell that an input moved since (the next drain
// renders the node) without draining.
func InputFingerprints(g *graph.Graph, e *graph.Edge, truth any) (map[string]string, error) {
	if !present(truth, e.Facet) {
		return map[string]string{EdgeKey(e): AbsentFingerprint}, nil
	}
	return partFingerprints(g, g.Node(e.Producer), truth, e)
}
