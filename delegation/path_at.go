package delegation

import "strconv"

// At is the path of a step at line of a run whose Scope is p, in the
// iterations iters (outermost first): what the evaluator gives a call of a
// nested run, for a service that runs steps of its own under one call (a
// model session's turns and tool calls, see llm's sessions). Each
// iteration must be 1 or more.
func (p Path) At(line int, iters ...int) Path {
	s := ""
	for _, n := range iters {
		s += "/" + strconv.Itoa(n)
	}
	return pathAt(p, line, s)
}
