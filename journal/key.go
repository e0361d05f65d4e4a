package journal

import (
	"errors"
	"fmt"

	"github.com/proselang/prose/internal/keyfile"
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
	p, err := keyfile.Path(KeyFileEnv, "journal.key")
	if err != nil {
		return "", fmt.Errorf("journal: no place for the journal key (%v): set %s to a file for it", err, KeyFileEnv)
	}
	return p, nil
}

// UserKey returns the user's journal key, creating it on first use.
func UserKey() ([]byte, error) {
	path, err := KeyFile()
	if err != nil {
		return nil, err
	}
	k, err := keyfile.Load(path, 16, 64)
	var ce *keyfile.CreateError
	switch {
	case err == nil:
		return k, nil
	case errors.Is(err, keyfile.ErrMalformed):
		return nil, fmt.Errorf("journal: the journal key %s is not 32 bytes in hex (remove it to make a new one: the journals it sealed can then no longer be resumed)", path)
	case errors.As(err, &ce):
		return nil, fmt.Errorf("journal: creating the journal key %s: %w (set %s to a file for it, or run with --no-journal)", path, ce.Err, KeyFileEnv)
	default:
		return nil, fmt.Errorf("journal: reading the journal key: %w", err)
	}
}
