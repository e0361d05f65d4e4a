package journal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/version"
)

// Mode says how a Run treats its journal.
type Mode int

const (
	// Live: a new run; every call runs and is appended.
	Live Mode = iota
	// Resuming: calls that match a completed record are answered from the
	// journal; the others run live and are appended.
	Resuming
	// Replaying: every call, judgment and winner comes from the journal;
	// nothing runs live and nothing is written.
	Replaying
)

func (m Mode) String() string {
	switch m {
	case Resuming:
		return "resume"
	case Replaying:
		return "replay"
	}
	return "live"
}

// Options tune a Run.
type Options struct {
	// Force lets a resume continue past a diverging call: the call runs
	// live and its new record supersedes the old one. Replay ignores it.
	Force bool
	// Now is the clock for record times and durations (nil: time.Now).
	Now func() time.Time
	// SpecDigest, for Resume and Replay, is the digest (Digest) of the
	// spec's bytes now. When it differs from the journal's, Resume and
	// Replay fail with a *SpecChangedError, except a Resume with Force,
	// which goes on and reports it through SpecChanged.
	SpecDigest string
	// Request, for Resume, is the resume's request (secrets withheld),
	// kept in its session record: see Log.Request.
	Request json.RawMessage
	// SyncEvery is the group-commit window: 0 fsyncs each record the run
	// depends on before the run goes on; d > 0 writes each record at once
	// (a killed process loses nothing) and fsyncs within d, so a machine
	// crash loses at most the records of the last d. Close syncs what is
	// pending.
	SyncEvery time.Duration
	// Env is the environment whose secret-looking variables are withheld
	// from journaled results and errors and put back when resuming or
	// replaying (nil: the process environment).
	Env []string
	// OnDiverge, when set, is called once with the first divergence (as
	// the contexts from Context are canceled), for a caller that made its
	// run's context before the Run existed.
	OnDiverge func(error)
	// MaxValueBytes is the run's value size ceiling (0: the evaluator's
	// default). The journal records results up to it, so a run whose
	// ceiling is raised above the default can journal what it returns.
	MaxValueBytes int64

	// Key keys the journal's digest chain (nil: the user's journal key,
	// UserKey).
	Key []byte

	// ErrorCode names the code of a run's error (package run passes its
	// one classifier: run.CodeOf(err).String()). The final record keeps
	// it beside the error, and a replay compares its error by it, not by
	// the error's words; nil keeps none, and a replay then compares an
	// error that is not the evaluator's by its text.
	ErrorCode func(error) string

	// locking, for tests, runs when a resume has opened the journal and
	// is about to take its lock (before it reads the journal).
	locking func()
}

// Run is an open journal of one run.
type Run struct {
	id   string
	dir  string
	mode Mode
	opt  Options
	hdr  *Header
	w    *writer // nil when replaying
	lock func()  // releases the journal's lock

	idx *index   // records of earlier sessions (nil for a new run)
	rf  *os.File // the journal a replay reads its records from

	vault *envVault // the environment's secrets

	specChanged error // the spec change a forced resume went past

	kept map[string]string // spec sources journaled: name -> digest (guarded by mu)

	mu          sync.Mutex
	err         error // first divergence
	cancels     []context.CancelCauseFunc
	calls       int                   // completed call attempts, journaled or live
	answered    int                   // of which answered from the journal
	fromJournal map[callKey]bool      // the attempts answered from the journal
	gates       map[string]*GateState // what earlier sessions journaled of gates, read once (gate.go)
}

// NewRunID returns a fresh run id: the UTC start time and 6 random hex
// digits, so ids sort by time (20261130T021500-ab12cd).
func NewRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// Create starts the journal of a new run in base/ID/, writing h as its
// header (filling in Type, Version, RunID, Time and Prose, the version of
// this prose, when unset). The header is on disk when Create returns.
func Create(base string, h Header, opt Options) (*Run, error) {
	opt = opt.withDefaults()
	if h.RunID == "" {
		h.RunID = NewRunID(opt.Now())
	}
	if err := checkRunID(h.RunID); err != nil {
		return nil, err
	}
	h.Type, h.Version = TypeHeader, FormatVersion
	if h.Time.IsZero() {
		h.Time = opt.Now().UTC()
	}
	if h.Prose == "" {
		h.Prose = version.String()
	}
	key := opt.Key
	if key == nil {
		var err error
		if key, err = UserKey(); err != nil {
			return nil, err
		}
	}
	dir := filepath.Join(base, h.RunID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	unlock, err := lockFile(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	r := &Run{id: h.RunID, dir: dir, mode: Live, opt: opt, hdr: &h, w: newWriter(f, opt.SyncEvery), lock: unlock, vault: newEnvVault(opt.Env)}
	r.w.key = key
	r.w.blobs = newBlobStore(dir)
	r.w.afterSync = func() { syncDir(dir) }
	if err := r.w.append(&h, true); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Resume reopens the journal of run id under base to continue it. A torn
// last line is cut off first. With Options.SpecDigest set, a changed spec
// is refused (see Options).
func Resume(base, id string, opt Options) (*Run, error) {
	return open(base, id, Resuming, opt)
}

// Replay opens the journal of run id under base read-only, to re-run it
// with every call answered from the journal.
func Replay(base, id string, opt Options) (*Run, error) {
	return open(base, id, Replaying, opt)
}

func open(base, id string, mode Mode, opt Options) (*Run, error) {
	o, err := Open(base, id, mode, opt)
	if err != nil {
		return nil, err
	}
	return o.Run(opt)
}

// Opened is the journal of a run opened to resume or replay it, read
// once: what a caller needs before the run starts (the header, the
// request to re-run, the kept sources) is in Log, and Run makes the Run
// from the same reading, so a resume or replay decodes its journal once.
// A resume's journal is locked from Open on. Run or Close releases it.
type Opened struct {
	id, dir string
	mode    Mode
	log     *Log
	idx     *index
	f       *os.File
	unlock  func()
}

// Open opens and reads the journal of run id under base, to resume it
// (mode Resuming: the journal is opened for appending and locked before
// it is read) or replay it (Replaying: read-only). opt's Key and
// MaxValueBytes say how it is read; the rest of opt is Run's.
func Open(base, id string, mode Mode, opt Options) (*Opened, error) {
	if mode != Resuming && mode != Replaying {
		return nil, fmt.Errorf("journal: Open resumes or replays a run, not %s", mode)
	}
	opt = opt.withDefaults()
	if err := checkRunID(id); err != nil {
		return nil, &noRunError{id: id, base: base, err: err}
	}
	dir := filepath.Join(base, id)
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, &noRunError{id: id, base: base, err: err}
	}
	// A resume takes the journal's lock first and reads it then: read
	// first, it could work on a view the run it resumes was still
	// appending to (a resume started just as the run ended would re-run
	// a finished call and chain its records to an old digest).
	var f *os.File
	var err error
	unlock := func() {}
	if mode == Resuming {
		if f, unlock, err = openLocked(path, opt); err != nil {
			return nil, err
		}
	} else {
		if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("journal: %s: %s, not a regular file, so not a journal", path, filekind.Describe(st.Mode()))
		}
		if f, err = os.Open(path); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
	}
	// The journal is indexed as it is read, not held: each record is read
	// again when it answers (index.load).
	b := newIndexer(f, dir, mode)
	log, err := readOpen(context.Background(), f, path, &Log{key: opt.Key, keep: b.keep, noPos: mode == Replaying}, recordBound(opt.MaxValueBytes))
	if err != nil {
		unlock()
		f.Close()
		return nil, fmt.Errorf("journal: %w", err)
	}
	if mode == Resuming && log.Header.Version < 3 {
		unlock()
		f.Close()
		return nil, &UnkeyedError{RunID: id, Version: log.Header.Version, Prose: log.Header.Prose}
	}
	if mode == Resuming && log.Header.Version < GroupsVersion {
		unlock()
		f.Close()
		return nil, &UngroupedError{RunID: id, Version: log.Header.Version, Prose: log.Header.Prose}
	}
	return &Opened{id: id, dir: dir, mode: mode, log: log, idx: b.done(log), f: f, unlock: unlock}, nil
}

// noRunError is a run id with no journal under the base directory, or
// one that no run has (it would name a file outside the directory); it
// is an os.ErrNotExist.
type noRunError struct {
	id, base string
	err      error
}

func (e *noRunError) Error() string {
	return fmt.Sprintf("no run %q in %s (see 'prose runs')", e.id, e.base)
}
func (e *noRunError) Unwrap() error        { return e.err }
func (e *noRunError) Is(target error) bool { return target == os.ErrNotExist }

// Log is the journal as Open read it: its header and the records a Log's
// methods read (sessions, finals, sources; see indexer.keep), not its
// calls, which the Run reads back as it answers them.
func (o *Opened) Log() *Log { return o.log }

// Mode is what the journal was opened for.
func (o *Opened) Mode() Mode { return o.mode }

// Run makes the Run of the opened journal, checking it against opt (a
// changed spec, withheld secrets not given again, a replay of a run still
// in progress); a resume then journals its session. The Run owns the
// journal from then on, and so does a failed Run: the Opened is spent
// either way, and a second Run is refused.
func (o *Opened) Run(opt Options) (*Run, error) {
	if o.f == nil {
		return nil, errors.New("journal: an opened journal makes one Run")
	}
	opt = opt.withDefaults()
	f, unlock := o.f, o.unlock
	o.f, o.unlock = nil, nil
	r, err := newReader(o.id, o.dir, o.mode, opt, o.log, o.idx, f, unlock)
	if err != nil {
		return nil, err
	}
	if o.mode == Replaying {
		return r, nil
	}
	sess := &Record{Type: TypeSession, Time: opt.Now().UTC(), Mode: o.mode.String(), Force: opt.Force, SpecDigest: opt.SpecDigest, Request: opt.Request, Prose: version.String()}
	if err := r.w.append(sess, false); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Close releases a journal that Run was not made from (its lock, its
// file); after Run it does nothing.
func (o *Opened) Close() {
	if o.f == nil {
		return
	}
	o.unlock()
	o.f.Close()
	o.f, o.unlock = nil, nil
}

// openLocked opens the journal at path for appending and takes its
// exclusive lock.
func openLocked(path string, opt Options) (*os.File, func(), error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("journal: %s: %s, not a regular file, so not a journal", path, filekind.Describe(st.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if errors.Is(err, os.ErrPermission) {
		return nil, nil, fmt.Errorf("journal: a resume appends to the journal and cannot: %w (prose replay reads it without writing)", err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	if opt.locking != nil {
		opt.locking()
	}
	unlock, err := lockFile(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, unlock, nil
}

// newReader is the Run of a resume or replay of log; f, for a resume, is
// the journal open and locked (unlock releases it).
func newReader(id, dir string, mode Mode, opt Options, log *Log, idx *index, f *os.File, unlock func()) (*Run, error) {
	path := filepath.Join(dir, FileName)
	fail := func(err error) (*Run, error) {
		unlock()
		f.Close()
		return nil, err
	}
	r := &Run{id: id, dir: dir, mode: mode, opt: opt, hdr: log.Header, idx: idx, lock: func() {}, vault: newEnvVault(opt.Env)}
	for _, rec := range log.Records {
		if rec.Type == TypeSource && !rec.Withheld {
			if r.kept == nil {
				r.kept = map[string]string{}
			}
			r.kept[rec.Path] = rec.SpecDigest
		}
	}
	if names := r.vault.missing(log); len(names) > 0 {
		return fail(&MissingSecretsError{Names: names})
	}
	if opt.SpecDigest != "" {
		if err := checkDigest(log.Header.Spec, log.SpecDigest(), opt.SpecDigest); err != nil {
			if sc, ok := err.(*SpecChangedError); ok {
				sc.Replay = mode == Replaying
			}
			if mode == Replaying || !opt.Force {
				return fail(err)
			}
			if sc, ok := err.(*SpecChangedError); ok {
				sc.Forced = true
			}
			r.specChanged = err
		}
	}
	if mode == Replaying {
		if log.Final() == nil && locked(path) {
			return fail(fmt.Errorf("run %s is still in progress (a prose process holds its journal): a replay needs a run that ended; wait for it, or stop it and replay what it journaled", id))
		}
		r.rf = f // closed by Close
		return r, nil
	}
	if err := r.openAppend(f, unlock, log); err != nil {
		return nil, err
	}
	if err := endLeftovers(log); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// openAppend makes the locked journal f ready for appending: it cuts off
// a torn last line and goes to the end.
func (r *Run) openAppend(f *os.File, unlock func(), log *Log) error {
	if log.Torn {
		if err := f.Truncate(log.Size); err != nil {
			unlock()
			f.Close()
			return fmt.Errorf("journal: cutting the torn last line: %w", err)
		}
	}
	if _, err := f.Seek(0, 2); err != nil {
		unlock()
		f.Close()
		return fmt.Errorf("journal: %w", err)
	}
	r.w, r.lock = newWriter(f, r.opt.SyncEvery), unlock
	r.w.last, r.w.key = log.LastSum, log.key
	if log.Header.Version >= BlobsVersion {
		// A journal of an older format is continued in it: a reader of
		// that format would take a stub for the value.
		r.w.blobs = newBlobStore(r.dir)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// checkRunID refuses ids that could escape the base directory.
func checkRunID(id string) error {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return fmt.Errorf("invalid run id %q", id)
	}
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// ID is the run id.
func (r *Run) ID() string { return r.id }

// Dir is the run directory (base/ID).
func (r *Run) Dir() string { return r.dir }

// Path is the journal file.
func (r *Run) Path() string { return filepath.Join(r.dir, FileName) }

// Mode is how the run treats its journal.
func (r *Run) Mode() Mode { return r.mode }

// SpecChanged returns the *SpecChangedError that a forced resume went
// past, or nil.
func (r *Run) SpecChanged() error { return r.specChanged }

// Header is the journal's header: for a new run, as it was given to
// Create (a Request with RequestLong holds stubs of its long strings).
func (r *Run) Header() *Header { return r.hdr }

// Calls is the number of completed call attempts so far, answered from
// the journal or run live.
func (r *Run) Calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

// remaining is the number of completed call records not answered yet.
func (r *Run) remaining() int {
	if r.idx == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.idx.ncalls - r.answered
}

// AnsweredCall reports whether attempt of the call at path was answered
// from the journal (not run live), once the attempt has returned.
func (r *Run) AnsweredCall(path delegation.Path, attempt int) bool {
	if r.mode == Replaying {
		// Every attempt a replay makes is answered from the journal,
		// or diverges (the journal holds none): not kept per attempt,
		// so a replay holds no more than the run did.
		x := r.idx
		x.winMu.Lock()
		defer x.winMu.Unlock()
		i, j := x.callsAt.span(x.calls, hashKey(path, attempt))
		return j > i
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fromJournal[callKey{path, attempt}]
}

// Answered is the number of call attempts answered from the journal so
// far (Calls minus Answered ran live).
func (r *Run) Answered() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.answered
}

// Context returns a context derived from parent that is canceled when the
// run diverges from its journal, so the evaluator stops at once (a
// divergence must not be retried or caught). Err then says why.
func (r *Run) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	r.mu.Lock()
	r.cancels = append(r.cancels, cancel)
	err := r.err
	r.mu.Unlock()
	if err != nil {
		cancel(err)
	}
	return ctx, func() { cancel(context.Canceled) }
}

// Err returns the first divergence from the journal, or nil.
func (r *Run) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// diverge records div as the run's divergence and returns it, for the
// call, judgment or group that diverged; when another diverged first, it
// returns context.Canceled: the run is stopped by that one, which the run
// reports once.
func (r *Run) diverge(div error) error {
	if !r.fail(div) {
		return context.Canceled
	}
	return div
}

// fail records the first divergence and cancels every context from
// Context; it reports whether err was the first.
func (r *Run) fail(err error) bool {
	r.mu.Lock()
	first := r.err == nil
	if first {
		r.err = err
	}
	cancels := r.cancels
	r.mu.Unlock()
	for _, c := range cancels {
		c(err)
	}
	if first && r.opt.OnDiverge != nil {
		r.opt.OnDiverge(err)
	}
	return first
}

// Close releases the journal (syncing what is pending). It is safe to
// call more than once.
func (r *Run) Close() error {
	if r.lock != nil {
		r.lock()
		r.lock = nil
	}
	var err error
	if r.w != nil {
		err = r.w.close()
		r.w = nil
	}
	if r.rf != nil {
		r.rf.Close()
		r.rf = nil
	}
	return err
}

// encodeResult fills rec.Result with v's compact JSON within the run's
// size ceiling (encodeValue). In a journal that keeps long strings beside
// itself, each long string is kept there as it is met and the JSON holds
// its stub (rec.long): its text is not written into the line first to be
// cut out again. With secrets of the environment to withhold from the
// record's text (hideRecord), only a string whose text holds none of
// them is so kept (the others are written out, and withheld as before),
// and only when no secret holds a quote or is found in a stub: then no
// secret can be found across a kept string's bounds, and withholding
// them from the text between the stubs withholds them from the whole.
func (r *Run) encodeResult(rec *Record, v delegation.Value) error {
	var secrets []string
	if r.vault != nil {
		secrets = r.vault.values
	}
	if r.w == nil || r.w.blobs == nil || !stubSafe(secrets) {
		res, err := r.encodeValue(v)
		if err == nil {
			rec.Result, rec.resultJSON = res, true
		}
		return err
	}
	blobs := r.w.blobs
	var long []longRef
	var keepErr error
	opt := delegation.EncodeOptions{MaxBytes: max(r.opt.MaxValueBytes, delegation.DefaultMaxValueBytes), LongMin: LongStringMin,
		Long: func(dst []byte, s string) ([]byte, int64) {
			if keepErr == nil && stubbable(s) {
				var f strFacts
				var err error
				clear := true
				if len(secrets) == 0 {
					f, err = blobs.keep(s)
				} else {
					f, clear, err = blobs.keepClear(s, secrets)
				}
				if err == nil && clear {
					long = append(long, longRef{off: len(dst), s: s, sum: f.sum})
					return append(dst, blobStub...), f.text
				}
				keepErr = err
			}
			n := len(dst)
			dst = appendString(dst, s)
			return dst, int64(len(dst) - n)
		}}
	res, err := delegation.EncodeJSON(context.Background(), v, opt)
	if err != nil {
		return err
	}
	if keepErr != nil {
		return r.encodeResultWhole(rec, v) // kept in the line, or failing as the line's write would
	}
	rec.Result, rec.resultJSON, rec.long = res, true, long
	return nil
}

func (r *Run) encodeResultWhole(rec *Record, v delegation.Value) error {
	res, err := r.encodeValue(v)
	if err == nil {
		rec.Result, rec.resultJSON = res, true
	}
	return err
}

// stubSafe reports whether secrets can be withheld from a result's text
// between its stubs alone (see encodeResult).
func stubSafe(secrets []string) bool {
	for _, v := range secrets {
		if strings.Contains(v, `"`) || strings.Contains(blobStub, v) {
			return false
		}
	}
	return true
}

// argsDigest is the digest of a call's arguments, a long string's sum
// remembered by its identity when the journal keeps long strings.
func (r *Run) argsDigest(args *delegation.Object) string {
	if r.w == nil || r.w.blobs == nil {
		return argsDigest(args, nil)
	}
	return argsDigest(args, r.w.blobs.sumOf)
}

// encodeValue is v's compact JSON within the run's size ceiling: the
// default ceiling's fast path, or the run's own when it is larger.
func (r *Run) encodeValue(v delegation.Value) ([]byte, error) {
	if r.opt.MaxValueBytes <= delegation.DefaultMaxValueBytes {
		return delegation.ToJSON(v)
	}
	return delegation.EncodeJSON(context.Background(), v, delegation.EncodeOptions{MaxBytes: r.opt.MaxValueBytes})
}
