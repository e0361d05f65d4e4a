package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/proselang/prose/delegation"
)

// Gates. A gate (`ask_user`, `gate`) is a call whose service is a
// *delegation.Gate. When it has no answer the run suspends: the call
// gets a "gate" record (the question, when it was first asked, its
// deadline) instead of an "end", and the run's "final" has
// status "waiting". `prose answer` appends an "answer" record (Answer);
// the next resume runs the gate live again (it has no "end"), finds the
// answer (Run.GateState) and journals it as the call's "end", so later
// resumes and replays answer the gate from there like any call.

// Record types and status of gates.
const (
	TypeGate   = "gate"   // a gate waits for an answer
	TypeAnswer = "answer" // someone answered a waiting gate
	// StatusWaiting is a run suspended at a gate with no answer yet.
	StatusWaiting = "waiting"
)

// GateRecord is what a "gate" or an "answer" record says of its gate.
type GateRecord struct {
	Kind string `json:"kind,omitempty"` // ask_user or gate
	// Question is the question's JSON (a string for ask_user).
	Question json.RawMessage `json:"question,omitempty"`
	// Asked is when the gate was first asked, Deadline when its timeout
	// passes (absent: no timeout); Timeout the timeout as written.
	Asked    time.Time `json:"asked,omitzero"`
	Deadline time.Time `json:"deadline,omitzero"`
	Timeout  string    `json:"timeout,omitempty"`
	// Value, in an "answer", is the answer's JSON.
	Value json.RawMessage `json:"value,omitempty"`
}

// gateWaits journals that the gate of req waits (in place of its "end").
func (r *Run) gateWaits(req *delegation.CallRequest, slot string, w *delegation.WaitingError) error {
	g := &GateRecord{Kind: w.Kind, Deadline: w.Deadline.UTC()}
	if gs, ok := req.Service.(*delegation.Gate); ok && gs.Timeout > 0 {
		g.Timeout = gs.Timeout.String()
	}
	if w.Deadline.IsZero() {
		g.Deadline = time.Time{}
	}
	if q, err := delegation.ToJSON(w.Question); err == nil {
		g.Question = json.RawMessage(r.vault.hide(string(q)))
	}
	now := r.opt.Now().UTC()
	g.Asked = w.Asked.UTC()
	if w.Asked.IsZero() {
		g.Asked = now
	}
	rec := &Record{Type: TypeGate, Time: now, ID: req.Path, Attempt: req.Attempt, Slot: slot, Pos: req.Pos.String(), Gate: g}
	if werr := r.write(rec, true); werr != nil {
		return werr
	}
	return w
}

// GateState is what the journal holds of one gate before this session:
// when it was first asked, and its latest answer.
type GateState = delegation.GateState

// GateState returns what earlier sessions journaled of the gate at path:
// ok is false when it was never asked. A new run has none.
func (r *Run) GateState(path delegation.Path) (GateState, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gates == nil {
		r.gates = map[string]*GateState{}
		if r.mode != Live {
			l, err := readFileKey(context.Background(), r.Path(), r.opt.Key)
			if err != nil {
				return GateState{}, false, err
			}
			for _, g := range gateStates(l) {
				r.gates[g.Path.Key()] = g
			}
		}
	}
	g := r.gates[path.Key()]
	if g == nil {
		return GateState{}, false, nil
	}
	st := *g
	st.Question = json.RawMessage(r.vault.reveal(string(st.Question)))
	if st.Answer != nil {
		st.Answer = json.RawMessage(r.vault.reveal(string(st.Answer)))
	}
	return st, true, nil
}

// gateStates reads the gates of a journal, in the order they were first
// asked.
func gateStates(l *Log) []*GateState {
	by := map[string]*GateState{}
	var order []*GateState
	for _, rec := range l.Records {
		k := rec.ID.Key()
		g := by[k]
		switch {
		case rec.Type == TypeGate && rec.Gate != nil:
			if g == nil {
				g = &GateState{Path: rec.ID, Asked: rec.Gate.Asked}
				by[k] = g
				order = append(order, g)
			}
			g.Pos, g.Kind, g.Question, g.Deadline, g.Timeout, g.Done = rec.Pos, rec.Gate.Kind, rec.Gate.Question, rec.Gate.Deadline, rec.Gate.Timeout, false
			if g.Asked.IsZero() {
				g.Asked = rec.Gate.Asked
			}
		case rec.Type == TypeAnswer && rec.Gate != nil && g != nil:
			g.Answer, g.Answered = rec.Gate.Value, rec.Time
		case rec.completed() && g != nil && (g.Kind == rec.Slot):
			g.Done = true
		}
	}
	return order
}

// Waiting lists the gates the run at base/id waits on: those its latest
// session suspended at, with no answer yet or with one a resume has not
// used; none when the run is not waiting.
func Waiting(base, id string) ([]GateState, error) {
	if err := checkRunID(id); err != nil {
		return nil, err
	}
	l, err := ReadFile(filepath.Join(base, id, FileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, &NoRunError{ID: id, Base: base}
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return waiting(l), nil
}

func waiting(l *Log) []GateState {
	fin := l.Final()
	if fin == nil || fin.Status != StatusWaiting {
		return nil
	}
	var out []GateState
	for _, g := range gateStates(l) {
		if !g.Done {
			out = append(out, *g)
		}
	}
	return out
}

// AnswerError is an answer Answer refuses: no such gate, a gate whose
// timeout passed, a value of the wrong kind. The CLI reports it as bad
// usage.
type AnswerError struct{ Msg string }

func (e *AnswerError) Error() string { return e.Msg }

// Answer records value (JSON) as the answer to the gate at gate (its path
// key, as Waiting lists it; "" when the run waits on one gate only) of the
// run at base/id, which must be waiting and not held by a process. A
// later answer to the same gate replaces an earlier one until a resume
// uses it. It returns the gate answered.
func Answer(base, id, gate string, value json.RawMessage, opt Options) (GateState, error) {
	opt = opt.withDefaults()
	if err := checkRunID(id); err != nil {
		return GateState{}, err
	}
	path := filepath.Join(base, id, FileName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return GateState{}, &NoRunError{ID: id, Base: base}
	}
	f, unlock, err := openLocked(path, opt)
	if err != nil {
		return GateState{}, err
	}
	defer f.Close()
	defer unlock()
	l, err := readOpen(context.Background(), f, path, &Log{key: opt.Key}, recordBound(opt.MaxValueBytes))
	if err != nil {
		return GateState{}, fmt.Errorf("journal: %w", err)
	}
	if l.Header.Version < 3 {
		return GateState{}, &UnkeyedError{RunID: id, Version: l.Header.Version, Prose: l.Header.Prose}
	}
	g, err := pickGate(id, waiting(l), gate, l)
	if err != nil {
		return GateState{}, err
	}
	now := opt.Now().UTC()
	if !g.Deadline.IsZero() && !now.Before(g.Deadline) {
		return GateState{}, &AnswerError{fmt.Sprintf("%s %s of run %s timed out at %s (timeout %s): prose resume %s goes on without the answer",
			g.Kind, g.Path.Key(), id, g.Deadline.Format(time.RFC3339), g.Timeout, id)}
	}
	if g.Kind == "ask_user" {
		var s string
		if json.Unmarshal(value, &s) != nil {
			return GateState{}, &AnswerError{fmt.Sprintf("ask_user %s of run %s asks for a string, not %s: give it as text (--value TEXT)", g.Path.Key(), id, value)}
		}
	}
	if !json.Valid(value) {
		return GateState{}, &AnswerError{fmt.Sprintf("the answer is not JSON: %s", value)}
	}
	vault := newEnvVault(opt.Env)
	r := &Run{id: id, dir: filepath.Dir(path), mode: Resuming, opt: opt, vault: vault}
	if err := r.openAppend(f, func() {}, l); err != nil {
		return GateState{}, err
	}
	rec := &Record{Type: TypeAnswer, Time: now, ID: g.Path, Slot: g.Kind, Gate: &GateRecord{Value: json.RawMessage(vault.hide(string(value)))}}
	if err := r.w.append(rec, true); err != nil {
		return GateState{}, err
	}
	if err := r.w.close(); err != nil {
		return GateState{}, err
	}
	g.Answer, g.Answered = value, now
	return g, nil
}

// pickGate finds the gate an answer names among the waiting ones.
func pickGate(id string, gates []GateState, gate string, l *Log) (GateState, error) {
	if len(gates) == 0 {
		status := "it has no outcome yet"
		if fin := l.Final(); fin != nil {
			status = "its status is " + fin.Status
		}
		return GateState{}, &AnswerError{fmt.Sprintf("run %s waits on no gate (%s): prose runs show %s tells its story", id, status, id)}
	}
	var keys []string
	for _, g := range gates {
		if gate == "" && len(gates) == 1 || g.Path.Key() == gate {
			return g, nil
		}
		keys = append(keys, g.Path.Key())
	}
	sort.Strings(keys)
	if gate == "" {
		return GateState{}, &AnswerError{fmt.Sprintf("run %s waits on %d gates (%s): name the one you answer, e.g. prose answer %s %s VALUE", id, len(gates), strings.Join(keys, ", "), id, keys[0])}
	}
	return GateState{}, &AnswerError{fmt.Sprintf("run %s has no gate %s waiting; it waits on %s", id, gate, strings.Join(keys, ", "))}
}
