package lintcli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLintSummary: on a terminal, text output ends with a count of the
// findings; JSON output never has it.
func TestLintSummary(t *testing.T) {
	dir := t.TempDir()
	src := "---\nname: a\nkind: pattern\n---\n\n# A\n\nOne.\n\n### Slots\n\n- `w`\n\n### Delegation\n\n```prose\nlet r = call ww\nreturn { result: r }\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "a.prose.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		format, last string
	}{
		{"text", "1 error, 0 warnings in 1 file"},
		{"json", "]"},
	} {
		var out, errw bytes.Buffer
		err := Run(context.Background(), strings.NewReader(""), &out, &errw, Options{Format: tc.format, Summary: true}, []string{dir})
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitFailure {
			t.Errorf("%s: err = %v, want exit 1", tc.format, err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if last := lines[len(lines)-1]; last != tc.last {
			t.Errorf("%s: last line %q, want %q", tc.format, last, tc.last)
		}
	}
}

// TestLintInterrupted: lint of a named pipe that nobody writes, given by
// name, blocks in the read; the cancellation (Ctrl-C) still ends it with
// the context's error, which Main reports as interrupted (exit 130).
func TestLintInterrupted(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.prose.md")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var out, errw bytes.Buffer
	go func() {
		done <- Run(ctx, strings.NewReader(""), &out, &errw, Options{Format: "text"}, []string{fifo})
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want the cancellation", err)
		}
	case <-time.After(time.Minute): // a guard against the hang, not a measure
		t.Fatal("lint did not stop when canceled")
	}
}

// TestLintColor: on a terminal the text format's severities are coloured;
// other formats, and text off a terminal, are never.
func TestLintColor(t *testing.T) {
	dir := t.TempDir()
	src := "---\nname: a\nkind: pattern\n---\n\n# A\n\nOne.\n\n### Slots\n\n- `w`\n\n### Delegation\n\n```prose\nlet r = call ww\nreturn { result: r }\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "a.prose.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		format string
		color  bool
		want   bool
	}{
		{"text", true, true},
		{"text", false, false},
		{"json", true, false},
		{"github", true, false},
	} {
		var out, errw bytes.Buffer
		Run(context.Background(), strings.NewReader(""), &out, &errw, Options{Format: tc.format, Color: tc.color}, []string{dir})
		if got := strings.Contains(out.String(), "\x1b["); got != tc.want {
			t.Errorf("%s color=%v: escape codes %v, want %v:\n%q", tc.format, tc.color, got, tc.want, out.String())
		}
		if tc.want && !strings.Contains(out.String(), "merror\x1b[0m: ") {
			t.Errorf("%s: the severity is not the coloured part: %q", tc.format, out.String())
		}
	}
}
