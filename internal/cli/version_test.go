package cli

import (
	"strings"
	"testing"

	"github.com/proselang/prose/version"
)

func TestVersion(t *testing.T) {
	want := "prose " + version.String() + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errs := runMain(t, args...)
		if code != 0 || out != want {
			t.Errorf("prose %s: exit %d, stdout %q, want %q; stderr %q", strings.Join(args, " "), code, out, want, errs)
		}
	}
	if code, _, errs := runMain(t, "version", "extra"); code != 2 {
		t.Errorf("prose version extra: exit %d, want 2; stderr %q", code, errs)
	}
}
