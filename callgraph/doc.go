// Package callgraph is the graph of specs a run reaches beyond its own
// and the services that run them: a slot bound to a spec file (a nested
// pattern, or a function or responsibility: NestedSpec), the callees of
// a Contract Markdown run (## nodes, sibling files, std/ specs, pattern
// instances, each resolved and bound once before anything starts) and
// the plan of such a run (PlanContract). It loads those specs (LoadSpec,
// LoadChecked) and builds the model renders of nodes (RenderWith).
package callgraph
