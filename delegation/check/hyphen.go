package check

// hyphenSplit returns "a - b" when name is a hyphenated name that is not
// bound but whose parts on each side of one of its hyphens are: the author
// most likely meant a subtraction, which needs spaces. "" otherwise.
func (c *checker) hyphenSplit(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] != '-' {
			continue
		}
		left, right := name[:i], name[i+1:]
		if c.names[left] != nil && c.names[right] != nil {
			return left + " - " + right
		}
	}
	return ""
}
