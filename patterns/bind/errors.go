package bind

// The error of binding: a *UsageError says how the run was asked for is
// wrong (package run gives it its run.Code).

import (
	"fmt"
	"strings"
)

// UsageError is a problem with how a run was asked for: bad flags, unknown
// or missing names, an invalid spec. The command exits 2 on it.
type UsageError struct {
	Problems []string
}

func (e *UsageError) Error() string { return strings.Join(e.Problems, "\n") }

// Usagef is the *UsageError of one problem.
func Usagef(format string, args ...any) *UsageError {
	return &UsageError{Problems: []string{fmt.Sprintf(format, args...)}}
}
