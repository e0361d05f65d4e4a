package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
)

// writeOneCallRun journals a run of one call whose result is "ok" and
// returns the journal's path and run id.
func writeOneCallRun(t *testing.T, base string) (string, string) {
	t.Helper()
	r, err := Create(base, Header{Spec: "/s/one.prose.md", Bindings: []KV{{Key: "svc", Value: "exec:./ok.sh"}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := &fakeSvc{name: "svc", fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) { return "ok", nil }}
	if _, err := r.WrapCaller(fakeCaller{}).Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: svc, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if err := r.Finish("ok", nil); err != nil {
		t.Fatal(err)
	}
	r.Close()
	return r.Path(), r.ID()
}

// reseal rewrites the journal at path line by line through edit and seals
// every line again with the unkeyed digests of format version 2, as
// anyone who can write the file can.
func reseal(t *testing.T, path string, edit func(string) string) {
	t.Helper()
	resealWith(t, nil, path, func(line string) (string, bool) { return edit(line), true })
}

// A journal's chain is keyed: one whose binding was changed and resealed
// with the unkeyed digests is refused by resume and replay, whether it
// keeps its version (the digests no longer match under the key) or says
// it is an older, unkeyed journal (a resume refuses those).
func TestResealedJournalIsRefused(t *testing.T) {
	base := t.TempDir()
	path, id := writeOneCallRun(t, base)
	if _, err := Replay(base, id, Options{}); err != nil {
		t.Fatalf("the journal as written: %v", err)
	}
	evil := func(s string) string { return strings.Replace(s, "exec:./ok.sh", "exec:./evil.sh", 1) }

	reseal(t, path, evil)
	for _, open := range []func(string, string, Options) (*Run, error){Resume, Replay} {
		_, err := open(base, id, Options{})
		var ed *EditedError
		if !errors.As(err, &ed) || ed.Line != 1 || !strings.Contains(err.Error(), "journal key") {
			t.Errorf("resealed in format %d: %v, want the header refused", FormatVersion, err)
		}
	}

	reseal(t, path, func(s string) string { return strings.Replace(s, fmt.Sprintf(`"v":%d,`, FormatVersion), `"v":2,`, 1) })
	_, err := Resume(base, id, Options{})
	var ue *UnkeyedError
	if !errors.As(err, &ue) || ue.Version != 2 || !strings.Contains(err.Error(), "prose replay "+id) {
		t.Errorf("resealed as format 2: %v, want a resume refused", err)
	}
	l, err := ReadFile(path)
	if err != nil || !strings.Contains(string(l.Header.Bindings[0].Value), "evil") {
		t.Errorf("an unkeyed journal is still read (for replay and runs show): %v", err)
	}
}

// A journal sealed with another user's key is refused at its header, with
// a message naming the key.
func TestJournalOfAnotherKeyIsRefused(t *testing.T) {
	base := t.TempDir()
	_, id := writeOneCallRun(t, base)
	other := bytes.Repeat([]byte{7}, 32)
	_, err := Resume(base, id, Options{Key: other})
	if err == nil || !strings.Contains(err.Error(), "line 1: the header does not match its digest under this user's journal key") {
		t.Errorf("another key: %v", err)
	}
	if _, err := Resume(base, id, Options{}); err != nil {
		t.Errorf("the key it was written with: %v", err)
	}
}

// The key is made on first use, readable by its owner only, and read back
// the same by the next process.
func TestUserKeyIsMadeOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "journal.key")
	t.Setenv(KeyFileEnv, path)
	k1, err := UserKey()
	if err != nil {
		t.Fatal(err)
	}
	k2, err := UserKey()
	if err != nil || !bytes.Equal(k1, k2) || len(k1) != 32 {
		t.Fatalf("key %x then %x (%v)", k1, k2, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v (%v), want 0600", st.Mode(), err)
	}
	os.WriteFile(path, []byte("not hex\n"), 0o600)
	if _, err := UserKey(); err == nil || !strings.Contains(err.Error(), "not 32 bytes in hex") {
		t.Errorf("a damaged key: %v", err)
	}
}
