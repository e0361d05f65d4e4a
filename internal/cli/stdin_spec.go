package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/proselang/prose/internal/wholefile"
)

// prose run - (decided): the spec is read from stdin, as lint - reads
// one. A run needs its spec as a file (its journal names it, resume and
// replay read it again, and a function's calls resolve beside it), so
// the text is kept, digest-addressed, as stdin.prose.md in a directory
// of its own under the user's cache directory (prose/stdin/DIGEST/): the
// same text is the same file, a resume of the run finds it, and no other
// spec stands beside it for a call to resolve to. Relative paths of the
// bindings resolve from the current directory, as for any run. stdin is
// then spent: --input KEY=@- and --input-json - are refused.

// maxStdinSpec bounds a spec read from stdin (the loader refuses far
// smaller hostile specs; this bounds what is read).
const maxStdinSpec = 16 << 20

// stdinSpec returns the spec path of arg: arg itself, or for "-" the
// file that keeps the spec read from o.stdin.
func (o *runOptions) stdinSpec(ctx context.Context, arg string) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	in := o.stdin
	if in == nil {
		in = os.Stdin
	}
	text, err := untilDone(ctx, func() ([]byte, error) { return io.ReadAll(io.LimitReader(in, maxStdinSpec+1)) })
	if ctx.Err() != nil {
		return "", ctx.Err() // interrupted
	}
	if err != nil {
		return "", usageErrorf("reading the spec from stdin: %v", err)
	}
	if len(text) > maxStdinSpec {
		return "", usageErrorf("the spec on stdin is larger than %d bytes", maxStdinSpec)
	}
	if len(text) == 0 {
		return "", usageErrorf("prose run -: stdin is empty; pipe a spec into it (prose run - < FILE.prose.md)")
	}
	o.stdin = spentStdin{}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", &exitError{Code: exitFailure, Err: fmt.Errorf("prose run -: no place to keep the spec (%v); give it as a file", err)}
	}
	sum := sha256.Sum256(text)
	dir := filepath.Join(cache, "prose", "stdin", hex.EncodeToString(sum[:12]))
	path := filepath.Join(dir, "stdin.prose.md")
	if old, err := os.ReadFile(path); err == nil && string(old) == string(text) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", &exitError{Code: exitFailure, Err: fmt.Errorf("prose run -: keeping the spec: %v", err)}
	}
	if err := wholefile.Write(path, text, 0o600); err != nil {
		return "", &exitError{Code: exitFailure, Err: fmt.Errorf("prose run -: keeping the spec: %v", err)}
	}
	return path, nil
}

// spentStdin is stdin after the spec was read from it.
type spentStdin struct{}

func (spentStdin) Read([]byte) (int, error) {
	return 0, errors.New("stdin holds the spec (prose run -); give this value from a file")
}
