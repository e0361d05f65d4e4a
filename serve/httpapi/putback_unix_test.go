//go:build unix

package httpapi

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The API answers a node directory that does not agree with the drain
// index as the CLI does (prose world show, prose receipts): an older
// copy put back, or the directory removed whole, is answered 500 naming
// the ledger and the repair on /nodes/ID, /receipts and /status, never
// the old truth or no receipts with 200/404. Before, it answered what
// the directory held, checked only against its own head record.
func TestNodeDirectoryAgainstTheIndexIsNotServed(t *testing.T) {
	s := continuityServer(t)
	st := s.Store()
	if err := st.Extend(nil); err != nil {
		t.Fatal(err)
	}
	indexed := func() {
		t.Helper()
		if _, err := st.Standing("review"); err != nil {
			t.Fatal(err)
		}
		if err := st.SaveIndex(); err != nil {
			t.Fatal(err)
		}
	}
	indexed()
	commit(t, st, map[string]any{"verdict": "old"})
	indexed()
	old := filepath.Join(t.TempDir(), "review")
	if out, err := exec.Command("cp", "-a", filepath.Dir(st.LedgerPath("review")), old).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	commit(t, st, map[string]any{"verdict": "new"})
	indexed()
	get := func(path string) (int, string) {
		t.Helper()
		w := httptest.NewRecorder()
		Handler(s, Options{}).ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		return w.Code, w.Body.String()
	}
	paths := []string{"/receipts?node=review", "/receipts", "/nodes/review", "/status"}
	for _, path := range paths {
		if code, body := get(path); code != 200 {
			t.Fatalf("%s of a sound store: %d %s", path, code, body)
		}
	}

	dir := filepath.Dir(st.LedgerPath("review"))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", old, dir).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	for _, path := range paths {
		if code, body := get(path); code != 500 || !strings.Contains(body, "older copy") || !strings.Contains(body, "--accept review") || strings.Contains(body, `"old"`) {
			t.Errorf("%s with an older copy of review put back: %d %s, want 500 naming it", path, code, body)
		}
	}

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		if code, body := get(path); code != 500 || !strings.Contains(body, "directory is gone") || !strings.Contains(body, "--accept review") {
			t.Errorf("%s with review's directory removed: %d %s, want 500 naming it", path, code, body)
		}
	}
}
