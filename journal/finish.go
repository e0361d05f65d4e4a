package journal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/proselang/prose/delegation"
)

// ErrUnfinished is returned by Finish when replaying a journal whose run
// never recorded an outcome: the replayed result could not be checked.
var ErrUnfinished = errors.New("the journaled run has no recorded outcome to compare with")

// Finish records the run's outcome: result, or runErr when the run failed
// (a canceled run is "interrupted", one stopped by a divergence
// "diverged"). When replaying it writes nothing and instead checks the
// outcome against the journal: a different result or error is reported.
func (r *Run) Finish(result delegation.Value, runErr error) error {
	if r.mode == Replaying {
		return r.olderFormat(r.checkOutcome(result, runErr))
	}
	rec := &Record{Type: TypeFinal, Time: r.opt.Now().UTC(), Status: StatusOK}
	switch div := r.Err(); {
	case div != nil:
		rec.Status, rec.Err = StatusDiverged, div.Error()
	case runErr != nil:
		rec.setError(runErr, r.opt.ErrorCode)
	default:
		if err := r.encodeResult(rec, result); err != nil {
			return fmt.Errorf("journal: the result cannot be recorded: %w", err)
		}
	}
	if r.w == nil {
		return nil
	}
	return r.w.append(r.vault.hideRecord(rec), true)
}

func isCanceled(err error) bool {
	var de *delegation.Error
	if errors.As(err, &de) && de.Kind == delegation.KindCanceled {
		return true
	}
	return errors.Is(err, context.Canceled)
}

// checkOutcome compares a replayed outcome with the journaled one. A
// result is compared by the sha256 of its JSON with the one the index
// took of the journaled result as it read it (index.finalSum): the same
// bytes are the same result, and the record is not read again. Other
// bytes are compared again with the record read whole, as JSON texts
// with the escaping of encoding/json (canonical): a journal written
// before records were stored unescaped holds the same result otherwise
// spelled.
func (r *Run) checkOutcome(result delegation.Value, runErr error) error {
	r.idx.release() // the run has ended: nothing is answered any more
	if div := r.Err(); div != nil {
		return div
	}
	fin := r.idx.finalRec
	if fin != nil {
		fin = r.vault.revealRecord(fin)
	}
	if fin == nil || (fin.Status != StatusOK && fin.Status != StatusError) {
		return ErrUnfinished
	}
	if fin.Status == StatusError {
		switch {
		case runErr == nil:
			return fmt.Errorf("replay diverges from the journal: the run failed with %q, the replay returned a value", fin.Err)
		case !sameError(runErr, fin, r.opt.ErrorCode):
			return fmt.Errorf("replay diverges from the journal: the run failed with %q, the replay with %q", fin.Err, runErr.Error())
		}
		return nil
	}
	if runErr != nil {
		return fmt.Errorf("replay diverges from the journal: the run returned a value, the replay failed: %w", runErr)
	}
	got, err := r.encodeValue(result)
	if err != nil {
		return fmt.Errorf("replay: the result cannot be encoded: %w", err)
	}
	if sum := r.idx.finalSum; sum != nil && sha256.Sum256(got) == *sum {
		return nil
	}
	whole, err := r.idx.finalRecord()
	if err != nil {
		return err
	}
	if whole == nil {
		return ErrUnfinished
	}
	whole = r.vault.revealRecord(whole)
	if !bytes.Equal(canonical(got), canonical(whole.Result)) {
		return fmt.Errorf("replay diverges from the journal: result %s, journaled %s", clip(got), clip(whole.Result))
	}
	return nil
}

// canonical is a JSON text with the escaping of encoding/json (journals
// written before records were stored unescaped hold "\u003e" for ">").
func canonical(b []byte) []byte {
	out, err := json.Marshal(json.RawMessage(b))
	if err != nil {
		return b
	}
	return out
}

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// setError records how runErr ended the run in a final record: an
// interruption, or an error with its kind and position when it is the
// evaluator's; with every error, its code when code classifies it. The
// journal and the trace end a run the same way.
func (rec *Record) setError(runErr error, code func(error) string) {
	switch {
	case isCanceled(runErr):
		rec.Status, rec.Err = StatusInterrupted, runErr.Error()
	case delegation.Waiting(runErr) != nil:
		rec.Status, rec.Err = StatusWaiting, runErr.Error()
	default:
		rec.Status, rec.Err = StatusError, runErr.Error()
		var de *delegation.Error
		if errors.As(runErr, &de) {
			rec.ErrKind, rec.Pos = de.Kind, de.Pos.String()
		}
	}
	if code != nil {
		rec.ErrCode = code(runErr)
	}
}

// sameError reports whether a replay failed as the journaled run did, by
// the codes the final record keeps, never by the error's words (they may
// name what differs between processes: a nested spec's path, a program's
// stderr, a time). The error must be of the same sort (the evaluator's or
// not), an evaluator's of the same kind at the same position, and, when
// the record keeps one, of the same code (code classifies the replay's
// error as the run's was). A record without a code (a journal written
// before codes were kept, or without a classifier) compares an error
// that is not the evaluator's by its text, as those journals were
// compared.
func sameError(err error, fin *Record, code func(error) string) bool {
	var de *delegation.Error
	evaluator := errors.As(err, &de)
	switch {
	case evaluator != (fin.ErrKind != ""):
		return false
	case evaluator && (de.Kind != fin.ErrKind || de.Pos.String() != fin.Pos):
		return false
	case fin.ErrCode != "" && code != nil:
		return code(err) == fin.ErrCode
	}
	return evaluator || err.Error() == fin.Err
}
