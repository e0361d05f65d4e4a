package journal

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/proselang/prose/delegation"
)

type callKey struct {
	id      delegation.Path
	attempt int
}

type judgeKey struct {
	id delegation.Path
	n  int
}

// entry is where a record the index answers from is in the journal file:
// the index holds these, not the records, and reads a record when it is
// asked for (index.load), so a replay of a long run holds what the run
// holds, not the journal. An entry is found by a hash of its key; the
// record read back says whether it is the one asked for (two keys with
// one hash are told apart so).
type entry struct {
	key uint32 // hashKey of the path and the attempt or occurrence
	n   int32  // bytes of the line, its newline included
	off int64  // of the line: later lines supersede earlier ones
	// check is a hash of the line (without its newline) as the index
	// read it and checked its digest, under a seed of the index's own
	// (index.seed): the line read back is that line, or it is refused
	// (index.line).
	check uint64
}

// table is the entries of one kind of record, sorted by key (and by
// offset among equal keys) once built.
type table []entry

func (t table) sort() {
	slices.SortFunc(t, func(a, b entry) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.off, b.off) // lines are distinct
	})
}

// span returns where the entries of key h are in t: t[i:j], latest
// last.
func (t table) span(h uint32) (i, j int) {
	i = sort.Search(len(t), func(i int) bool { return t[i].key >= h })
	j = i
	for j < len(t) && t[j].key == h {
		j++
	}
	return i, j
}

// directory says where in a sorted table the keys of each range
// begin: the entries whose keys' top bits are p are t[at[p]:at[p+1]],
// two or so (keys are hashes, spread evenly), so that an answer finds
// its entry without a search of the whole table, which would miss the
// processor's caches at every step of a long journal's.
type directory struct {
	at    []uint32
	shift uint
}

func newDirectory(t table) directory {
	bits := 0
	for 1<<bits < len(t)/2 {
		bits++
	}
	d := directory{at: make([]uint32, 1<<bits+1), shift: 32 - uint(bits)}
	k := 0
	for p := range 1 << bits {
		for k < len(t) && t[k].key>>d.shift < uint32(p) {
			k++
		}
		d.at[p] = uint32(k)
	}
	d.at[1<<bits] = uint32(len(t))
	return d
}

// span is t.span(h), t being the table d was made of.
func (d directory) span(t table, h uint32) (i, j int) {
	if len(d.at) == 0 {
		return t.span(h)
	}
	p := h >> d.shift
	i, j = t[d.at[p]:d.at[p+1]].span(h)
	return i + int(d.at[p]), j + int(d.at[p])
}

// distinct is the number of distinct keys.
func (t table) distinct() int {
	n := 0
	for i := range t {
		if i == 0 || t[i].key != t[i-1].key {
			n++
		}
	}
	return n
}

// hashKey is the FNV-1a hash of the path's key and n's eight bytes,
// little-endian, mixed by fmix64, its top 32 bits; computed without
// allocating: every answer hashes its key. Two keys of one hash cost a
// record read back, not a wrong answer (index.answer).
func hashKey(p delegation.Path, n int) uint32 { return hashOf(p.Key(), n) }

// hashOf is hashKey of the path whose key is k.
func hashOf[K string | []byte](k K, n int) uint32 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := 0; i < len(k); i++ {
		h ^= uint64(k[i])
		h *= prime
	}
	u := uint64(n)
	for range 8 {
		h ^= u & 0xff
		h *= prime
		u >>= 8
	}
	// fmix64 (MurmurHash3's finalizer): every bit of the key moves the
	// top bits, by which a directory finds the key's range.
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return uint32(h >> 32)
}

// index holds where the records of earlier sessions are that a resume or
// a replay answers from. A later record for the same key supersedes an
// earlier one (a forced resume re-ran it).
type index struct {
	f    io.ReaderAt // the journal
	dir  string      // its run directory (large values, blob.go)
	path string      // the journal's file, as errors name it
	seed maphash.Seed
	// win is the part of f at winOff that line read last. winMu guards
	// it, and the tables and their directories once the index is built
	// (release drops them).
	winMu  sync.Mutex
	win    []byte
	winOff int64
	calls  table // completed "end" records
	judges table
	groups table // "group" records (and "first" records of older journals)
	ncalls int   // distinct attempts in calls
	// callsAt, judgesAt and groupsAt are the tables' directories.
	callsAt, judgesAt, groupsAt directory
	// memo, when resuming, holds the model's verdicts of earlier
	// sessions by what a model judge caches a verdict by (memoKey).
	memo map[string]entry
	// final is where the outcome of the latest session is (see
	// Log.Final; n 0: none), finalRec that record without its result,
	// and finalSum the sha256 of its result when it has one that refers
	// to no withheld secret: a replay that returns the same bytes has
	// the same result, and reads the record no more (checkOutcome).
	final    entry
	finalRec *Record
	finalSum *[sha256.Size]byte
}

// indexer builds an index from the records of a journal as they are read
// (Log.keep), keeping none of them but those the Log must still hold.
type indexer struct {
	x      *index
	mode   Mode
	starts map[callKey]string // resuming: the position of each attempt
	failed []failedEnd        // resuming: the failed attempts, in order
	// failedJudges, resuming, are the judgments that ended in an error
	// (key: their path and occurrence), in order.
	failedJudges []failedEnd
	// procs, resuming, are the process groups of attempts without an
	// "end" (yet): a resume ends them (endLeftovers); a replay starts
	// nothing and ends nothing.
	procs map[callKey][]*Record
}

// failedEnd is a completed attempt that failed, where its call is, and
// where its record is.
type failedEnd struct {
	key callKey
	pos string
	off int64
}

func newIndexer(f io.ReaderAt, dir string, mode Mode) *indexer {
	x := &index{f: f, dir: dir, path: FileName, seed: maphash.MakeSeed()}
	if dir != "" {
		x.path = filepath.Join(dir, FileName)
	}
	b := &indexer{mode: mode, x: x}
	if mode == Resuming {
		b.procs = map[callKey][]*Record{}
		b.starts = map[callKey]string{}
		b.x.memo = map[string]entry{}
	}
	return b
}

// keep notes rec, read from line (without its newline) at off (n bytes
// with it), and reports whether the Log keeps it: the records a Log's
// methods read (sessions, finals), those that refer to the environment's
// secrets (MissingSecrets) and the process groups still open at the end
// (endLeftovers).
func (b *indexer) keep(rec *Record, off int64, n int, line []byte) bool {
	e := entry{off: off, n: int32(n), check: maphash.Bytes(b.x.seed, line)}
	hash := func(n int) uint32 {
		if rec.idKey != nil {
			return hashOf(rec.idKey, n)
		}
		return hashKey(rec.ID, n)
	}
	k := callKey{rec.ID, rec.Attempt}
	switch rec.Type {
	case TypeStart:
		if b.starts != nil {
			b.starts[k] = rec.Pos
		}
		if rec.PGID != 0 && b.procs != nil { // since format 5, the attempt's first process group
			c := *rec // rec is the scanner's, read into again
			b.procs[k] = append(b.procs[k], &c)
		}
		return false
	case TypeEnd:
		if b.procs != nil {
			delete(b.procs, k)
		}
		if rec.completed() {
			e.key = hash(rec.Attempt)
			b.x.calls = append(b.x.calls, e)
			if rec.Err != "" && b.starts != nil {
				pos := rec.Pos // since format 5; before, its "start" said
				if pos == "" {
					pos = b.starts[k]
				}
				b.failed = append(b.failed, failedEnd{k, pos, e.off})
			}
		}
	case TypeJudge:
		e.key = hash(rec.N)
		b.x.judges = append(b.x.judges, e)
		if rec.Kind != "" && b.mode == Resuming {
			b.failedJudges = append(b.failedJudges, failedEnd{callKey{rec.ID, rec.N}, rec.Pos, e.off})
		}
		if b.x.memo != nil && rec.Kind == "" && rec.Rule == "" && rec.Model != "" && rec.Pick == "" {
			b.x.memo[memoKey(posFile(rec.Pos), rec.Cond, rec.Values, rec.FailClosed)] = e
		}
	case TypeGroup, TypeFirst:
		e.key = hash(max(rec.N, 1))
		b.x.groups = append(b.x.groups, e)
	case TypeProc:
		if b.procs != nil {
			c := *rec
			b.procs[k] = append(b.procs[k], &c)
		}
		return false // kept, while open, in procs
	case TypeSession:
		b.x.final, b.x.finalRec, b.x.finalSum = entry{}, nil, nil
		return true
	case TypeSource:
		return true // a resume keeps each source once
	case TypeFinal:
		b.x.final, b.x.finalRec, b.x.finalSum = e, rec, nil
		if len(rec.Result) > 0 && !refersToSecret(rec) {
			sum := sha256.Sum256(rec.Result)
			b.x.finalSum = &sum
		}
		rec.Result = nil // read again when asked for (finalRecord)
		return true
	}
	return refersToSecret(rec)
}

// done completes the index of l: its final outcome, the open process
// groups, and, for a resume of a run that failed, without the attempts of
// the call that failed it (see failedCall), so that call runs live again.
func (b *indexer) done(l *Log) *index {
	for _, recs := range b.procs {
		l.Records = append(l.Records, recs...)
	}
	if b.mode == Resuming {
		if id, ok := failedCall(l, b.failed); ok {
			b.x.calls = b.x.retry(id, b.failed)
		}
		b.x.judges = rejudge(l, b.x.judges, b.failedJudges)
	}
	// Held for the whole run: no room to spare.
	b.x.calls = append(table(nil), b.x.calls...)
	b.x.judges = append(table(nil), b.x.judges...)
	b.x.groups = append(table(nil), b.x.groups...)
	b.x.calls.sort()
	b.x.judges.sort()
	b.x.groups.sort()
	b.x.ncalls = b.x.calls.distinct()
	b.x.callsAt, b.x.judgesAt, b.x.groupsAt = newDirectory(b.x.calls), newDirectory(b.x.judges), newDirectory(b.x.groups)
	return b.x
}

// retry is calls without the attempts of call id and the failed attempts
// inside it (failed lists every failed attempt).
func (x *index) retry(id delegation.Path, failed []failedEnd) table {
	drop := map[int64]bool{}
	for _, f := range failed {
		if f.key.id.Within(id) {
			drop[f.off] = true
		}
	}
	out := x.calls[:0]
	for _, e := range x.calls {
		if drop[e.off] {
			continue
		}
		if rec, err := x.load(e); err == nil && rec.ID == id {
			continue // read again: a resume of a failed run only
		}
		out = append(out, e)
	}
	return out
}

// rejudge is judges without the records of the judgment that failed the
// run, when its last outcome was that failure (the final error is of
// kind judge, at the judgment's position): a resume asks it again, as it
// runs the call that failed a run again (failedCall). Answered from the
// journal, a judgment that failed for want of a model, or on a reply
// that could not be read, would fail every resume the same way.
func rejudge(l *Log, judges table, failed []failedEnd) table {
	fin := l.Final()
	if fin == nil || fin.Status != StatusError || fin.ErrKind != delegation.KindJudge || fin.Pos == "" {
		return judges
	}
	var key callKey
	found := false
	for i := len(failed) - 1; i >= 0 && !found; i-- {
		key, found = failed[i].key, failed[i].pos == fin.Pos
	}
	if !found {
		return judges
	}
	drop := map[int64]bool{}
	for _, f := range failed {
		if f.key == key {
			drop[f.off] = true
		}
	}
	out := judges[:0]
	for _, e := range judges {
		if !drop[e.off] {
			out = append(out, e)
		}
	}
	return out
}

// failedCall finds the call that failed the run, when its last outcome
// was that failure: the call at the position the final error names (its
// kind is "call"), its last failed attempt there (siblings of a parallel
// loop may end after it). Every attempt of that call, and the failed
// attempts inside it when it ran another spec, then run live again:
// answering them from the journal would only fail the resume the same
// way.
func failedCall(l *Log, failed []failedEnd) (delegation.Path, bool) {
	fin := l.Final()
	if fin == nil || fin.Status != StatusError || fin.ErrKind != delegation.KindCall || fin.Pos == "" {
		return delegation.Path{}, false
	}
	for i := len(failed) - 1; i >= 0; i-- {
		if failed[i].pos == fin.Pos {
			return failed[i].key.id, true
		}
	}
	return delegation.Path{}, false
}

// windowBytes is how much of the journal the index reads at a time to
// answer from (index.window): a resume or replay answers mostly in
// journal order, so one read serves the records of a window.
const windowBytes = 64 << 10

// line reads the line of e into buf (grown when it is too short): from
// the window of the journal last read when it is in it, else with a
// read of the window starting at it.
func (x *index) line(e entry, buf []byte) ([]byte, error) {
	if cap(buf) < int(e.n) {
		buf = make([]byte, e.n)
	}
	buf = buf[:e.n]
	x.winMu.Lock()
	defer x.winMu.Unlock()
	if e.off < x.winOff || e.off+int64(e.n) > x.winOff+int64(len(x.win)) {
		if int(e.n) > windowBytes {
			if _, err := x.f.ReadAt(buf, e.off); err != nil {
				return nil, err
			}
			return buf, x.same(e, buf)
		}
		if x.win == nil {
			x.win = make([]byte, windowBytes)
		}
		n, err := x.f.ReadAt(x.win[:cap(x.win)], e.off)
		if n < int(e.n) {
			x.win = x.win[:0]
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		x.win, x.winOff = x.win[:n], e.off
	}
	copy(buf, x.win[e.off-x.winOff:])
	return buf, x.same(e, buf)
}

// lineAt is the number of the line at off of the journal (1 for the
// first), counted when an error names it.
func (x *index) lineAt(off int64) int {
	n := 1
	buf := make([]byte, 64<<10)
	for at := int64(0); at < off; {
		k, err := x.f.ReadAt(buf[:min(int64(len(buf)), off-at)], at)
		n += bytes.Count(buf[:k], newline)
		at += int64(k)
		if err != nil || k == 0 {
			break
		}
	}
	return n
}

// same checks that line, read back for e, is the line the index read
// and checked the digest of: a journal changed since (by another
// process, while a replay reads it) is refused, not answered from.
func (x *index) same(e entry, line []byte) error {
	if maphash.Bytes(x.seed, bytes.TrimSuffix(line, newline)) != e.check {
		return fmt.Errorf("%s: line %d changed after its digest was checked, as the run went on: the journal was edited or damaged meanwhile, and prose refuses to answer from it", x.path, x.lineAt(e.off))
	}
	return nil
}

// load reads the record of e whole, into a Record of its own.
func (x *index) load(e entry) (*Record, error) {
	buf, err := x.line(e, nil)
	if err != nil {
		return nil, fmt.Errorf("journal: reading a record back: %w", err)
	}
	line := bytes.TrimRight(buf, "\n")
	refs, rest, err := splitBlobs(line)
	if err == nil && refs != nil {
		line, err = restoreBlobs(x.dir, rest, refs)
	}
	if err != nil {
		return nil, fmt.Errorf("journal: reading a record back: %w", err)
	}
	rec, ok := scanAnswer(line)
	if !ok {
		rec = new(Record)
		if err := json.Unmarshal(line, rec); err != nil {
			return nil, fmt.Errorf("journal: reading a record back: %w", err)
		}
	}
	return rec, nil
}

// reply is a record read back to answer a call or a judgment from
// (index.call, index.judge): Rec, read by scanReply into the reply's own
// Record and line buffer, or read whole (index.load). Both are used
// again once the answer is given (done), so that answering allocates
// nothing for the record: the answer keeps nothing of Rec but what it
// copies or decodes from it.
type reply struct {
	Rec  *Record
	own  Record
	line []byte
	dig  digests // Rec's digests, when scanReply read it
}

var replies = sync.Pool{New: func() any { return new(reply) }}

// maxPooledLine is the longest line buffer a reply keeps for the next.
const maxPooledLine = 64 << 10

// done gives rp back (nil: nothing to give back).
func (rp *reply) done() {
	if rp == nil {
		return
	}
	rp.Rec, rp.dig = nil, digests{} // own is zeroed as it is read into (scanReply)
	if cap(rp.line) > maxPooledLine {
		rp.line = nil
	}
	replies.Put(rp)
}

// answer is the latest record of tab under key h for which is holds (a
// hash says which entries may be it; the record read back says whether
// it is), nil when there is none. want is the path asked for:
// scanReply compares the record's id with it as it reads it.
func (x *index) answer(tab table, at directory, h uint32, want delegation.Path, is func(*Record) bool) (*reply, error) {
	i, j := at.span(tab, h)
	for k := j - 1; k >= i; k-- {
		e := tab[k]
		rp := replies.Get().(*reply)
		line, err := x.line(e, rp.line)
		if err != nil {
			rp.done()
			return nil, fmt.Errorf("journal: reading a record back: %w", err)
		}
		rp.line = line
		if scanReply(bytes.TrimRight(line, "\n"), want, &rp.own, &rp.dig) {
			if is(&rp.own) {
				rp.Rec = &rp.own
				return rp, nil
			}
			rp.done()
			continue
		}
		rp.done()
		rec, err := x.load(e)
		if err != nil {
			return nil, err
		}
		if is(rec) {
			rp := replies.Get().(*reply)
			rp.Rec, rp.dig = rec, digests{args: []byte(rec.Args), values: []byte(rec.Values)}
			return rp, nil
		}
	}
	return nil, nil
}

// finalRecord is the outcome of the latest session, nil when it did not
// finish.
func (x *index) finalRecord() (*Record, error) {
	if x.final.n == 0 {
		return nil, nil
	}
	return x.load(x.final)
}

// call is the completed record of attempt k, nil when there is none;
// its reply is given back (reply.done) once the call is answered.
func (x *index) call(k callKey) (*reply, error) {
	x.winMu.Lock()
	tab, at := x.calls, x.callsAt
	x.winMu.Unlock()
	return x.answer(tab, at, hashKey(k.id, k.attempt), k.id, func(rec *Record) bool {
		return rec.ID == k.id && rec.Attempt == k.attempt
	})
}

// judge is the record of judgment k, nil when there is none; its reply
// is given back (reply.done) once the judgment is answered.
func (x *index) judge(k judgeKey) (*reply, error) {
	x.winMu.Lock()
	tab, at := x.judges, x.judgesAt
	x.winMu.Unlock()
	return x.answer(tab, at, hashKey(k.id, k.n), k.id, func(rec *Record) bool {
		return rec.ID == k.id && rec.N == k.n
	})
}

// release lets go of what only answers read (the tables, the window of
// the journal) once a replay's run has ended and nothing is answered any
// more: the outcome is compared without them, and a replay then holds
// no more than the run. A call or judgment asked after finds nothing.
func (x *index) release() {
	x.winMu.Lock()
	defer x.winMu.Unlock()
	x.calls, x.judges, x.groups = nil, nil, nil
	x.callsAt, x.judgesAt, x.groupsAt = directory{}, directory{}, directory{}
	x.win, x.winOff = nil, 0
}

// group is the record of occurrence n of the parallel group at id, nil
// when there is none.
func (x *index) group(id delegation.Path, n int) (*Record, error) {
	x.winMu.Lock()
	tab, at := x.groups, x.groupsAt
	x.winMu.Unlock()
	i, j := at.span(tab, hashKey(id, n))
	for k := j - 1; k >= i; k-- {
		rec, err := x.load(tab[k])
		if err != nil || (rec.ID == id && max(rec.N, 1) == n) {
			return rec, err
		}
	}
	return nil, nil
}

// history says what the journal holds of attempt k besides a completed
// record: whether it started, and whether the run canceled it. It reads
// the journal again: it is asked only to explain a divergence.
func (x *index) history(k callKey) (started, canceled bool) {
	sc := bufio.NewReader(io.NewSectionReader(x.f, 0, 1<<62))
	for {
		line, err := sc.ReadBytes('\n')
		var rec struct {
			Type    string          `json:"t"`
			ID      delegation.Path `json:"id"`
			Attempt int             `json:"attempt"`
			Kind    string          `json:"kind"`
		}
		if json.Unmarshal(bytes.TrimRight(line, "\n"), &rec) == nil && rec.ID == k.id && rec.Attempt == k.attempt {
			switch {
			case rec.Type == TypeStart:
				started = true
			case rec.Type == TypeEnd && rec.Kind == KindCanceled:
				canceled = true
			}
		}
		if err != nil {
			return started, canceled
		}
	}
}
