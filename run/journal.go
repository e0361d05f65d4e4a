package run

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/redact"
	"github.com/proselang/prose/runhost"
	"github.com/proselang/prose/specgraph"
	"github.com/proselang/prose/std"
)

// runJournal connects one run to its journal.
type runJournal struct {
	o      Options
	req    Request
	mode   journal.Mode
	id     string
	cancel context.CancelCauseFunc
	run    *journal.Run
	graph  *specgraph.Graph // the run's spec files, kept in its run directory
	// opened is the journal a resume or replay read before the run was
	// prepared (rerun): the run goes on from that reading, not another.
	opened *journal.Opened
}

// JournalError is a journal that cannot be opened or written.
type JournalError struct{ Err error }

func (e *JournalError) Error() string { return e.Err.Error() }
func (e *JournalError) Unwrap() error { return e.Err }

// wrap is a runhost.RunOptions.Wrap: it opens the journal (a new one, or
// the run being resumed or replayed, whose spec must not have changed) and
// wraps the host's caller, judge and runtime.
func (j *runJournal) wrap(p *runhost.Prepared) error {
	if j.o.RunDir == "" {
		return nil
	}
	src := p.Spec.File.Source()
	opt := journal.Options{Force: j.o.Force, SyncEvery: j.o.SyncEvery, Env: j.req.vaultEnv(j.o.Environ),
		OnDiverge: func(err error) { j.cancel(err) }, MaxValueBytes: j.req.Limits.MaxValueBytes, ErrorCode: errorCode}
	h, redacted := j.header(src, j.mode == journal.Live)
	var err error
	switch j.mode {
	case journal.Replaying, journal.Resuming:
		opt.SpecDigest = journal.Digest(src)
		if j.mode == journal.Resuming {
			opt.Request = redacted
		}
		if j.opened == nil {
			return &JournalError{fmt.Errorf("%s %s: the journal was not opened", j.mode, j.id)}
		}
		j.run, err = j.opened.Run(opt)
	default:
		if err := ensureProseDir(j.o.RunDir); err != nil {
			return &UsageError{fmt.Errorf("the run directory %s: %w (--no-journal runs without one)", j.o.RunDir, err)}
		}
		h.RunID = j.o.RunID
		j.run, err = journal.Create(j.o.RunDir, h, opt)
	}
	var ms *journal.MissingSecretsError
	var pe *fs.PathError
	switch {
	case err != nil && j.mode == journal.Live && errors.As(err, &pe) && pe.Op == "mkdir":
		return &UsageError{fmt.Errorf("the run directory %s cannot be made: %w (--no-journal runs without one)", j.o.RunDir, pe)}
	case errors.As(err, &ms):
		return &UsageError{fmt.Errorf("%s %s: %w", j.mode, j.id, err)}
	case err != nil && j.mode == journal.Live:
		return &JournalError{fmt.Errorf("%w (--no-journal runs without one)", err)}
	case err != nil:
		return &JournalError{fmt.Errorf("%s %s: %w", j.mode, j.id, err)}
	}
	if err := j.run.SpecChanged(); err != nil {
		j.o.notify(Notice{Warning: err})
	}
	j.o.notify(Notice{Journal: &JournalNotice{RunID: j.run.ID(), Path: j.run.Path(), Mode: j.run.Mode()}})
	hst := p.Host
	hst.Caller = j.run.WrapCaller(hst.Caller)
	hst.Judge = j.run.WrapJudge(hst.Judge)
	hst.Runtime = j.run.WrapRuntime(hst.Runtime)
	if err := j.keepSources(); err != nil {
		j.run.Close()
		return &JournalError{err}
	}
	return nil
}

// keepSources keeps the source of every spec file the run loaded so far
// in its run directory (journal.Run.KeepSource), so that a replay reads
// them as they ran: at the start, and at the end for the specs that
// nested runs loaded meanwhile. The library's specs are in the binary.
func (j *runJournal) keepSources() error {
	if j.graph == nil {
		return nil
	}
	for _, f := range j.graph.Files() {
		if f.Spec == nil || f.Spec.File == nil || std.IsStd(f.Path) {
			continue
		}
		if err := j.run.KeepSource(f.Path, f.Spec.File.Source()); err != nil {
			return err
		}
	}
	return nil
}

// ensureProseDir makes the .prose directory a run directory lives in
// (.prose/runs), when it does not exist yet, with a .gitignore that keeps
// it out of the user's repository.
func ensureProseDir(runDir string) error {
	parent := filepath.Dir(filepath.Clean(runDir))
	if filepath.Base(parent) != ".prose" {
		return nil
	}
	if _, err := os.Stat(parent); err == nil {
		return nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(parent, ".gitignore"), []byte("# prose run journals: local to this machine\n*\n"), 0o644)
}

// header is the journal header of a new run, and the request as the
// journal keeps it (secrets withheld). With long, the request's long
// values are not written into its JSON: it holds stubs of them
// (journal.Header.RequestLong), which the journal keeps beside itself
// once, as it keeps the inputs' values.
func (j *runJournal) header(src []byte, long bool) (journal.Header, json.RawMessage) {
	red := redact.ForEnv(j.o.Environ).WithShapes()
	h := journal.Header{Spec: j.req.Spec, SpecDigest: journal.Digest(src), Dir: j.req.Dir}
	if f := j.req.specFile(); f != "" {
		h.Spec = f
	}
	r := j.req.redacted(red, &h)
	if long {
		if pr, ph := r.placeLong(); len(ph) > 0 {
			if raw, stubs, ok := stubLong(encodeRequest(pr), ph); ok {
				h.Request, h.RequestLong = raw, stubs
				return h, raw
			}
		}
	}
	raw := encodeRequest(r)
	h.Request = raw
	return h, raw
}

// encodeRequest is r's JSON as the journal keeps it: without HTML
// escaping, as the journal writes every string, so that a long input is
// the same JSON in the request and in the inputs, and kept once beside
// the journal (journal/FORMAT.md, "Large values").
func encodeRequest(r Request) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r)
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))
}

// placeheld is a long value of a request and the placeholder that stands
// for it while the request is encoded.
type placeheld struct{ mark, value string }

// placeLong is r with each long value of its bindings (journal.LongStringMin
// bytes or more) replaced by a placeholder (a random mark that nothing
// else in the request holds), and what they stand for: encoding/json
// then writes no long string, and stubLong puts stubs in their place.
func (r Request) placeLong() (Request, []placeheld) {
	var ph []placeheld
	var nonce [16]byte
	place := func(v *string) {
		if len(*v) < journal.LongStringMin {
			return
		}
		if ph == nil {
			_, _ = rand.Read(nonce[:])
		}
		m := fmt.Sprintf("$long-%x-%d", nonce, len(ph))
		ph = append(ph, placeheld{mark: m, value: *v})
		*v = m
	}
	b := &r.Bindings
	for _, as := range []*[]bind.Assignment{&b.Slots, &b.Config, &b.Inputs} {
		if !slices.ContainsFunc(*as, func(a bind.Assignment) bool { return len(a.Value) >= journal.LongStringMin }) {
			continue
		}
		*as = slices.Clone(*as)
		for i := range *as {
			place(&(*as)[i].Value)
		}
	}
	place(&b.InputJSON)
	return r, ph
}

// stubLong is raw with each placeholder's JSON string replaced by the
// journal's stub, and where those stubs are; ok is false when a
// placeholder is not found once, as it is (not reached: a placeholder is
// plain ASCII, written as it is, and random).
func stubLong(raw []byte, ph []placeheld) (_ json.RawMessage, _ []journal.LongString, ok bool) {
	type at struct {
		i int
		p placeheld
	}
	ats := make([]at, 0, len(ph))
	for _, p := range ph {
		q := []byte(`"` + p.mark + `"`)
		i := bytes.Index(raw, q)
		if i < 0 || bytes.Count(raw, q) != 1 {
			return nil, nil, false
		}
		ats = append(ats, at{i, p})
	}
	slices.SortFunc(ats, func(a, b at) int { return a.i - b.i })
	out := make([]byte, 0, len(raw))
	long := make([]journal.LongString, 0, len(ats))
	from := 0
	for _, a := range ats {
		out = append(out, raw[from:a.i]...)
		long = append(long, journal.LongString{Off: len(out), S: a.p.value})
		out = append(out, `"$blob"`...)
		from = a.i + len(a.p.mark) + 2
	}
	return append(out, raw[from:]...), long, true
}

// DivergedError is a resume or replay stopped because the run no longer
// matches its journal.
type DivergedError struct {
	Mode  journal.Mode
	RunID string
	Err   error // a *journal.DivergenceError, or a replay's different outcome
}

func (e *DivergedError) Error() string {
	return fmt.Sprintf("%s %s stopped: %v", e.Mode, e.RunID, e.Err)
}
func (e *DivergedError) Unwrap() error { return e.Err }

// finish records the outcome (or, for a replay, checks it against the
// journal), closes the journal and returns the error to report: runErr, a
// divergence, or a replay mismatch.
func (j *runJournal) finish(v delegation.Value, runErr error) error {
	if j.run == nil {
		return runErr
	}
	defer j.run.Close()
	if err := j.keepSources(); err != nil {
		j.o.notify(Notice{Warning: err})
	}
	div := j.run.Err()
	ferr := j.run.Finish(v, runErr)
	switch {
	case div != nil:
		return &DivergedError{Mode: j.run.Mode(), RunID: j.run.ID(), Err: div}
	case j.run.Mode() == journal.Replaying && errors.Is(ferr, journal.ErrUnfinished):
		j.o.notify(Notice{Warning: ferr})
	case ferr != nil && runErr == nil:
		return &JournalError{ferr}
	case ferr != nil:
		j.o.notify(Notice{Err: ferr})
	}
	return runErr
}
