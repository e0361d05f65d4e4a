// Package keyfile keeps the user's secret keys: 32 random bytes written in
// hex to a file of the prose configuration directory (mode 0600 in a 0700
// directory), created whole the first time it is read, so that two
// processes starting at once agree on one key.
package keyfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/proselang/prose/internal/filekind"
)

// ErrMalformed is returned (wrapped) by Load for a file that is not a key
// in hex of the size asked for.
var ErrMalformed = errors.New("not a key in hex")

// Path is the file of a key: the value of the environment variable env
// when set, else name in the prose directory of os.UserConfigDir(). The
// error says to set env when there is no such directory.
func Path(env, name string) (string, error) {
	if p := os.Getenv(env); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "prose", name), nil
}

// Load reads the key at path, creating it (32 bytes) when there is none.
// A key of fewer than min or more than max bytes is ErrMalformed. A create error is returned as
// *CreateError, so callers can say how to work around it.
func Load(path string, min, max int) ([]byte, error) {
	for range 2 {
		// Through filekind: a named pipe or a device in the key's place
		// is refused, not waited on or read without end (an open of a
		// FIFO blocks until a writer comes, and Ctrl-C cannot stop it).
		b, err := filekind.ReadFile(path)
		if err == nil {
			k, err := hex.DecodeString(strings.TrimSpace(string(b)))
			if err != nil || len(k) < min || len(k) > max {
				return nil, fmt.Errorf("%s: %w", path, ErrMalformed)
			}
			return k, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if err := create(path); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, &CreateError{Path: path, Err: err}
		}
		// Created, or another process created it first: read it.
	}
	return nil, fmt.Errorf("the key %s cannot be read back", path)
}

// CreateError is a failure to write a new key.
type CreateError struct {
	Path string
	Err  error
}

func (e *CreateError) Error() string { return "creating " + e.Path + ": " + e.Err.Error() }
func (e *CreateError) Unwrap() error { return e.Err }

// create writes a new key at path, failing with os.ErrExist when there is
// one; the file appears whole (written aside, synced, then linked).
func create(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var k [32]byte
	if _, err := rand.Read(k[:]); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.WriteString(hex.EncodeToString(k[:]) + "\n"); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Link(tmp.Name(), path) // fails with ErrExist when another won
}
