package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/internal/wholefile"
)

// The queue's head record (decided): .serve/queue.head.json beside the
// queue file says what the file held when its last acknowledged line was
// made durable: N lines in the first S bytes, whose hash chain is C:
// c0 = "", and c(i) = "sha256:" + hex(sha256(c(i-1) + "\n" + line i))
// (the line without its newline). A queue file that holds fewer than N
// whole lines lost acknowledged triggers (emptied, cut, an older copy
// put back), and one whose first N lines chain to another hash was
// edited (a line made to name another node, say); the file is refused,
// naming it and what was lost, rather than read as the queue: a shorter
// queue would drop acknowledged triggers without a word.
//
// The file is two slots of headSlot bytes, each a JSON line padded with
// spaces, {"seq":K,"lines":N,"size":S,"chain":C,"crc":X} (X the CRC-32
// of "K N S C" in 8 hex digits); the valid slot of the higher seq is the
// head. It is created whole (a temporary file, fsync, rename, fsync of
// the directory), and then each head is written over the slot of the
// older one and fsync'd: one sync a group of acknowledgements, not the
// three of a file written whole, and a kill in the middle of a slot
// leaves the other, older head, which the file is never behind.
//
// Write order (decided): a line is written, the queue file fsync'd, then
// the head written and fsync'd, and only then is the trigger
// acknowledged. So the head is never ahead of the durable lines: a kill
// at any point leaves the file at or beyond its head, never a false
// refusal. A line written, or even fsync'd, whose head was not written
// yet was never acknowledged; it is kept when whole (its drain runs, as
// it did before heads existed) and dropped when torn, and the next
// write's head covers it. A queue file without a head (written before
// heads existed) opens as it is, and its first write gives it one.
type queueHead struct {
	Lines int64  `json:"lines"`
	Size  int64  `json:"size"`
	Chain string `json:"chain"`
}

// QueueHeadPath is the head record of a state directory's queue file.
func QueueHeadPath(stateDir string) string {
	return filepath.Join(stateDir, ".serve", "queue.head.json")
}

// HasQueue reports whether stateDir has a queue: its queue file, or a
// head record (whose file is gone: OpenQueue refuses it).
func HasQueue(stateDir string) bool {
	for _, p := range []string{QueuePath(stateDir), QueueHeadPath(stateDir)} {
		if _, err := os.Lstat(p); err == nil {
			return true
		}
	}
	return false
}

// chainNext is the chain after line (without its newline).
func chainNext(chain string, line []byte) string {
	h := sha256.New()
	h.Write([]byte(chain))
	h.Write([]byte{'\n'})
	h.Write(line)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// headSlot is the size of each of the head file's two slots.
const headSlot = 256

// slotText is what a slot's crc covers.
func (h *queueHead) slotText(seq uint64) string {
	return fmt.Sprintf("%d %d %d %s", seq, h.Lines, h.Size, h.Chain)
}

// slot is h as the slot of sequence number seq.
func (h *queueHead) slot(seq uint64) []byte {
	b, _ := json.Marshal(struct {
		Seq uint64 `json:"seq"`
		queueHead
		CRC string `json:"crc"`
	}{seq, *h, fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(h.slotText(seq))))})
	out := bytes.Repeat([]byte{' '}, headSlot)
	copy(out, b)
	out[headSlot-1] = '\n'
	return out
}

// readSlot reads one slot; ok is false when it does not read or its crc
// does not match (a write a kill tore).
func readSlot(b []byte) (h queueHead, seq uint64, ok bool) {
	var v struct {
		Seq uint64 `json:"seq"`
		queueHead
		CRC string `json:"crc"`
	}
	if json.Unmarshal(bytes.TrimSpace(b), &v) != nil {
		return h, 0, false
	}
	h = v.queueHead
	if v.CRC != fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(h.slotText(v.Seq)))) ||
		h.Lines < 0 || h.Size < 0 || h.Lines > h.Size || h.Lines == 0 && h.Size != 0 ||
		!(h.Lines == 0 && h.Chain == "" || isChain(h.Chain)) {
		return h, 0, false
	}
	return h, v.Seq, true
}

// readQueueHead reads the head record p (nil when there is none), and
// the sequence number of its slot. A slot a kill tore is passed over
// for the other; a file neither of whose slots reads is refused.
func readQueueHead(p string) (*queueHead, uint64, error) {
	b, err := filekind.ReadFile(p) // a named pipe is refused, not waited on
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var best *queueHead
	var bestSeq uint64
	if len(b) == 2*headSlot {
		for i := range 2 {
			if h, seq, ok := readSlot(b[i*headSlot : (i+1)*headSlot]); ok && (best == nil || seq > bestSeq) {
				best, bestSeq = &h, seq
			}
		}
	}
	if best == nil {
		return nil, 0, fmt.Errorf("%s: not a queue head record (restore it from a backup; moving it aside makes the queue file unchecked)", p)
	}
	return best, bestSeq, nil
}

// isChain reports whether s is a chain hash as a head holds it.
func isChain(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// headWriter writes a queue's head records (under the queue's smu).
type headWriter struct {
	path string
	f    *os.File // nil until the file is opened for writing
	seq  uint64   // the sequence number of the head on disk
	made bool     // the file exists
}

// write makes h the head, durably: in the slot of the older head, or,
// when there is no file yet, as a file written whole.
func (w *headWriter) write(h queueHead) error {
	seq := w.seq + 1
	if !w.made {
		empty := (&queueHead{}).slot(0)
		b := append(h.slot(seq), empty...)
		if seq%2 == 1 {
			b = append(empty, h.slot(seq)...)
		}
		if err := wholefile.Write(w.path, b, 0o600); err != nil {
			return err
		}
		w.made, w.seq = true, seq
		return nil
	}
	if w.f == nil {
		f, err := os.OpenFile(w.path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		w.f = f
	}
	if _, err := w.f.WriteAt(h.slot(seq), int64(seq%2)*headSlot); err != nil {
		return err
	}
	if err := w.f.Sync(); err != nil {
		return err
	}
	w.seq = seq
	return nil
}

func (w *headWriter) close() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}

// headCheck follows the lines of a queue file as they are read, and
// checks them against its head record.
type headCheck struct {
	path, headPath string
	head           *queueHead
	lines, size    int64
	chain          string
	// ok: the lines the head covers were read and chain to its hash.
	ok bool
}

func newHeadCheck(path, headPath string, h *queueHead) *headCheck {
	return &headCheck{path: path, headPath: headPath, head: h, ok: h == nil || h.Lines == 0}
}

// line takes the next whole line (without its newline); it returns an
// error when the lines the head covers, read whole, are not the ones it
// was written for.
func (c *headCheck) line(b []byte) error {
	c.lines++
	c.size += int64(len(b)) + 1
	c.chain = chainNext(c.chain, b)
	if h := c.head; h != nil && c.lines == h.Lines {
		if c.size != h.Size || c.chain != h.Chain {
			return c.edited()
		}
		c.ok = true
	}
	return nil
}

func (c *headCheck) edited() error {
	return fmt.Errorf("%s: its first %d lines are not the ones its head record (%s) was written for as they were acknowledged: the file was edited (a line made to name another node or drain, say) or replaced; its events are not delivered; restore it from a backup", c.path, c.head.Lines, c.headPath)
}

// end checks, once every whole line was read, that none the head covers
// is missing.
func (c *headCheck) end() error {
	if c.ok {
		return nil
	}
	h := c.head
	if c.size >= h.Size {
		return c.edited() // as many bytes, fewer lines: joined or edited
	}
	lost := fmt.Sprintf("%d acknowledged lines were lost", h.Lines-c.lines)
	if h.Lines-c.lines == 1 {
		lost = "1 acknowledged line was lost"
	}
	return fmt.Errorf("%s: holds %d lines (%d bytes), but its head record (%s) says %d were written and acknowledged (%d bytes): %s (the file was emptied, cut, or an older copy put back), and the triggers, holds and outcomes they recorded with them; restore it from a backup (moving both files aside starts an empty queue, and loses them)",
		c.path, c.lines, c.size, c.headPath, h.Lines, h.Size, lost)
}
