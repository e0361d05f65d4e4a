package spec

// SlotArguments compares the argument names keys of a call of a slot
// with the parameters of s, the function or responsibility bound to the
// slot, which takes the arguments by name:
//
//   - unknown: the arguments s does not declare, when s has a parameter
//     the call leaves out (a name that differs, `brief` for `topic`,
//     would drop the argument and run with the parameter null). When the
//     call fills every parameter, an extra argument is context that s
//     does not need (a pattern passes the same arguments to whatever
//     serves its slot) and not reported;
//   - leftOut: the parameters the call does not pass, in declaration
//     order;
//   - required: those of leftOut that are neither optional nor
//     defaulted.
//
// A function that declares no parameters takes any arguments.
func (s *Spec) SlotArguments(keys []string) (unknown, leftOut, required []string) {
	if len(s.Inputs) == 0 {
		return nil, nil, nil
	}
	passed := map[string]bool{}
	for _, k := range keys {
		passed[k] = true
	}
	declared := map[string]bool{}
	for _, in := range s.Inputs {
		declared[in.Name] = true
		if !passed[in.Name] {
			leftOut = append(leftOut, in.Name)
			if !in.Optional && !in.HasDefault {
				required = append(required, in.Name)
			}
		}
	}
	if len(leftOut) == 0 {
		return nil, nil, nil
	}
	for _, k := range keys {
		if !declared[k] {
			unknown = append(unknown, k)
		}
	}
	return unknown, leftOut, required
}
