package journal

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/internal/filekind"
)

// FormatVersion is the version of the journal format written by this
// package (its major version: a change readers of an older version would
// misread). Read refuses a journal with a newer version. Version 2 chains
// the records: each line ends with the digest of its content and of the
// line before it (FORMAT.md); Read checks it, so an edited record is
// refused. Version 3 keys the chain (an HMAC under the user's journal
// key, key.go), so an edited record cannot be resealed without the key.
// Version 4 journals how each parallel group ended ("group" records), so
// a resume or a replay answers groups by their path, as it answers calls.
// Version 1 journals are read without the check; journals before version
// 4 are replayed but not resumed (see Resume).
// Version 5 keeps long strings beside the journal (blob.go) and writes a
// call's "start" only when it starts a process group, holding the
// group (a "proc" record before).
const FormatVersion = 5

// GroupsVersion is the first format version that records how parallel
// groups ended.
const GroupsVersion = 4

// UnkeyedVersion is the format version of a trace (Trace), chained with
// unkeyed digests as journals were before version 3: a trace is read by
// people and tools that hold no key, and nothing resumes from it.
const UnkeyedVersion = 2

// FileName is the journal's name inside a run directory.
const FileName = "journal.jsonl"

// Record types (the "t" field of each line).
const (
	TypeHeader  = "header"
	TypeSession = "session" // a resume appended from here on
	TypeStart   = "start"   // a call attempt began
	TypeEnd     = "end"     // a call attempt ended
	TypeProc    = "proc"    // a call attempt started a process group
	TypeJudge   = "judge"   // a judgment was decided
	TypeGroup   = "group"   // a parallel group was decided (a win, a return, an error)
	TypeSource  = "source"  // a spec file the run loaded, kept in the run directory
	// TypeFirst is a `parallel first` loop's winner, as journals before
	// format 4 recorded it; read (a replay takes it as a group record),
	// no longer written.
	TypeFirst = "first"
	TypeFinal = "final" // the run ended
	// Trace-only records (see Trace).
	TypeModel = "model" // a model request of an llm slot's attempt
	TypeError = "error" // a run-time error as raised (also one a try caught)
)

// Statuses of a run (Record.Status of a "final" record, Summary.Status).
const (
	StatusOK          = "ok"          // the run returned a value
	StatusError       = "error"       // the run failed with a runtime error
	StatusInterrupted = "interrupted" // canceled (Ctrl-C); resumable
	StatusDiverged    = "diverged"    // a resume diverged from the journal
	StatusRunning     = "running"     // no final record and a process holds the journal
	StatusIncomplete  = "incomplete"  // no final record and nobody holds it (killed)
	StatusUnreadable  = "unreadable"  // the journal cannot be parsed (Summary.Err says why)
)

// Error kinds of an "end" record.
const (
	KindError    = "error"    // the attempt threw
	KindTimeout  = "timeout"  // the attempt ran out of its `timeout`
	KindCanceled = "canceled" // the run was canceled under it: not a result
)

// Header is the first line of a journal.
type Header struct {
	Type    string `json:"t"`
	Version int    `json:"v"`
	// Prose is the version of prose that wrote the journal
	// (version.String(): "v0.3.0", "devel (commit 1a2b3c4d5e6f)").
	Prose string    `json:"prose,omitempty"`
	RunID string    `json:"run"`
	Time  time.Time `json:"time"`
	// Spec is the absolute path of the .prose.md file and SpecDigest the
	// sha256 of its bytes (hex).
	Spec       string `json:"spec"`
	SpecDigest string `json:"spec_sha256"`
	// Dir is the working directory of the run (relative service paths
	// resolve against it).
	Dir string `json:"dir,omitempty"`
	// Request is the run's resolved request as data (spec, bindings,
	// config, inputs, limits, model settings; secrets withheld), in the
	// form of the package that runs it (run.Request): resume and replay
	// rebuild the run from it.
	Request json.RawMessage `json:"request,omitempty"`
	// RequestLong, when set, are long strings of Request that it holds
	// stubs of rather than their text (see LongString): the journal
	// keeps each once, beside itself, without its text being written
	// into the request first. Not journaled: Request is read back whole.
	RequestLong []LongString `json:"-"`
	Bindings    []KV         `json:"bindings,omitempty"` // the user's --slot text
	Config      []KV         `json:"config,omitempty"`
	Inputs      []KV         `json:"inputs,omitempty"`
	// Redacted names the request's values that were withheld because they
	// looked like a secret ("slot advancer", "config api_key").
	Redacted []string `json:"redacted,omitempty"`
}

// LongString is a long string (at least LongStringMin bytes) that a raw
// JSON field holds a stub of: the string "$blob" at Off, in place of the
// string's JSON text. The writer keeps S beside the journal and the line
// refers to it (FORMAT.md, "Large values"); a writer that keeps nothing
// beside its lines (a trace) writes S there instead.
type LongString struct {
	Off int
	S   string
}

// expandLong is raw with each stub of long written out.
func expandLong(raw []byte, long []LongString) json.RawMessage {
	var out []byte
	from := 0
	for _, l := range long {
		out = append(out, raw[from:l.Off]...)
		out = appendString(out, l.S)
		from = l.Off + len(blobStub)
	}
	return append(out, raw[from:]...)
}

// expanded is a copy of h with Request written out whole.
func (h *Header) expanded() *Header {
	c := *h
	c.Request, c.RequestLong = expandLong(h.Request, h.RequestLong), nil
	return &c
}

// expanded is a copy of rec with Result written out whole.
func (rec *Record) expanded() *Record {
	c := *rec
	long := make([]LongString, len(rec.long))
	for i, l := range rec.long {
		long[i] = LongString{Off: l.off, S: l.s}
	}
	c.Result, c.long = expandLong(rec.Result, long), nil
	return &c
}

// KV is one key and its text as the user wrote it (Redacted: the value was
// withheld).
type KV struct {
	Key      string `json:"k"`
	Value    string `json:"v"`
	Redacted bool   `json:"redacted,omitempty"`
}

// Record is one line after the header. Fields not relevant to its Type are
// zero.
type Record struct {
	Type string    `json:"t"`
	Time time.Time `json:"time"`
	// Calls and judgments.
	// ID is the call's or judgment's path (delegation.Path), written
	// as its Key and read back by delegation.ParsePath.
	ID      delegation.Path `json:"id,omitzero"`
	Pos     string          `json:"pos,omitempty"` // FILE:LINE:COL in the .md
	Attempt int             `json:"attempt,omitempty"`
	Slot    string          `json:"slot,omitempty"`
	Args    string          `json:"args,omitempty"` // sha256 of the arguments' JSON
	// "end": the result (JSON) or the error and its kind; duration in ms.
	Result json.RawMessage `json:"result,omitempty"`
	Err    string          `json:"err,omitempty"`
	Kind   string          `json:"kind,omitempty"`
	// Catchable: the error may be caught by try although its kind alone
	// would not say so (an unreadable model verdict).
	Catchable bool    `json:"catchable,omitempty"`
	MS        float64 `json:"ms,omitempty"`
	// Nested is set when the error was a run-time error of a nested run
	// (a service that runs another spec), to rebuild it exactly.
	Nested *NestedError `json:"nested,omitempty"`
	// "judge".
	N      int    `json:"n,omitempty"` // occurrence of this id (1-based)
	Cond   string `json:"cond,omitempty"`
	Values string `json:"values,omitempty"` // sha256 of the values' JSON
	Holds  *bool  `json:"holds,omitempty"`
	// Pick is the label a choice's judgment picked (Holds is then nil).
	Pick      string `json:"pick,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	Asked     bool   `json:"asked,omitempty"`
	Model     string `json:"model,omitempty"`
	Rule      string `json:"rule,omitempty"`
	TokensIn  int    `json:"tokens_in,omitempty"`
	TokensOut int    `json:"tokens_out,omitempty"`
	// FailClosed: the judgment guarded a side effect (it is part of what
	// a model judge caches a verdict by).
	FailClosed bool `json:"fail_closed,omitempty"`
	// "group" (N is its occurrence at this path, as for "judge"): the
	// winning or the failing iteration (0-based), how many iterations had
	// started (0..started-1), and those of them that ended after the
	// decision, ascending (delegation.GroupOutcome).
	Winner  *int  `json:"winner,omitempty"`
	Failed  *int  `json:"failed,omitempty"`
	Started int   `json:"started,omitempty"`
	Dropped []int `json:"dropped,omitempty"`
	// "source": the name a spec file was loaded by (its digest is
	// SpecDigest); Withheld: it held a secret, and was not kept.
	Path     string `json:"path,omitempty"`
	Withheld bool   `json:"withheld,omitempty"`
	// "first" (before format 4): the iterations that finished (not
	// canceled), in the order they finished, the winner among them.
	Order []int `json:"order,omitempty"`
	// "final": Status, and Result or Err. "session": Mode, Force and the
	// spec's digest at this resume (it differs from the header's after a
	// forced resume of a changed spec).
	SpecDigest string `json:"spec_sha256,omitempty"`
	Status     string `json:"status,omitempty"`
	// ErrKind, in a "final" with status error, is the run-time error's
	// kind (call, judge, throw, ...) and Pos its .md position: a resume
	// finds the call that failed the run by them.
	ErrKind string `json:"err_kind,omitempty"`
	// ErrCode, in a "final" with an error (status error, interrupted,
	// waiting), is the error's code as the run classified it
	// (Options.ErrorCode: "failed", "usage", "step-budget", ...); absent in
	// journals written before it was kept.
	ErrCode string `json:"err_code,omitempty"`
	Mode    string `json:"mode,omitempty"`
	Force   bool   `json:"force,omitempty"`
	// resultJSON: Result is as encodeValue wrote it, valid and compact
	// JSON, which appendRecord need not check again (not journaled).
	resultJSON bool
	// long are the long strings Result holds stubs of, at offsets in
	// Result, their digests known (encodeValue; not journaled).
	long []longRef
	// idKey is ID as the line spells it, when a replay's index scanned
	// the line (scanIndexedInto) and left ID unparsed: it points into
	// the line, read while the line is (not journaled).
	idKey []byte
	// "session": the version of prose that resumed the run.
	Prose string `json:"prose,omitempty"`
	// Trace-only fields (see Trace): the arguments' value on "start";
	// the request and reply on "model"; totals and model usage on
	// "final".
	ArgsValue    json.RawMessage `json:"args_value,omitempty"`
	System       string          `json:"system,omitempty"`
	SystemDigest string          `json:"system_sha256,omitempty"`
	Prompt       string          `json:"prompt,omitempty"`
	Reply        string          `json:"reply,omitempty"`
	Totals       any             `json:"totals,omitempty"`
	ModelUsage   any             `json:"model_usage,omitempty"`
	// Request, in a "session", is the resume's request (as
	// Header.Request, secrets withheld): values given again replace the
	// journaled ones for later resumes and replays (see Log.Request).
	Request json.RawMessage `json:"request,omitempty"`
	// "proc": the process group a call attempt's program runs in, and
	// its identity (internal/procgroup's Group.Ident): a resume ends the
	// group when its attempt has no "end" and it is still the same group.
	PGID int    `json:"pgid,omitempty"`
	Proc string `json:"proc,omitempty"`
	// "gate" and "answer": the gate's question and answer (gate.go).
	Gate *GateRecord `json:"gate,omitempty"`
}

// NestedError is the journaled form of a *delegation.Error returned by a
// service.
type NestedError struct {
	Pos   diag.Position `json:"pos"`
	Msg   string        `json:"msg"`
	Kind  string        `json:"kind"`
	Chain []string      `json:"chain,omitempty"`
	// Catchable is the error's own Catchable() (a judge error may be
	// caught or not depending on its cause).
	Catchable bool `json:"catchable,omitempty"`
}

// Log is a parsed journal.
type Log struct {
	Path    string
	Header  *Header
	Records []*Record
	// Torn is set when the last line was incomplete (the writer was killed
	// mid-write); it is not among Records. Size is the length of the valid
	// prefix of the file, where an append must start.
	Torn bool
	Size int64
	// LastSum is the digest of the last valid line, which the next line
	// appended chains to (set once the journal is read; last holds it,
	// lastLen bytes of it, while it is).
	LastSum string
	last    [2 * sha256.Size]byte
	lastLen int
	// key is the key the chain was checked with (nil: unkeyed); sum
	// is the hash each line's digest is computed with (newSum(key)).
	key []byte
	sum hash.Hash
	// keep, when set, is given each record with where its line is (the
	// offset and length, newline included) and says whether Records
	// holds it: a resume or replay indexes a journal without holding it
	// (indexer).
	keep func(rec *Record, off int64, n int, line []byte) bool
	// scratch is the Record lines are scanned into while indexing; keep
	// copies it when it holds it anywhere else than in Records.
	scratch *Record
	// noPos: the index reads no record's position (a replay's).
	noPos bool
}

// MaxRecordBytes bounds one line of a journal that Read accepts: twice
// the default value ceiling (a result written out, escaped) and room for
// the rest of the record. A run whose ceiling is raised reads its journal
// with a bound raised as much (Options.MaxValueBytes). A longer last line
// without its newline is a torn write like any other, skipped without
// being held.
const MaxRecordBytes = 2*delegation.DefaultMaxValueBytes + 1<<20

func recordBound(maxValue int64) int {
	return int(max(MaxRecordBytes, 2*maxValue+1<<20))
}

// sumKey starts how a line's digest ends it: ,"sum":"HEX"}
const sumKey = `,"sum":"`

// chainSum is the digest of a line: sha256 of the previous line's sum,
// a newline, and the line's JSON without its sum; with a key (format
// version 3) the HMAC-SHA256 of the same under the key.
func chainSum(key []byte, prev string, body []byte) string {
	h := newSum(key)
	h.Write([]byte(prev))
	h.Write([]byte{'\n'})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// sealLine appends sum to the JSON object body as its last field, and the
// newline.
func sealLine(body []byte, sum string) []byte {
	line := make([]byte, 0, len(body)+len(sumKey)+len(sum)+3)
	line = append(line, body[:len(body)-1]...)
	line = append(line, sumKey...)
	line = append(line, sum...)
	return append(line, '"', '}', '\n')
}

// splitSeal splits a sealed line (sealLine) into its JSON up to the sum
// field, without a copy and so without the closing brace (chainSumWith
// hashes it back in), and the sum; ok is false for a line without a sum.
func splitSeal(line []byte) (body []byte, sum string, ok bool) {
	b, raw, ok := splitSealRaw(line)
	return b, string(raw), ok
}

// splitSealRaw is splitSeal with the sum as the line's bytes.
func splitSealRaw(line []byte) (body, sum []byte, ok bool) {
	const n = 64 + 2 // hex digits, closing quote and brace
	i := len(line) - n - len(sumKey)
	if i < 1 || string(line[i:i+len(sumKey)]) != sumKey || line[len(line)-1] != '}' || line[len(line)-2] != '"' {
		return nil, nil, false
	}
	return line[:i], line[i+len(sumKey) : len(line)-2], true
}

var newline = []byte{'\n'}
var closeBrace = []byte{'}'}

// chainSumMatches reports whether sum (hex) is chainSumWith of body
// after prev, without allocating: a reader checks every line so.
func chainSumMatches(h hash.Hash, prev, body, sum []byte) bool {
	h.Reset()
	h.Write(prev)
	h.Write(newline)
	h.Write(body)
	h.Write(closeBrace)
	var d [sha256.Size]byte
	var x [2 * sha256.Size]byte
	hex.Encode(x[:], h.Sum(d[:0]))
	return bytes.Equal(x[:], sum)
}

func newSum(key []byte) hash.Hash {
	if key == nil {
		return sha256.New()
	}
	return hmac.New(sha256.New, key)
}

// chainSumWith is chainSum of body followed by a closing brace, with h,
// newSum of the key, reset first: a Log reads all its lines with one.
func chainSumWith(h hash.Hash, prev string, body []byte) string {
	h.Reset()
	h.Write([]byte(prev))
	h.Write([]byte{'\n'})
	h.Write(body)
	h.Write([]byte{'}'})
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}

// Digest returns the hex sha256 of b.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ValueDigest returns the hex sha256 of v's JSON (ordered keys), or "" when
// v cannot be encoded.
func ValueDigest(v delegation.Value) string {
	if o, ok := v.(*delegation.Object); ok && o == nil {
		v = nil
	}
	sum, err := delegation.Sum(v) // remembered by a frozen value
	if err != nil {
		return ""
	}
	return hex.EncodeToString(sum[:])
}

// ReadFile parses the journal at path.
func ReadFile(path string) (*Log, error) { return readFile(context.Background(), path) }

// readFile is ReadFile stopping with ctx's error once ctx is canceled.
func readFile(ctx context.Context, path string) (*Log, error) { return readFileKey(ctx, path, nil) }

// readFileKey is readFile checking a keyed journal with key (nil: the
// user's).
func readFileKey(ctx context.Context, path string, key []byte) (*Log, error) {
	// Only a regular file is a journal: opening a FIFO blocks until a
	// writer comes (Ctrl-C cannot stop it), and a device such as
	// /dev/zero reads without end.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %s, not a regular file, so not a journal", path, filekind.Describe(st.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(ctx, f, path, &Log{key: key}, MaxRecordBytes)
}

// readOpen parses the journal open as f (at its start), into l (see
// readLog). Past the last newline of the file is a torn write: it is not
// read at all, however long it is (a kill in the middle of a large
// record).
func readOpen(ctx context.Context, f *os.File, path string, l *Log, bound int) (*Log, error) {
	var r io.Reader = ctxReader{ctx, f}
	size, end, err := lastNewline(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if end < size {
		r = io.LimitReader(r, end)
	}
	l.Path = path // where its large values are (blob.go)
	l, err = readLog(r, l, bound)
	if l != nil && end < size {
		l.Torn = true
	}
	if l != nil {
		l.Path = path
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := l.inItsDirectory(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// inItsDirectory refuses a run journal (a file named FileName) whose
// header names another run than the directory it is in: the header's
// run id is under the chain's digest, so a journal copied or moved from
// another run's directory (two runs' journals swapped) still checks
// record by record, and would otherwise answer for a run it is not
// (decided: the run id in the header is the run's identity; a journal
// without one, or a file of another name such as a trace, is not held to
// it).
func (l *Log) inItsDirectory(path string) error {
	if filepath.Base(path) != FileName || l.Header == nil || l.Header.RunID == "" {
		return nil
	}
	if dir := filepath.Base(filepath.Dir(path)); l.Header.RunID != dir {
		return fmt.Errorf("line 1: the header is of run %s, not of run %s, whose directory holds it: the journal was moved or copied from another run's directory, and prose refuses to resume or replay it (put it back in %s)", l.Header.RunID, dir, l.Header.RunID)
	}
	return nil
}

// Read parses a journal. A last line without its newline, or one that is
// not valid JSON, is a torn write: it is ignored and Log.Torn is set. Any
// other invalid line is an error naming its line number.
//
// A keyed journal (format version 3) is checked with the user's journal
// key (UserKey).
func Read(r io.Reader) (*Log, error) { return readLog(r, &Log{}, MaxRecordBytes) }

// readLog reads a journal into l (its key set to check a keyed journal
// with, else the user's; its keep set to index it), refusing a line of
// more than bound bytes.
func readLog(r io.Reader, l *Log, bound int) (*Log, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte // a line longer than br's buffer, pieced together
	for lineNo := 1; ; lineNo++ {
		// The line is read in place (no copy) when it fits the buffer:
		// parseLine keeps nothing of it (json.Unmarshal copies).
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull && len(long) <= bound {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			for err == bufio.ErrBufferFull { // too long: skip the rest
				_, err = br.ReadSlice('\n')
			}
			line = long
		}
		if len(line) > bound {
			if err == io.EOF {
				l.Torn = true // cut short, and not held whole
				break
			}
			if err == nil {
				return nil, fmt.Errorf("line %d: a record of more than %d bytes, more than a journal holds (the value ceiling, --max-value-bytes, bounds what a record may cost): the journal was damaged", lineNo, bound)
			}
		}
		if err == io.EOF {
			l.Torn = len(line) > 0
			break
		}
		if err != nil {
			return nil, err
		}
		if perr := l.parseLine(lineNo, line); perr != nil {
			line = append([]byte(nil), line...) // Peek may move the buffer under it
			if _, peek := br.Peek(1); peek == io.EOF && !json.Valid(bytes.TrimRight(line, "\n")) {
				l.Torn = true // a garbled last line: the write was cut short
				break
			}
			return nil, perr
		}
		l.Size += int64(len(line))
	}
	l.LastSum = string(l.last[:l.lastLen])
	if l.Header == nil {
		return l, fmt.Errorf("no journal header (empty or torn file)")
	}
	return l, nil
}

func (l *Log) parseLine(lineNo int, line []byte) error {
	n := len(line)
	line = bytes.TrimRight(line, "\n")
	raw := line // as read and checked, without its large values
	if l.Header == nil {
		// The version comes before the digest: a newer major version may
		// seal its records another way, and its journal is not damaged.
		var v struct {
			Type    string `json:"t"`
			Version int    `json:"v"`
			Prose   string `json:"prose"`
		}
		if json.Unmarshal(line, &v) == nil && v.Type == TypeHeader && v.Version > FormatVersion {
			by := "a newer prose"
			if v.Prose != "" {
				by = "prose " + v.Prose
			}
			return fmt.Errorf("line %d: journal format version %d was written by %s (this one reads version %d): resume or replay it with that prose", lineNo, v.Version, by, FormatVersion)
		}
	}
	if l.Header == nil {
		var v struct {
			Version int `json:"v"`
		}
		if json.Unmarshal(line, &v) == nil && v.Version >= 3 {
			if l.key == nil {
				k, err := UserKey()
				if err != nil {
					return err
				}
				l.key = k
			}
		} else {
			l.key = nil // an older journal: unkeyed
		}
	}
	if body, sum, ok := splitSealRaw(line); ok {
		if l.sum == nil || l.Header == nil {
			l.sum = newSum(l.key) // the key is known once the header is read
		}
		if !chainSumMatches(l.sum, l.last[:l.lastLen], body, sum) {
			if json.Valid(line) {
				return &EditedError{Line: lineNo, Keyed: l.key != nil}
			}
			return fmt.Errorf("line %d: not valid JSON", lineNo)
		}
		l.lastLen = copy(l.last[:], sum)
	} else if (l.Header == nil && l.key != nil || l.Header != nil && l.Header.Version >= 2) && json.Valid(line) {
		return &EditedError{Line: lineNo, Keyed: l.key != nil}
	}
	refs, rest, err := splitBlobs(line)
	if err != nil {
		return fmt.Errorf("line %d: %v: the journal was damaged or edited", lineNo, err)
	}
	full := func() ([]byte, error) {
		if refs == nil {
			return line, nil
		}
		b, err := restoreBlobs(l.dir(), rest, refs)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
		return b, nil
	}
	if l.Header == nil {
		line, err := full()
		if err != nil {
			return err
		}
		var h Header
		if err := json.Unmarshal(line, &h); err != nil || h.Type != TypeHeader {
			return fmt.Errorf("line %d: not a journal header", lineNo)
		}
		switch {
		case h.Version < 1:
			return fmt.Errorf("line %d: journal format version %d is not supported (this prose reads version %d)", lineNo, h.Version, FormatVersion)
		}
		l.Header = &h
		return nil
	}
	if l.keep != nil {
		// Indexed: a record the Log will not hold is read no further
		// than the index needs (scanIndexed).
		if l.scratch == nil {
			l.scratch = new(Record)
		}
		if rec, ok := scanIndexedInto(rest, l.scratch, !l.noPos); ok {
			if l.keep(rec, l.Size, n, raw) {
				l.Records = append(l.Records, rec)
				l.scratch = nil // held
			}
			return nil
		}
	}
	line, err = full()
	if err != nil {
		return err
	}
	rec := new(Record)
	if err := json.Unmarshal(line, rec); err != nil || rec.Type == "" {
		return fmt.Errorf("line %d: invalid journal record, and not the last line (a kill can only cut the last one short): the journal was damaged or edited", lineNo)
	}
	if l.keep == nil || l.keep(rec, l.Size, n, raw) {
		l.Records = append(l.Records, rec)
	}
	return nil
}

// lastNewline returns the size of f and the offset just past its last
// newline (0 when it has none), reading backwards from its end in small
// pieces.
func lastNewline(f *os.File) (size, end int64, err error) {
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	size = st.Size()
	buf := make([]byte, 64<<10)
	for at := size; at > 0; {
		n := int64(len(buf))
		if at < n {
			n = at
		}
		at -= n
		if _, err := f.ReadAt(buf[:n], at); err != nil && err != io.EOF {
			return 0, 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return size, at + int64(i) + 1, nil
		}
	}
	return size, 0, nil
}

// dir is the run directory of the journal (its large values are under
// it), "" when it was not read from a file.
func (l *Log) dir() string {
	if l.Path == "" {
		return ""
	}
	return filepath.Dir(l.Path)
}

// EditedError reports a journal line whose digest does not match its
// content or the line before it: the journal was edited or damaged, and a
// resume or replay of it could return another result than the run did.
type EditedError struct {
	Line int
	// Keyed is set for a keyed journal (format version 3), whose first
	// line fails also when another key sealed it.
	Keyed bool
}

func (e *EditedError) Error() string {
	if e.Keyed && e.Line == 1 {
		return "line 1: the header does not match its digest under this user's journal key (" + KeyFileEnv + " names another key file): the journal was written with another key, by another user, or edited and resealed, and prose refuses to resume or replay it"
	}
	return fmt.Sprintf("line %d: the record does not match its digest (each record's \"sum\" covers it and the one before it): the journal was edited or damaged, and prose refuses to resume or replay it", e.Line)
}

// Final returns the outcome of the latest session: the last "final" record
// after the last "session" record, or nil when that session did not finish.
func (l *Log) Final() *Record {
	for i := len(l.Records) - 1; i >= 0; i-- {
		switch l.Records[i].Type {
		case TypeFinal:
			return l.Records[i]
		case TypeSession:
			return nil
		}
	}
	return nil
}

// SpecDigest is the digest of the spec the journal now belongs to: the
// header's, or the one a later (forced) resume ran with.
func (l *Log) SpecDigest() string {
	d := l.Header.SpecDigest
	for _, r := range l.Records {
		if r.Type == TypeSession && r.SpecDigest != "" {
			d = r.SpecDigest
		}
	}
	return d
}

// Request is the request later resumes and replays re-run: that of the
// last session that set one and did not stop at a divergence (its values
// were never used), else the header's.
func (l *Log) Request() json.RawMessage {
	req := l.Header.Request
	var cand json.RawMessage
	for _, r := range l.Records {
		switch {
		case r.Type == TypeSession:
			if cand != nil {
				req = cand
			}
			cand = r.Request
		case r.Type == TypeFinal && r.Status == StatusDiverged:
			cand = nil
		}
	}
	if cand != nil {
		req = cand
	}
	return req
}

// completed reports whether an "end" record holds a usable outcome (not a
// cancellation).
func (r *Record) completed() bool { return r.Type == TypeEnd && r.Kind != KindCanceled }

// ctxReader reads r until ctx is canceled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
