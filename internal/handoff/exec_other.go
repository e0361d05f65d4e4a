//go:build !unix

package handoff

import "errors"

// Replaces reports whether Exec can make this process another program:
// not here (Run starts it as a child instead).
const Replaces = false

// Exec fails here: a process cannot become another program.
func Exec(string, []string, []string) error {
	return errors.New("a process cannot become another program here")
}
