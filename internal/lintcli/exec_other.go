//go:build !unix

package lintcli

import "errors"

// execReplaces: here a process cannot become another program; HandOff
// runs it as a child.
const execReplaces = false

func replace(string, []string) error { return errors.New("not supported") }
