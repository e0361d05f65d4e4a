package temporal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
)

// A ProseScript session is refused before a Temporal run starts, naming
// the session, rather than called with no service to answer it.
func TestSessionsAreRefusedOnTemporal(t *testing.T) {
	dir := t.TempDir()
	src := "---\nname: brief\nkind: function\n---\n\n### Parameters\n\n- `q`: what\n\n### Returns\n\n- `a`: the answer\n\n" +
		"### Execution\n\n```prose\nlet a = session \"Answer {q}\"\nreturn a\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "brief.prose.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(ResolveOptions{Path: "brief.prose.md", Dir: dir, HaveModel: true,
		Bindings: bind.Settings{Inputs: []bind.Assignment{{Name: "q", Value: "x"}}}})
	var ue *bind.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("err %v (%T), want a usage error", err, err)
	}
	if msg := err.Error() + strings.Join(ue.Messages(), "\n"); !strings.Contains(msg, `brief.prose.md:17:9: session "Answer {q}": ProseScript sessions do not run on the Temporal engine yet`) {
		t.Errorf("the refusal does not name the session: %s", msg)
	}
}
