package check

import "github.com/proselang/prose/delegation/syntax"

// CodeOpenLoop: an open loop (`loop (max: N):`, no condition) whose body
// has no break or return that ends it: it would always run N times.
const CodeOpenLoop = "check/open-loop"

// openLoop checks upstream's open loop. It has no condition, so only a
// break or a return in its body ends it before its max (decided: prose
// has no model deciding when an open loop is done); without one it is
// `repeat N:` written in a way that hides it, and is an error.
func (c *checker) openLoop(s *syntax.WhileStmt) {
	if s.Max == nil {
		c.diags.Errorf(c.f, s.Loop, CodeUnboundedLoop,
			"loop has no bound: add (max: N); it runs until a break or a return in its body, at most N times")
	}
	if !endsLoop(s.Body, true) {
		c.diags.Errorf(c.f, s.Loop, CodeOpenLoop,
			"this loop has no condition, and no break or return in its body ends it: it would always run its max; write repeat N: for N passes, or loop until COND (max: N): to stop when COND holds")
	}
}

// endsLoop reports whether body holds a statement that can end the loop
// it is the body of: a return (but one in a loop whose value is
// collected, which ends only that loop's iteration), or, when breaks is
// set, a break of this loop (not one of a loop nested in it).
func endsLoop(body []syntax.Stmt, breaks bool) bool {
	for _, s := range body {
		switch s := s.(type) {
		case *syntax.ReturnStmt:
			return true
		case *syntax.BranchStmt:
			if s.Break && breaks {
				return true
			}
		case *syntax.IfStmt:
			if endsLoop(s.Then, breaks) || endsLoop(s.Else, breaks) {
				return true
			}
		case *syntax.TryStmt:
			if endsLoop(s.Body, breaks) || endsLoop(s.Catch, breaks) || endsLoop(s.Finally, breaks) {
				return true
			}
		case *syntax.ChoiceStmt:
			for _, o := range s.Options {
				if endsLoop(o.Body, breaks) {
					return true
				}
			}
		case *syntax.ParallelStmt:
			if endsLoop(s.Branches, false) {
				return true
			}
		case *syntax.WhileStmt:
			if endsLoop(s.Body, false) {
				return true
			}
		case *syntax.ExprStmt:
			switch x := s.X.(type) {
			case *syntax.ForExpr:
				if !x.First && endsLoop(x.Body, false) {
					return true
				}
			case *syntax.RepeatExpr:
				if !x.First && endsLoop(x.Body, false) {
					return true
				}
			}
		}
	}
	return false
}
