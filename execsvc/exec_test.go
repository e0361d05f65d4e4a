package execsvc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

func execCall(t *testing.T, s *Service, ctx context.Context, args *delegation.Object) (delegation.Value, error) {
	t.Helper()
	if s.Name == "" {
		s.Name = "svc"
	}
	req := &delegation.CallRequest{Path: delegation.MustParsePath("L7/2"), Service: s, Args: args, Attempt: 3}
	return s.Call(ctx, req)
}

func jsonString(t *testing.T, v delegation.Value) string {
	t.Helper()
	b, err := delegation.ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExecStdinEnvAndJSON(t *testing.T) {
	args := delegation.NewObject()
	args.Set("brief", "it's \"quoted\" $(rm -rf /)")
	args.Set("n", int64(3))
	s := &Service{Command: `printf '{"env":"%s/%s/%s","stdin":' "$PROSE_SLOT" "$PROSE_ATTEMPT" "$PROSE_CALL_ID"; cat; printf '}'`, Name: "advancer"}
	v, err := execCall(t, s, context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"env":"advancer/3/L7/2","stdin":{"brief":"it's \"quoted\" $(rm -rf /)","n":3}}`
	if got := jsonString(t, v); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestExecNoArgsSendsEmptyObject(t *testing.T) {
	v, err := execCall(t, &Service{Command: "cat"}, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonString(t, v); got != "{}" {
		t.Errorf("got %s, want {}", got)
	}
}

func TestExecByteOrderMarkDropped(t *testing.T) {
	v, err := execCall(t, &Service{Command: `printf '\357\273\277{"a": 1}\r\n'`}, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonString(t, v); got != `{"a":1}` {
		t.Errorf("got %s", got)
	}
}

func TestExecColoredJSON(t *testing.T) {
	v, err := execCall(t, &Service{Command: `printf '\033[1;39m{\n  \033[0m\033[34;1m"a"\033[0m\033[1;39m:\033[0;39m1\033[0m\033[1;39m\n}\033[0m\n'`}, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonString(t, v); got != `{"a":1}` {
		t.Errorf("got %s", got)
	}
	// Colored text stays text, escape codes included: it is the data.
	v, _ = execCall(t, &Service{Command: `printf '\033[31mred\033[0m\n'`}, context.Background(), nil)
	if v != "\x1b[31mred\x1b[0m" {
		t.Errorf("got %q", v)
	}
}

func TestExecTextOutputTrimmed(t *testing.T) {
	v, err := execCall(t, &Service{Command: `printf '  [ops] draft:\nfresh  \n\n'`}, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if v != "[ops] draft:\nfresh" {
		t.Errorf("got %#v", v)
	}
}

func TestExecFailures(t *testing.T) {
	tests := []struct {
		name, cmd string
		want      []string
	}{
		{"crash", `echo starting >&2; echo "disk on fire" >&2; exit 3`, []string{"exit status 3", "starting\ndisk on fire"}},
		{"signal", `kill -9 $$`, []string{"killed by signal"}},
		{"silent crash", `exit 1`, []string{"exit status 1 (no stderr output)"}},
		{"empty output", `true`, []string{"produced no output"}},
		{"garbage", `printf '\377\376\000\001'`, []string{"neither JSON nor UTF-8"}},
		{"NUL bytes", `printf 'abc\000def'`, []string{"binary, not JSON or text: a NUL byte at offset 3 of 7 bytes"}},
		{"missing program", `/nonexistent/prog`, []string{"exit status 127 (command not found)", "not found"}},
		{"not executable", `f=$(mktemp); "$f"; s=$?; rm -f "$f"; exit $s`, []string{"exit status 126 (command not executable)"}},
		{"stderr only", `echo "config.yaml missing" >&2`, []string{"produced no output", "stderr: config.yaml missing"}},
		{"garbage with stderr", `echo "wrote binary" >&2; printf '\377\376'`, []string{"neither JSON nor UTF-8", "stderr: wrote binary"}},
		{"colored stderr", `printf '\033[31mERROR\033[0m: \033]0;title\007bad\001 input\r\n' >&2; exit 1`, []string{"exit status 1: ERROR: bad? input"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := execCall(t, &Service{Command: tt.cmd}, context.Background(), nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestExecStderrTailBounded(t *testing.T) {
	_, err := execCall(t, &Service{Command: `i=0; while [ $i -lt 5000 ]; do echo "line $i of noise" >&2; i=$((i+1)); done; exit 2`}, context.Background(), nil)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "line 4999 of noise") || strings.Contains(msg, "line 4979 of noise") {
		t.Errorf("want the last 20 lines only, got %q", msg)
	}
	if len(msg) > stderrBytes+200 {
		t.Errorf("message is %d bytes", len(msg))
	}
}

func TestExecOutputCap(t *testing.T) {
	// 100 MB of output against the default 8 MiB cap.
	_, err := execCall(t, &Service{Command: `head -c 100000000 /dev/zero | tr '\0' x`}, context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "output exceeds the 8 MiB limit") {
		t.Fatalf("err = %v", err)
	}
	_, err = execCall(t, &Service{Command: `echo 12345678901`, MaxOutput: 10}, context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "10 bytes") {
		t.Fatalf("err = %v", err)
	}
}

func TestExecTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	done := filepath.Join(dir, "done")
	// The grandchild sleeps in the background holding stdout; had the call
	// waited for it, it would have left the done file.
	cmd := `(sleep 60; : >` + done + `) & echo $! > ` + pidFile + `; wait`
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := execCall(t, &Service{Command: cmd}, ctx, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "context") {
		t.Errorf("the message repeats Go's context error: %v", err)
	}
	if _, err := os.Stat(done); err == nil {
		t.Error("the call waited for the grandchild to end")
	}
	assertGone(t, pidFile)
}

// TestExecIgnoresSIGTERM: a program that ignores SIGTERM gets its grace,
// then SIGKILL. The cancel comes only once the program has set its trap
// (it leaves a file). The trap records the SIGTERM, and the loop records
// that it went on running after it: so the test knows the SIGTERM came,
// did not end the program, and was not followed by SIGKILL at once,
// from what the program did rather than from a clock.
func TestExecIgnoresSIGTERM(t *testing.T) {
	dir := t.TempDir()
	ready, termed, after := filepath.Join(dir, "ready"), filepath.Join(dir, "termed"), filepath.Join(dir, "after")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, err := os.Stat(ready); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	cmd := `trap 'echo term >>` + termed + `' TERM; : >` + ready +
		`; while :; do [ -s ` + termed + ` ] && echo alive >>` + after + `; sleep 0.05; done`
	_, err := execCall(t, &Service{Command: cmd, Grace: time.Second}, ctx, nil)
	if !errors.Is(err, context.Canceled) || err.Error() != "canceled; the program was stopped" {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(termed); err != nil {
		t.Error("the program never saw the SIGTERM it was meant to ignore")
	}
	if _, err := os.Stat(after); err != nil {
		t.Error("the program was killed as soon as it got SIGTERM: no grace")
	}
}

func TestExecLeftoverChildrenKilled(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	v, err := execCall(t, &Service{Command: `sleep 30 >/dev/null 2>&1 & echo $! > ` + pidFile + `; echo 1`}, context.Background(), nil)
	if err != nil || v != int64(1) {
		t.Fatalf("v=%v err=%v", v, err)
	}
	assertGone(t, pidFile)
}

// assertGone checks that the process whose pid is in file has exited.
func assertGone(t *testing.T, file string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(raw))
	// A minute guards against a process left running; a killed one is gone
	// as soon as it is scheduled, however loaded the machine.
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %s is still running", pid)
}

func TestExecProgramIgnoringLargeStdin(t *testing.T) {
	args := delegation.NewObject()
	args.Set("blob", strings.Repeat("x", 1<<20))
	v, err := execCall(t, &Service{Command: "echo 1"}, context.Background(), args)
	if err != nil || v != int64(1) {
		t.Fatalf("v=%v err=%v", v, err)
	}
	v, err = execCall(t, &Service{Command: "wc -c"}, context.Background(), args)
	if err != nil || v != int64(1<<20+12) {
		t.Fatalf("v=%v err=%v, want the whole JSON object and its newline read", v, err)
	}
}

func TestExecGraceOutlivesTheShell(t *testing.T) {
	// The shell dies of SIGTERM at once; the program it runs traps SIGTERM
	// and needs a moment to tidy up. It must get its grace period.
	dir := t.TempDir()
	done := filepath.Join(dir, "tidied")
	inner := `trap 'sleep 0.3; echo ok > ` + done + `; exit 1' TERM; while :; do sleep 0.05; done`
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err := execCall(t, &Service{Command: `sh -c ` + shq(inner) + `; echo after`, Grace: 3 * time.Second}, ctx, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(done); err != nil {
		t.Errorf("the program was killed before its grace period ended: %v", err)
	}
}

func TestExecStdinIsOneLine(t *testing.T) {
	// A shell service reading its arguments with `read` under set -e: the
	// line must end with a newline, or read fails at end of input.
	args := delegation.NewObject()
	args.Set("msg", "two\nlines")
	v, err := execCall(t, &Service{Command: `set -e; read -r line; printf 'got %s' "$line"`}, context.Background(), args)
	if err != nil || v != `got {"msg":"two\nlines"}` {
		t.Fatalf("v=%#v err=%v", v, err)
	}
}

func TestExecLargeLegalOutput(t *testing.T) {
	// 7 MiB of JSON, under the 8 MiB cap: read whole.
	v, err := execCall(t, &Service{Command: `printf '{"s":"'; head -c 7340032 /dev/zero | tr '\0' x; printf '"}\n'`}, context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := v.(*delegation.Object)
	if !ok {
		t.Fatalf("got %T", v)
	}
	if s, _ := o.Get("s"); len(s.(string)) != 7<<20 {
		t.Errorf("got %d bytes", len(s.(string)))
	}
}

// JSON nested past delegation.MaxDepth is an error of the call, not a
// string that later steps would mistake for the answer.
func TestDecodeOutputTooDeep(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	_, err := decodeOutput("svc", []byte(deep))
	if !errors.Is(err, delegation.ErrTooDeep) {
		t.Fatalf("err = %v, want ErrTooDeep", err)
	}
	v, err := decodeOutput("svc", []byte("[[1]]"))
	if err != nil || delegation.TypeName(v) != "list" {
		t.Errorf("shallow JSON: %v, %v", v, err)
	}
}

// Text followed by JSON (a progress line printed before the answer) is a
// failed attempt naming the text, as JSON followed by log lines is; text
// with a bracket inside a line, or one JSON value alone, is not.
func TestDecodeOutputTextBeforeJSON(t *testing.T) {
	for out, want := range map[string]string{
		"fetching results...\n{\"summary\": \"found\"}\n": `is text followed by JSON ("fetching results...", then the JSON from line 2)`,
		"step 1\nstep 2\n[\n  1,\n  2\n]":                 `("step 1", then the JSON from line 3)`,
		"Two notes:\n- a [draft]\n- b {x}":                "",
		"the list [1, 2] is short":                        "",
		"{\"a\": 1}":                                      "",
		"line one\n   {not json}":                         "",
	} {
		_, err := decodeOutput("svc", []byte(out))
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", out, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: err %v, want %q", out, err, want)
		}
	}
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
