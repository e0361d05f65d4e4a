package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/internal/wholefile"
)

// The queue's head record (decided): .serve/queue.head.json beside the
// queue file says what the file held when its last acknowledged line was
// made durable:
//
//	{"lines":N,"size":S,"chain":"sha256:HEX"}
//
// N lines in the first S bytes, whose hash chain is chain: c0 = "", and
// c(i) = "sha256:" + hex(sha256(c(i-1) + "\n" + line i)) (the line
// without its newline). A queue file that holds fewer than N whole lines
// lost acknowledged triggers (emptied, cut, an older copy put back), and
// one whose first N lines chain to another hash was edited (a line made
// to name another node, say); the file is refused, naming it and what
// was lost, rather than read as the queue: a shorter queue would drop
// acknowledged triggers without a word.
//
// Write order (decided): a line is written, the file fsync'd, then the
// head written whole (a temporary file, fsync, rename, fsync of the
// directory), and only then is the trigger acknowledged. So the head is
// never ahead of the durable lines: a kill at any point leaves the file
// at or beyond its head, never a false refusal. A line written, or even
// fsync'd, whose head was not written yet was never acknowledged; it is
// kept when whole (its drain runs, as it did before heads existed) and
// dropped when torn, and the next write's head covers it. A queue file
// without a head (written before heads existed) opens as it is, and its
// first write gives it one.
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

// readQueueHead reads the head record p (nil when there is none).
func readQueueHead(p string) (*queueHead, error) {
	b, err := filekind.ReadFile(p) // a named pipe is refused, not waited on
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var h queueHead
	if err := json.Unmarshal(b, &h); err != nil || h.Lines < 0 || h.Size < 0 || h.Lines > h.Size || h.Lines == 0 && h.Size != 0 ||
		!(h.Lines == 0 && h.Chain == "" || isChain(h.Chain)) {
		return nil, fmt.Errorf("%s: not a queue head record (restore it from a backup; moving it aside makes the queue file unchecked)", p)
	}
	return &h, nil
}

// isChain reports whether s is a chain hash as writeQueueHead writes it.
func isChain(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// writeQueueHead writes h as the head record p, whole and durably.
func writeQueueHead(p string, h queueHead) error {
	b, _ := json.Marshal(h)
	return wholefile.Write(p, append(b, '\n'), 0o600)
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
