package llmtest

import "regexp"

// Output is one output a rendered node declares: its name and the
// description its contract gives it.
type Output struct{ Name, Description string }

var backticked = regexp.MustCompile("`([^`]+)`")

// RenderAnswer is a plausible reply of a model rendering node: each output
// a text naming the node and the output, with the first backticked phrase
// of its description (the exact words a fixture's expectations look for);
// a `score` is 92 and an `accepted` is true, so a critic accepts. Tests
// that run the same contracts with a fake model on several engines share
// it, so they compare like with like.
func RenderAnswer(node string, outputs []Output) map[string]any {
	out := map[string]any{}
	for _, o := range outputs {
		switch o.Name {
		case "score":
			out[o.Name] = 92
		case "accepted":
			out[o.Name] = true
		default:
			text := node + " wrote " + o.Name
			if m := backticked.FindStringSubmatch(o.Description); m != nil {
				text += " with " + m[1]
			}
			out[o.Name] = text
		}
	}
	return out
}
