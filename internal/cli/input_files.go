package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/proselang/prose/bind"
)

// Inputs too large for a command line (decided):
//
//   - --input KEY=@FILE reads the value from FILE, --input KEY=@- from
//     stdin; the file's text is the value, typed as --input text is;
//   - --input-json @FILE (or @-, or - alone) reads the JSON object from
//     FILE (stdin);
//   - a value that starts with @ literally is written @@ (--input
//     handle=@@alice is "@alice"); any other @ is a file name, and a file
//     that cannot be read is a usage error naming it;
//   - stdin is read once: two values from it are refused;
//   - a file larger than maxInputFile is refused (the value ceiling of the
//     run refuses large values anyway; this bounds what is read);
//   - a pipe is read as a file is (the shell's <(...) and a named pipe),
//     and a terminal too; a directory or socket is refused;
//   - a read that waits (stdin, or a pipe nothing writes to yet) ends on
//     Ctrl-C and SIGTERM, as the run would.
const maxInputFile = 64 << 20

// readInputFiles replaces the @FILE values of b's inputs and InputJSON
// by the files' text, reading @- (and an InputJSON of -) from stdin. It
// returns ctx's error when ctx is done while a read waits.
func readInputFiles(ctx context.Context, b *bind.Settings, stdin io.Reader) error {
	usedStdin := ""
	read := func(flag, name string) (string, error) {
		if name == "-" {
			if usedStdin != "" {
				return "", fmt.Errorf("%s: stdin is already read for %s; give one of them from a file", flag, usedStdin)
			}
			usedStdin = flag
			if stdin == nil {
				stdin = os.Stdin
			}
			return untilDone(ctx, func() (string, error) { return readCapped(flag, "stdin", stdin, 0) })
		}
		// The kind of file is asked before it is opened: the open of a
		// named pipe waits for a writer.
		st, err := os.Stat(name)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = fmt.Errorf("%s: %v", name, pe.Err)
			}
			return "", fmt.Errorf("%s: %v (a value that starts with @ names a file; write @@ for a literal @)", flag, err)
		}
		if m := st.Mode(); m.IsDir() || m&(os.ModeSocket|os.ModeIrregular) != 0 {
			return "", fmt.Errorf("%s: %s is %s, not a file to read a value from", flag, name, fileKind(m))
		}
		return untilDone(ctx, func() (string, error) {
			f, err := os.Open(name)
			if err != nil {
				return "", fmt.Errorf("%s: %v (a value that starts with @ names a file; write @@ for a literal @)", flag, err)
			}
			defer f.Close()
			var size int64
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				size = st.Size()
			}
			return readCapped(flag, name, f, size)
		})
	}
	for i, a := range b.Inputs {
		switch {
		case strings.HasPrefix(a.Value, "@@"):
			b.Inputs[i].Value = a.Value[1:]
		case strings.HasPrefix(a.Value, "@"):
			v, err := read("--input "+a.Name, a.Value[1:])
			if err != nil {
				return err
			}
			b.Inputs[i].Value = v
		}
	}
	switch j := strings.TrimSpace(b.InputJSON); {
	case j == "-" || strings.HasPrefix(j, "@"):
		v, err := read("--input-json", strings.TrimPrefix(j, "@"))
		if err != nil {
			return err
		}
		b.InputJSON = v
	}
	return nil
}

// fileKind names the kind of file m is, for a message.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// readCapped reads r whole, refusing more than maxInputFile bytes. size
// is what a stat said the file holds (0 when unknown): the text is read
// into room made once and becomes the value without a copy, where
// reading into a slice grown by doubling and converting it made three
// times the file in garbage (a 5 MB input set off a collection or two
// before the run began). A file that grew since its stat is still read
// to its end.
func readCapped(flag, name string, r io.Reader, size int64) (string, error) {
	var b strings.Builder
	if size > 0 && size <= maxInputFile {
		b.Grow(int(size) + 1) // +1: the read that finds the end
	}
	if _, err := io.Copy(&b, io.LimitReader(r, maxInputFile+1)); err != nil {
		return "", fmt.Errorf("%s: reading %s: %v", flag, name, err)
	}
	if b.Len() > maxInputFile {
		return "", fmt.Errorf("%s: %s is larger than %d MiB", flag, name, maxInputFile>>20)
	}
	return b.String(), nil
}

// onceString is a string flag that may be given once: a second value is
// a usage error naming the flag, never a silent replacement of the first
// (--input-json twice would drop the first object's inputs).
type onceString struct {
	p   *string
	set bool
}

func (f *onceString) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f *onceString) Set(v string) error {
	if f.set {
		// (neither value is shown: an input may be a secret)
		return fmt.Errorf("given twice: give one JSON object holding every input")
	}
	*f.p, f.set = v, true
	return nil
}

func (f *onceString) Type() string { return "string" }
