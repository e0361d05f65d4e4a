package cli

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/proselang/prose/internal/lintcli"
)

func TestNeedsTemporal(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"worker"}, true},
		{[]string{"worker", "--help"}, true},
		{[]string{"result", "wf-1"}, true},
		{[]string{"temporal", "codec-server"}, true},
		{[]string{"run", "a.prose.md", "--engine", "temporal"}, true},
		{[]string{"run", "--engine=temporal", "a.prose.md"}, true},
		{[]string{"serve", ".", "--engine", "temporal"}, true},
		{[]string{"answer", "--engine", "temporal", "wf", "L1"}, true},
		{[]string{"run", "a.prose.md"}, false},
		{[]string{"run", "a.prose.md", "--engine", "local"}, false},
		{[]string{"run", "a.prose.md", "--", "--engine", "temporal"}, false},
		{[]string{"lint", "--engine", "temporal"}, false},
		{[]string{"lint", "worker"}, false},
		{[]string{"--version"}, false},
		{nil, false},
	} {
		if got := needsTemporal(c.args); got != c.want {
			t.Errorf("needsTemporal(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// fakeTemporalProgram puts on PATH a prose-temporal that prints its
// arguments, what it read on stdin and the hand-off's mark in its
// environment, writes to stderr and exits 7.
func fakeTemporalProgram(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake program is a shell script")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf 'args:%s\\n' \"$*\"\nprintf 'stdin:%s\\n' \"$(cat)\"\nprintf 'marked:%s\\n' \"$" + handedOffEnv + "\"\necho to-stderr >&2\nexit 7\n"
	if err := os.WriteFile(filepath.Join(dir, temporalProgram), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestHandOffRunsTemporalProgram: a prose without the Temporal engine
// gives a Temporal command, unchanged, to prose-temporal on PATH, with its
// standard files, and exits with its code.
func TestHandOffRunsTemporalProgram(t *testing.T) {
	if linked != nil {
		t.Skip("this prose serves the Temporal commands itself")
	}
	fakeTemporalProgram(t)
	var out, errw bytes.Buffer
	code := Main([]string{"run", "x.prose.md", "--engine", "temporal", "--input", "a=b c"}, strings.NewReader("hello"), &out, &errw)
	if code != 7 {
		t.Fatalf("exit %d, want prose-temporal's 7; stderr: %s", code, errw.String())
	}
	if want := "args:run x.prose.md --engine temporal --input a=b c\nstdin:hello\nmarked:1\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	if errw.String() != "to-stderr\n" {
		t.Errorf("stderr %q", errw.String())
	}
	// A local run is not handed off: it fails here, on the missing file.
	out.Reset()
	errw.Reset()
	if code := Main([]string{"run", "x.prose.md"}, strings.NewReader(""), &out, &errw); code == 7 || strings.Contains(out.String(), "args:") {
		t.Errorf("a local run was handed off: exit %d, stdout %q", code, out.String())
	}
}

// TestHandOffToALightProse: a prose-temporal built without the engine
// fails, naming itself, rather than handing the command on to itself.
func TestHandOffToALightProse(t *testing.T) {
	if linked != nil {
		t.Skip("this prose serves the Temporal commands itself")
	}
	fakeTemporalProgram(t)
	t.Setenv(handedOffEnv, "1")
	var out, errw bytes.Buffer
	code := Main([]string{"result", "wf-1"}, strings.NewReader(""), &out, &errw)
	if code != exitFailure || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q: the command was handed on", code, out.String())
	}
	if !strings.Contains(errw.String(), "was built without it") {
		t.Errorf("stderr: %s", errw.String())
	}
}

// TestHandOffWithoutTemporalProgram: without prose-temporal the command
// fails (exit 1) saying how to install it.
func TestHandOffWithoutTemporalProgram(t *testing.T) {
	if linked != nil {
		t.Skip("this prose serves the Temporal commands itself")
	}
	t.Setenv("PATH", t.TempDir())
	var out, errw bytes.Buffer
	code := Main([]string{"worker", "--temporal-address", "127.0.0.1:1"}, strings.NewReader(""), &out, &errw)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"prose worker needs the Temporal engine", "prose-temporal", "go install github.com/proselang/prose/cmd/...@latest", "go install ./cmd/..."} {
		if !strings.Contains(errw.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errw.String())
		}
	}
}

// TestLightBinaryLinksNoTemporal builds the programs as the README's
// go install ./cmd/... does and checks that prose and prose-full link
// neither the Temporal SDK, gRPC nor the protobuf runtime, that
// prose-temporal does, and that prose hands a Temporal command (its help,
// here) through prose-full to the prose-temporal beside it.
func TestLightBinaryLinksNoTemporal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three binaries")
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "github.com/proselang/prose/cmd/...").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	exe := func(name string) string {
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		return filepath.Join(dir, name)
	}
	prose, middle, full := exe("prose"), exe("prose-full"), exe(temporalProgram)
	heavy := func(bin string) []string {
		info, err := buildinfo.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		var found []string
		for _, d := range info.Deps {
			if strings.HasPrefix(d.Path, "go.temporal.io/") || d.Path == "google.golang.org/grpc" || d.Path == "google.golang.org/protobuf" {
				found = append(found, d.Path)
			}
		}
		return found
	}
	for _, bin := range []string{prose, middle} {
		if h := heavy(bin); len(h) > 0 {
			t.Errorf("%s links %v", filepath.Base(bin), h)
		}
	}
	if h := heavy(full); len(h) == 0 {
		t.Errorf("prose-temporal links no Temporal SDK")
	}
	ctx := context.Background()
	out, err := exec.CommandContext(ctx, prose, "result", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("prose result --help: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--temporal-address") || !strings.Contains(string(out), "Exit status") {
		t.Errorf("prose result --help is not prose-temporal's help:\n%s", out)
	}

	// prose becomes prose-full, which becomes prose-temporal (the same
	// process, no prose around it): the program's parent is prose's.
	if runtime.GOOS == "windows" {
		return
	}
	dir2 := t.TempDir()
	src, err := os.ReadFile(prose)
	if err != nil {
		t.Fatal(err)
	}
	light := filepath.Join(dir2, "prose")
	if err := os.WriteFile(light, src, 0o755); err != nil {
		t.Fatal(err)
	}
	if src, err = os.ReadFile(middle); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir2, "prose-full"), src, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\necho \"ppid=$PPID marked=$" + handedOffEnv + " full=$" + lintcli.HandedOffEnv + "\"\n"
	if err := os.WriteFile(filepath.Join(dir2, temporalProgram), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(light, "worker")
	cmd.Env = append(os.Environ(), handedOffEnv+"=")
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("prose worker: %v", err)
	}
	// prose-full drops prose's mark: a prose the command starts hands
	// over in turn
	if want := fmt.Sprintf("ppid=%d marked=1 full=\n", os.Getpid()); string(out) != want {
		t.Errorf("prose worker printed %q, want %q: prose-temporal ran as a child of prose", out, want)
	}
}
