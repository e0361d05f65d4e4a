package execsvc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/proselang/prose/delegation"
)

// TestDrainReadsWholeAfterLateWakeup is the loaded machine in miniature:
// the program has exited and its output sits in the pipe, but the reader
// only gets to run after the wake-up deadline has passed. It must still
// read every byte, not stop at the deadline.
func TestDrainReadsWholeAfterLateWakeup(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB, far over a pipe buffer
	go func() {
		w.Write(want)
		w.Close()
	}()
	r.SetReadDeadline(time.Now()) // what finish does when the program exits
	var got bytes.Buffer
	if err := drain(r, &got); err != nil {
		t.Fatalf("drain: %v", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("read %d bytes, want %d", got.Len(), len(want))
	}
}

// TestExecLargeOutputsWholeInParallel runs many services at once, each
// printing a large JSON object, and checks that every result is whole:
// parsed as an object with the full payload, never text cut short.
func TestExecLargeOutputsWholeInParallel(t *testing.T) {
	const n, size = 48, 1 << 20
	cmd := fmt.Sprintf(`printf '{"id": "%%s", "payload": "' "$PROSE_CALL_ID"; head -c %d /dev/zero | tr '\0' x; printf '"}\n'`, size)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &Service{Name: "big", Command: cmd}
			id := fmt.Sprintf("L1/%d", i+1)
			v, err := s.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath(id), Service: s, Attempt: 1})
			if err != nil {
				errs <- fmt.Errorf("%s: %v", id, err)
				return
			}
			o, ok := v.(*delegation.Object)
			if !ok {
				errs <- fmt.Errorf("%s: result is %T, not an object", id, v)
				return
			}
			gotID, _ := o.Get("id")
			p, _ := o.Get("payload")
			if s, _ := p.(string); gotID != id || len(s) != size {
				errs <- fmt.Errorf("%s: id %v, payload of %d bytes, want %d", id, gotID, len(s), size)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestExecEscapedGrandchildIsAnError: a process that left the program's
// group (setsid) and holds stdout open makes the output's end unknowable.
// The call fails saying so; it neither hangs nor passes on what it read.
func TestExecEscapedGrandchildIsAnError(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid")
	}
	// The program waits until the grandchild has left its group (its pid
	// file is written after setsid), so the group kill cannot reach it.
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := `setsid sh -c 'echo $$ > ` + pidFile + `; exec sleep 30' & while [ ! -s ` + pidFile + ` ]; do sleep 0.01; done; printf '{"verdict": '`
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	v, err := execCall(t, &Service{Name: "svc", Command: cmd}, context.Background(), nil)
	if err == nil {
		t.Fatalf("v = %#v, want an error", v)
	}
	for _, want := range []string{"svc exited, but a process it started still holds its stdout open", "setsid"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestExecJSONThatDoesNotParse: output meant as JSON that does not parse
// is an error naming the service, not text for a later step to trip on.
func TestExecJSONThatDoesNotParse(t *testing.T) {
	for _, c := range []struct {
		out  string
		want string // substring of the error; "" means the text is the value
	}{
		{`{"verdict": "accept", comments: []`, `the output of reviewer looks like JSON but does not parse: invalid character 'c' looking for beginning of object key string (line 1, column 23)`},
		{`{"verdict": "accept"`, `looks like JSON but does not parse: unexpected end of JSON input (it ends before the JSON value does`},
		{`[1, 2,]`, `looks like JSON but does not parse`},
		{`{"verdict": "reject", "notes": "", "verdict": "accept"}`, `looks like JSON but does not parse: the key "verdict" appears twice in one object`},
		{`{"score": 1e400}`, `looks like JSON but does not parse: json: cannot unmarshal number 1e400 into Go value of type float64: a number too large`},
		{`{"a": 1} and more`, `looks like JSON but does not parse: invalid character 'a' after top-level value`},
		{`[INFO] done`, ``},
		{`{name} is ready`, ``},
		{`{}`, ``},
	} {
		s := &Service{Name: "reviewer", Command: "cat <<'EOF'\n" + c.out + "\nEOF"}
		v, err := s.Call(context.Background(), &delegation.CallRequest{Path: delegation.MustParsePath("L1"), Service: s, Attempt: 1})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.out, err)
		case c.want == "" && c.out != "{}" && v != c.out:
			t.Errorf("%q: value %#v, want the text", c.out, v)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want %q", c.out, err, c.want)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%q: a parse error must not read as a timeout", c.out)
		}
	}
}
