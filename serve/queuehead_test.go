package serve

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ackedQueue is a state directory whose queue acknowledged n events of
// node gw, each its own line, and the queue file's bytes.
func ackedQueue(t *testing.T, n int) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	q, err := OpenQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, _, err := q.Enqueue("gw", []byte(fmt.Sprintf(`{"id":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	q.Close()
	b, err := os.ReadFile(QueuePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	return dir, b
}

// refusedBoth checks that OpenQueue and ReadQueue (the view, and
// prose receipts verify) both refuse the queue of dir with an error
// holding each of want.
func refusedBoth(t *testing.T, dir string, want ...string) {
	t.Helper()
	_, qerr := OpenQueue(dir)
	_, verr := ReadQueue(dir)
	for i, err := range []error{qerr, verr} {
		if err == nil {
			t.Errorf("reader %d: the queue was read, want it refused", i)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("reader %d: %v\nwant it to say %q", i, err, w)
			}
		}
	}
}

// A queue file emptied (`: > queue.jsonl`), cut at a line boundary, or
// removed loses acknowledged triggers: it is refused, naming the file and
// how many acknowledged lines are gone, not read as a shorter queue.
func TestQueueCutIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(b []byte) []byte // nil: the file removed
		lost string
	}{
		{"emptied", func([]byte) []byte { return nil }, "3 acknowledged lines were lost"},
		{"last line cut", func(b []byte) []byte {
			return b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1]
		}, "1 acknowledged line was lost"},
		{"removed", nil, "3 acknowledged lines were lost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, b := ackedQueue(t, 3)
			p := QueuePath(dir)
			if tc.cut == nil {
				os.Remove(p)
			} else if err := os.WriteFile(p, tc.cut(b), 0o600); err != nil {
				t.Fatal(err)
			}
			if !HasQueue(dir) {
				t.Error("HasQueue: false, though its head record is there")
			}
			refusedBoth(t, dir, p, QueueHeadPath(dir), tc.lost)
		})
	}
}

// A line edited to name another node (its event and fingerprint left
// true) is refused: the head's chain covers every line's bytes.
func TestQueueLineEditedToAnotherNodeIsRefused(t *testing.T) {
	dir, b := ackedQueue(t, 2)
	edited := bytes.Replace(b, []byte(`"node":"gw"`), []byte(`"node":"xx"`), 1)
	if bytes.Equal(edited, b) {
		t.Fatal("nothing edited")
	}
	if err := os.WriteFile(QueuePath(dir), edited, 0o600); err != nil {
		t.Fatal(err)
	}
	refusedBoth(t, dir, QueuePath(dir), "edited")
}

// A kill between a line's write, its fsync and its head leaves the file
// ahead of its head (a whole line, or a torn one) or a temporary head
// file beside it: none is refused. A whole line is kept (its drain
// runs), a torn one dropped, and the next write's head covers them.
func TestQueueKilledBetweenStepsIsNotRefused(t *testing.T) {
	enq := func(ev string) string {
		return `{"op":"enq","drain":1,"node":"gw","event":` + ev + `,"fp":"` + fpOf(t, ev) + `"}` + "\n"
	}
	extra := enq(`{"id":9}`)
	for _, tc := range []struct {
		name, tail string
		tmp        bool
		depth      int
	}{
		{"line written, no head", extra, false, 3},
		{"line torn", extra[:20], false, 2},
		{"line written, head's temporary file", extra, true, 3},
		{"two lines, no head", extra + enq(`{"id":8}`), false, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := ackedQueue(t, 2)
			f, err := os.OpenFile(QueuePath(dir), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(tc.tail)
			f.Close()
			if tc.tmp {
				os.WriteFile(filepath.Join(dir, ".serve", ".tmp-123"), []byte(`{"lines":`), 0o600)
			}
			if _, err := ReadQueue(dir); err != nil {
				t.Fatalf("view: %v", err)
			}
			q, err := OpenQueue(dir)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if d := q.Depth(); d != tc.depth {
				t.Errorf("depth %d, want %d", d, tc.depth)
			}
			if _, _, err := q.Enqueue("gw", []byte(`{"id":"after"}`)); err != nil {
				t.Fatal(err)
			}
			q.Close()
			// the head now covers every line: cutting the last one is seen
			b, _ := os.ReadFile(QueuePath(dir))
			os.WriteFile(QueuePath(dir), b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1], 0o600)
			refusedBoth(t, dir, "1 acknowledged line was lost")
		})
	}
}

// A queue written before head records opens as it is, and its first
// write gives it one.
func TestQueueWithoutHeadIsUpgraded(t *testing.T) {
	dir, _ := ackedQueue(t, 2)
	os.Remove(QueueHeadPath(dir))
	q, err := OpenQueue(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(QueueHeadPath(dir)); err == nil {
		t.Error("opening wrote a head record; the first write does")
	}
	if _, _, err := q.Enqueue("gw", []byte(`{"id":"new"}`)); err != nil {
		t.Fatal(err)
	}
	q.Close()
	h, _, err := readQueueHead(QueueHeadPath(dir))
	if err != nil || h == nil || h.Lines != 3 {
		t.Fatalf("head %+v, %v; want 3 lines", h, err)
	}
	os.WriteFile(QueuePath(dir), nil, 0o600)
	refusedBoth(t, dir, "3 acknowledged lines were lost")
}

// A head record that does not read is refused, naming it.
func TestQueueHeadThatDoesNotReadIsRefused(t *testing.T) {
	dir, _ := ackedQueue(t, 1)
	os.WriteFile(QueueHeadPath(dir), []byte(`{"lines":-1}`), 0o600)
	refusedBoth(t, dir, QueueHeadPath(dir), "not a queue head record")
}

func fpOf(t *testing.T, event string) string {
	t.Helper()
	var e Entry
	if err := e.setEvent([]byte(event)); err != nil {
		t.Fatal(err)
	}
	return e.FP
}

// A head slot a kill tore (its write stopped half way) is passed over
// for the other, older head, which the file is never behind.
func TestQueueHeadTornSlotIsPassedOver(t *testing.T) {
	dir, _ := ackedQueue(t, 3)
	hp := QueueHeadPath(dir)
	b, err := os.ReadFile(hp)
	if err != nil {
		t.Fatal(err)
	}
	_, seq, err := readQueueHead(hp)
	if err != nil || seq < 3 {
		t.Fatalf("seq %d, %v", seq, err)
	}
	at := int(seq%2) * headSlot
	copy(b[at+40:at+headSlot], bytes.Repeat([]byte{0}, headSlot-40))
	os.WriteFile(hp, b, 0o600)
	h, seq2, err := readQueueHead(hp)
	if err != nil || seq2 != seq-1 || h.Lines != 2 {
		t.Fatalf("after a torn slot: %+v seq %d, %v; want the head before, of 2 lines", h, seq2, err)
	}
	q, err := OpenQueue(dir)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if _, _, err := q.Enqueue("gw", []byte(`{"id":"after"}`)); err != nil {
		t.Fatal(err)
	}
	q.Close()
	if h, _, err := readQueueHead(hp); err != nil || h.Lines != 4 {
		t.Fatalf("head after the next write: %+v, %v; want 4 lines", h, err)
	}
}

// FuzzReadQueueHead: any head record beside any queue file is read into
// a view or refused with an error naming the queue file or the head,
// never a panic.
func FuzzReadQueueHead(f *testing.F) {
	line := `{"op":"enq","drain":1,"node":"a"}`
	one := (&queueHead{Lines: 1, Size: int64(len(line)) + 1, Chain: chainNext("", []byte(line))}).slot(1)
	empty := (&queueHead{}).slot(0)
	f.Add(append(append([]byte{}, empty...), one...), []byte(line+"\n"))
	f.Add(append(append([]byte{}, empty...), empty...), []byte(""))
	f.Add(append(append([]byte{}, one...), one[:100]...), []byte(line+"\n"))
	f.Add([]byte(`[]`), []byte("\n\n"))
	f.Fuzz(func(t *testing.T, head, queue []byte) {
		dir := t.TempDir()
		p, hp := QueuePath(dir), QueueHeadPath(dir)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, queue, 0o600)
		os.WriteFile(hp, head, 0o600)
		if _, err := ReadQueue(dir); err != nil && !strings.Contains(err.Error(), p) && !strings.Contains(err.Error(), hp) {
			t.Fatalf("error %v names neither file", err)
		}
	})
}
