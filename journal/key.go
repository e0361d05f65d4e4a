package journal

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The journal key.
//
// Since format version 3 the digest chain of a journal (FORMAT.md) is
// keyed: each line's sum is an HMAC-SHA256 under a key of the user's,
// kept outside every run directory, so whoever can write a journal but
// not read the key cannot edit a record and reseal the chain. The key is
// 32 random bytes, written in hex to os.UserConfigDir()/prose/journal.key
// (mode 0600, its directory 0700) the first time a journal is written or
// read; KeyFileEnv names another file (tests, a shared key for a team's
// machines).

// KeyFileEnv is the environment variable naming the journal key's file
// instead of the default (KeyFile).
const KeyFileEnv = "PROSE_JOURNAL_KEY_FILE"

// KeyFile is the file of the user's journal key: $PROSE_JOURNAL_KEY_FILE
// when set, else journal.key in the prose directory of
// os.UserConfigDir().
func KeyFile() (string, error) {
	if p := os.Getenv(KeyFileEnv); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("journal: no place for the journal key (%v): set %s to a file for it", err, KeyFileEnv)
	}
	return filepath.Join(dir, "prose", "journal.key"), nil
}

// UserKey returns the user's journal key, creating it on first use.
func UserKey() ([]byte, error) {
	path, err := KeyFile()
	if err != nil {
		return nil, err
	}
	for range 2 {
		b, err := os.ReadFile(path)
		if err == nil {
			return parseKey(path, b)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("journal: reading the journal key: %w", err)
		}
		if err := createKey(path); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("journal: creating the journal key %s: %w (set %s to a file for it, or run with --no-journal)", path, err, KeyFileEnv)
		}
		// Created, or another process created it first: read it.
	}
	return nil, fmt.Errorf("journal: the journal key %s cannot be read back", path)
}

func parseKey(path string, b []byte) ([]byte, error) {
	k, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(k) < 16 {
		return nil, fmt.Errorf("journal: the journal key %s is not 32 bytes in hex (remove it to make a new one: the journals it sealed can then no longer be resumed)", path)
	}
	return k, nil
}

// createKey writes a new key at path, failing with os.ErrExist when
// there is one; the file appears whole (written aside, then linked).
func createKey(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var k [32]byte
	if _, err := rand.Read(k[:]); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".journal.key.*")
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
