package syntax

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/proselang/prose/diag"

	"github.com/proselang/prose/internal/testenv"
)

// block is one fenced prose block of a .md file.
type block struct {
	file  *diag.File
	lines []Line
}

var fenceRE = regexp.MustCompile("^([ \t]*)```+[ \t]*(\\w*)")

// extractBlocks returns the ```prose blocks of src, with each line's
// indentation up to the fence's column removed and offsets into src.
func extractBlocks(name string, src []byte) []block {
	f := diag.NewFile(name, src)
	var out []block
	var cur *block
	indent := 0
	off := 0
	for _, text := range strings.SplitAfter(string(src), "\n") {
		line := strings.TrimSuffix(text, "\n")
		start := off
		off += len(text)
		if cur == nil {
			if m := fenceRE.FindStringSubmatch(line); m != nil && m[2] == "prose" {
				cur, indent = &block{file: f}, len(m[1])
			}
			continue
		}
		if m := fenceRE.FindStringSubmatch(line); m != nil && m[2] == "" && strings.TrimSpace(line) == strings.TrimSpace(strings.TrimLeft(line, " ")) && strings.HasPrefix(strings.TrimSpace(line), "```") {
			out = append(out, *cur)
			cur = nil
			continue
		}
		k := 0
		for k < indent && k < len(line) && (line[k] == ' ' || line[k] == '\t') {
			k++
		}
		cur.lines = append(cur.lines, Line{Text: line[k:], Off: diag.Pos(start + k)})
	}
	return out
}

func corpusBlocks(tb testing.TB) []block {
	dir := testenv.Corpus(tb)
	files, _ := filepath.Glob(filepath.Join(dir, "*.prose.md"))
	var all []block
	for _, fn := range files {
		src, err := os.ReadFile(fn)
		if err != nil {
			tb.Fatal(err)
		}
		bs := extractBlocks(filepath.Base(fn), src)
		if len(bs) == 0 {
			tb.Errorf("%s: no prose block", fn)
		}
		all = append(all, bs...)
	}
	return all
}

func TestCorpusParses(t *testing.T) {
	for _, b := range corpusBlocks(t) {
		prog, errs := Parse(b.file, b.lines)
		if len(errs) > 0 {
			t.Errorf("%s", errs)
			continue
		}
		if len(prog.Body) == 0 {
			t.Errorf("%s: empty program", b.file.Name)
		}
		checkIndex(t, prog)
		if testing.Verbose() {
			t.Logf("%s:\n%s", b.file.Name, Dump(prog))
		}
	}
}
