package cli

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/testenv"
)

// digestProject copies testdata/world/digest and returns its directory,
// its state directory and the --slot binding its nodes.
func digestProject(t *testing.T) (project, state, slot string) {
	t.Helper()
	dir := t.TempDir()
	project = filepath.Join(dir, "digest")
	os.MkdirAll(project, 0o755)
	src := filepath.Join(testenv.MustRoot(t), "testdata", "world", "digest")
	for _, f := range []string{"digest.prose.md", "signals.prose.md", "render.sh"} {
		copyFile(t, filepath.Join(src, f), filepath.Join(project, f))
	}
	return project, filepath.Join(dir, "state"), "*=exec:" + filepath.Join(project, "render.sh")
}

func drainDigest(t *testing.T, project, state, slot, headline string, extra ...string) (int, string) {
	t.Helper()
	ev := filepath.Join(t.TempDir(), "event.json")
	os.WriteFile(ev, []byte(`{"headline":"`+headline+`"}`), 0o600)
	code, out, errw := runMain(t, append([]string{"run", project, "--state", state, "--slot", slot, "--event", "signals=@" + ev}, extra...)...)
	return code, out + errw
}

func keyFiles(t *testing.T, seed byte) (private, public string) {
	dir := t.TempDir()
	k := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, 32))
	private, public = filepath.Join(dir, "key"), filepath.Join(dir, "key.pub")
	os.WriteFile(private, []byte(hex.EncodeToString(k.Seed())), 0o600)
	os.WriteFile(public, []byte(hex.EncodeToString(k.Public().(ed25519.PublicKey))), 0o600)
	return private, public
}

// A store drained with --sign-key: verify and world show check it against
// --trusted-key or $PROSE_TRUSTED_KEY; a drain without the key is
// refused before it writes.
func TestReceiptsTrustedKey(t *testing.T) {
	project, state, slot := digestProject(t)
	key, pub := keyFiles(t, 1)
	_, otherPub := keyFiles(t, 2)
	if code, out := drainDigest(t, project, state, slot, "one", "--sign-key", key); code != 0 {
		t.Fatalf("signed drain: %d\n%s", code, out)
	}
	if code, out, errw := runMain(t, "receipts", "verify", "--state", state, "--trusted-key", pub); code != 0 {
		t.Fatalf("verify with the key: %d %s%s", code, out, errw)
	}
	if code, _, errw := runMain(t, "receipts", "verify", "--state", state, "--trusted-key", otherPub); code != 1 || !strings.Contains(errw, "not by the trusted key") || !strings.Contains(errw, "receipts.jsonl") {
		t.Errorf("verify against another key: %d\n%s", code, errw)
	}
	t.Setenv(trustedKeyEnv, otherPub)
	if code, _, errw := runMain(t, "world", "show", "digest", "--state", state); code == 0 || !strings.Contains(errw, "trusted key") {
		t.Errorf("world show against $%s of another key: %d\n%s", trustedKeyEnv, code, errw)
	}
	t.Setenv(trustedKeyEnv, "")
	if code, out := drainDigest(t, project, state, slot, "two"); code != 1 || !strings.Contains(out, "--sign-key") || !strings.Contains(out, "FORMAT") {
		t.Errorf("an unsigned drain of a signed store: %d\n%s", code, out)
	}
	if code, out := drainDigest(t, project, state, slot, "two", "--sign-key", key, "--trusted-key", pub); code != 0 {
		t.Errorf("a drain with the key: %d\n%s", code, out)
	}
}

// An edited published file stops the next drain and world show, naming
// it and the repair; prose receipts repair says what it repaired, and the
// truths are back. A ledger cut at its end is refused until it is taken
// as it is with --accept.
func TestReceiptsRepair(t *testing.T) {
	project, state, slot := digestProject(t)
	for _, h := range []string{"one", "two"} {
		if code, out := drainDigest(t, project, state, slot, h); code != 0 {
			t.Fatalf("drain %s: %d\n%s", h, code, out)
		}
	}
	_, want, _ := runMain(t, "world", "show", "digest", "--state", state)
	truth := filepath.Join(state, "digest", "truth.json")
	os.WriteFile(truth, []byte(`{"brief": "digest: forged"}`), 0o600)
	if code, out := drainDigest(t, project, state, slot, "three"); code != 1 || !strings.Contains(out, truth) || !strings.Contains(out, "prose receipts repair") {
		t.Errorf("drain over an edited truth.json: %d\n%s", code, out)
	}
	if code, _, errw := runMain(t, "world", "show", "digest", "--state", state); code != 1 || !strings.Contains(errw, truth) {
		t.Errorf("world show of an edited truth.json: %d\n%s", code, errw)
	}
	code, out, errw := runMain(t, "receipts", "repair", "--state", state)
	if code != 0 || !strings.Contains(out, "repaired digest: truth.json republished from sha256:") {
		t.Errorf("repair: %d\n%s%s", code, out, errw)
	}
	if _, got, _ := runMain(t, "world", "show", "digest", "--state", state); got != want {
		t.Errorf("after the repair: %s, want %s", got, want)
	}

	ledger := filepath.Join(state, "signals", "receipts.jsonl")
	b, _ := os.ReadFile(ledger)
	lines := bytes.SplitAfter(b, []byte("\n"))
	os.WriteFile(ledger, bytes.Join(lines[:len(lines)-2], nil), 0o600)
	if code, _, errw := runMain(t, "receipts", "verify", "--state", state); code != 1 || !strings.Contains(errw, ledger+": holds 1 receipts, but its head record") {
		t.Errorf("verify of a cut ledger: %d\n%s", code, errw)
	}
	if code, out := drainDigest(t, project, state, slot, "three"); code != 1 || !strings.Contains(out, ledger) {
		t.Errorf("drain of a cut ledger: %d\n%s", code, out)
	}
	if code, _, errw := runMain(t, "receipts", "repair", "--state", state); code != 1 || !strings.Contains(errw, "--accept") {
		t.Errorf("repair of a cut ledger without --accept: %d\n%s", code, errw)
	}
	code, out, errw = runMain(t, "receipts", "repair", "--state", state, "--accept", "signals")
	if code != 0 || !strings.Contains(out, "repaired signals: receipts.jsonl taken as it is: 1 receipts") {
		t.Errorf("repair --accept: %d\n%s%s", code, out, errw)
	}
	if code, out := drainDigest(t, project, state, slot, "three"); code != 0 {
		t.Errorf("drain after the repair: %d\n%s", code, out)
	}
}

// --event is bounded by --max-event-bytes, as a trigger's body is.
func TestWorldEventMaxBytes(t *testing.T) {
	project, state, slot := digestProject(t)
	code, out := drainDigest(t, project, state, slot, strings.Repeat("x", 100), "--max-event-bytes", "64")
	if code != 2 || !strings.Contains(out, "--event signals: longer than 64 bytes (--max-event-bytes)") {
		t.Errorf("a long event: %d\n%s", code, out)
	}
	// An endless source is read no further than the bound.
	if _, err := os.Stat("/dev/zero"); err == nil {
		code, _, errw := runMain(t, "run", project, "--state", state, "--slot", slot, "--event", "signals=@/dev/zero")
		if code != 2 || !strings.Contains(errw, "longer than 1048576 bytes") {
			t.Errorf("--event @/dev/zero: %d\n%s", code, errw)
		}
	}
	if code, out := drainDigest(t, project, state, slot, "short", "--max-event-bytes", "64"); code != 0 {
		t.Errorf("a short event: %d\n%s", code, out)
	}
}
