//go:build !unix

package connect_test

import "errors"

func mkfifo(string) error { return errors.New("no named pipes") }
