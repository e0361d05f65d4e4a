package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/internal/didyoumean"
	"github.com/proselang/prose/journal"
)

// latestRun is the run id alias for the newest run under --run-dir.
const latestRun = "latest"

// runIDArg is the Args check of resume and replay: exactly one run id,
// with a message that says where to find one.
func runIDArg(mode fmt.Stringer) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return usageErrorf("%s: which run? give its id (see 'prose runs') or %q for the newest", mode, latestRun)
		case len(args) > 1:
			return usageErrorf("%s: give one run id, not %d", mode, len(args))
		}
		return nil
	}
}

// resolveRunID turns the id argument of resume or replay into the id of a
// run under base: "latest" is the newest run; an id that is not there is
// a usage error (exit 2) suggesting the ids it may have meant.
func resolveRunID(base, display, id string, mode fmt.Stringer) (string, error) {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return "", usageErrorf("%s: %q is not a run id (a name such as 20261130T021500-ab12cd; see 'prose runs')", mode, id)
	}
	path := filepath.Join(base, id, journal.FileName)
	if fileExists(path) {
		return id, nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return "", &exitError{Code: exitFailure, Err: fmt.Errorf("%s: run %s cannot be read: its journal %s is a directory, not a journal file; 'prose runs rm %s' removes the run",
			mode, id, filepath.Join(display, id, journal.FileName), id)}

	}
	runs, err := journal.List(base)
	if err != nil {
		return "", &exitError{Code: exitUsage, Err: fmt.Errorf("%s: %w", mode, err)}
	}
	if id == latestRun {
		if len(runs) == 0 {
			return "", &exitError{Code: exitUsage, Err: fmt.Errorf("%s: no runs in %s", mode, display)}
		}
		return runs[0].ID, nil
	}
	msg := fmt.Sprintf("%s: no run %q in %s", mode, id, display)
	if near := nearIDs(id, runs); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return "", &exitError{Code: exitUsage, Err: fmt.Errorf("%s (see 'prose runs')", msg)}
}

// nearIDs lists up to three run ids (newest first) that id may be a part
// or a typo of. An id that is the start or end of some run ids names those
// alone: two runs started in the same second differ in a few letters, and a
// truncated id should not also suggest its neighbour.
func nearIDs(id string, runs []*journal.Summary) []string {
	var parts, typos []string
	for _, r := range runs {
		switch {
		case len(id) >= 4 && (strings.HasPrefix(r.ID, id) || strings.HasSuffix(r.ID, id)):
			parts = append(parts, r.ID)
		case didyoumean.Distance(id, r.ID) <= 3:
			typos = append(typos, r.ID)
		}
	}
	out := typos
	if len(parts) > 0 {
		out = parts
	}
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

// fileExists reports whether path is there and no directory: a link
// loop or a dangling link counts, so its run is named by the error of
// reading it rather than called absent.
func fileExists(path string) bool {
	if st, err := os.Stat(path); err == nil {
		return !st.IsDir()
	}
	_, err := os.Lstat(path)
	return err == nil
}
