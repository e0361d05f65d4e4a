package journal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/redact"
	"github.com/proselang/prose/version"
)

// Trace writes a run's records to a file of the user's choice (`--trace`):
// the journal's records, in the journal's schema, encoding and chain of
// digests, with what only a trace wants. It is a delegation.Recorder: the
// evaluator's events become
//
//	start   id, pos, attempt, slot, args (the digest a journal keeps) and
//	        args_value (the arguments; a list that extends the one the
//	        same slot got before is written {"$extends": NAME, "$append":
//	        [...]}, see traceArgs)
//	model   id, pos, attempt, slot, model, system (the first time; its
//	        system_sha256 always), prompt, reply, tokens_in, tokens_out:
//	        one per model request of an llm slot's attempt
//	end     id, attempt, slot, result or err with kind, ms
//	judge   id, pos, cond, values, holds, reasoning, asked, model, rule,
//	        tokens_in, tokens_out, ms
//	error   id, pos, slot, attempt, err: a run-time error as raised (also
//	        one a try caught)
//
// between a header (Start: the journal's header, request included) and a
// final (Finish: status, result or err, ms, totals, model_usage). Every
// line is passed through the run's redactor (package redact: the
// environment's and the models' secrets, credential-shaped text), the
// same one that withholds the journal's values and redacts stdout and
// stderr. A write error is kept (Err) and stops the trace, not the run.
type Trace struct {
	// ErrorCode, when set before the run ends, names the code of its
	// error in the final line, as Options.ErrorCode does in a journal.
	ErrorCode func(error) string

	mu    sync.Mutex
	w     io.Writer
	last  string
	err   error
	red   *redact.Redactor
	start time.Time

	startMu sync.Mutex // one start line at a time: a list it extends is on an earlier line
	lists   map[string]*tracedList
	systems map[string]bool
}

// NewTrace returns a Trace writing to w; red (nil: the process
// environment's, redact.ForEnv(nil).WithShapes()) scrubs every line.
func NewTrace(w io.Writer, red *redact.Redactor) *Trace {
	if red == nil {
		red = redact.ForEnv(nil).WithShapes()
	}
	return &Trace{w: w, red: red}
}

// Err is the first write error.
func (t *Trace) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// write seals and writes one record.
func (t *Trace) write(v any) {
	body, err := encodeRecord(v)
	if err != nil {
		return
	}
	text := t.red.String(string(body))
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	sum := chainSum(nil, t.last, []byte(text))
	t.last = sum
	_, t.err = t.w.Write(sealLine([]byte(text), sum))
}

// Start writes the header: h as a journal would hold it.
func (t *Trace) Start(h Header) {
	h.Type, h.Version = TypeHeader, UnkeyedVersion
	if h.Prose == "" {
		h.Prose = version.String()
	}
	if h.Time.IsZero() {
		h.Time = time.Now().UTC()
	}
	t.mu.Lock()
	t.start = h.Time
	t.mu.Unlock()
	t.write(&h)
}

// Finish writes the final record: status, the result or the error, the
// run's duration, and totals and model usage when given.
func (t *Trace) Finish(now time.Time, result delegation.Value, runErr error, totals, usage any) {
	rec := &Record{Type: TypeFinal, Time: now.UTC(), Status: StatusOK, Totals: totals, ModelUsage: usage}
	if runErr != nil {
		rec.setError(runErr, t.ErrorCode)
	} else {
		rec.Result = traceValue(result)
	}
	t.mu.Lock()
	if !t.start.IsZero() {
		rec.MS = millis(now.Sub(t.start))
	}
	t.mu.Unlock()
	t.write(rec)
}

// Record implements delegation.Recorder.
func (t *Trace) Record(ev *delegation.Event) {
	pos := ""
	if ev.Pos.IsValid() || ev.Pos.File != "" {
		pos = ev.Pos.String()
	}
	at := ev.Time
	if at.IsZero() {
		at = time.Now()
	}
	at = at.UTC()
	switch ev.Kind {
	case delegation.EventCallStart:
		t.startMu.Lock()
		t.write(&Record{Type: TypeStart, Time: at, ID: ev.Path, Pos: pos, Attempt: ev.Attempt, Slot: ev.Slot,
			Args: argsDigest(ev.Args, nil), ArgsValue: t.traceArgs(ev.Slot, ev.Args)})
		t.startMu.Unlock()
	case delegation.EventCallEnd:
		rec := &Record{Type: TypeEnd, Time: at, ID: ev.Path, Attempt: ev.Attempt, Slot: ev.Slot, MS: millis(ev.Duration)}
		if ev.Err != nil {
			rec.Err, rec.Kind, rec.Catchable = ev.Err.Error(), errKind(ev.Err), catchable(ev.Err)
		} else {
			rec.Result = traceValue(ev.Result)
		}
		t.write(rec)
	case delegation.EventCallModel:
		x := ev.Exchange
		if x == nil || x.Err != nil {
			return // a request that got no reply has no model record
		}
		sum := sha256.Sum256([]byte(x.System))
		digest := hex.EncodeToString(sum[:])
		t.mu.Lock()
		if t.systems == nil {
			t.systems = map[string]bool{}
		}
		seen := t.systems[digest]
		t.systems[digest] = true
		t.mu.Unlock()
		rec := &Record{Type: TypeModel, Time: at, ID: ev.Path, Pos: pos, Attempt: ev.Attempt, Slot: ev.Slot, Model: x.Model,
			SystemDigest: digest, Prompt: x.Prompt, Reply: x.Reply, TokensIn: x.TokensIn, TokensOut: x.TokensOut}
		if !seen {
			rec.System = x.System
		}
		t.write(rec)
	case delegation.EventJudgment:
		rec := &Record{Type: TypeJudge, Time: at, ID: ev.Path, Pos: pos, Cond: ev.Condition, Values: ValueDigest(ev.Args), MS: millis(ev.Duration)}
		if v := ev.Verdict; v != nil {
			rec.Holds, rec.Pick = &v.Holds, v.Pick
			if v.Pick != "" {
				rec.Holds = nil
			}
			rec.Reasoning, rec.Asked, rec.Model, rec.Rule = v.Reasoning, v.Asked, v.Model, v.Rule
			rec.TokensIn, rec.TokensOut = v.TokensIn, v.TokensOut
		}
		t.write(rec)
	case delegation.EventError:
		msg := ""
		if ev.Err != nil {
			msg = ev.Err.Error()
		}
		t.write(&Record{Type: TypeError, Time: at, ID: ev.Path, Pos: pos, Slot: ev.Slot, Attempt: ev.Attempt, Err: msg})
	}
}

func errKind(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	case errors.Is(err, context.Canceled):
		return KindCanceled
	}
	return KindError
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// traceValue is v's JSON, or a string saying why it has none.
func traceValue(v delegation.Value) json.RawMessage {
	b, err := delegation.ToJSON(v)
	if err != nil {
		b, _ = json.Marshal("<" + err.Error() + ">")
	}
	return b
}

// tracedList is a list argument as the trace last wrote it: its elements,
// the JSON of each, and its name.
type tracedList struct {
	vals  []delegation.Value
	elems [][]byte
	name  string
}

// minShared is the length from which a list argument that extends the one
// the same slot got before is written as an extension.
const minShared = 8

// traceArgs encodes a call's arguments. A list argument that extends the
// list the same slot got under the same name before (a ratchet's growing
// certified_progress) is written as {"$extends": NAME, "$append": [NEW
// ELEMENTS]}, where NAME names a list written before in this trace. A list
// written in full is named "sha256:HEX" of its JSON; an extension
// "sha256:HEX" of the name it extends, a newline, and the JSON list of the
// elements it appends. So a trace grows with what changed, not with the
// size of the arguments, and writing it costs work in proportion to the new
// elements (the old ones are recognized, not encoded again); a reader
// rebuilds each list from the one it extends.
func (t *Trace) traceArgs(slot string, args *delegation.Object) json.RawMessage {
	if args == nil {
		return traceValue(nil)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range args.Keys() {
		v, _ := args.Get(k)
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := encodeRecord(k)
		b.Write(kb)
		b.WriteByte(':')
		if l, ok := v.(*delegation.List); ok {
			b.Write(t.list(slot+"\x00"+k, l))
		} else {
			b.Write(traceValue(v))
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// list encodes one list argument, as an extension of the last one written
// under key when it is one.
func (t *Trace) list(key string, l *delegation.List) []byte {
	elems := l.Elems()
	if t.lists == nil {
		t.lists = map[string]*tracedList{}
	}
	prev := t.lists[key]
	cur := &tracedList{vals: elems, elems: make([][]byte, len(elems))}
	shared := prev != nil && len(prev.elems) >= minShared && len(prev.elems) <= len(elems)
	if shared {
		for i, pv := range prev.vals {
			if sameScalar(pv, elems[i]) {
				cur.elems[i] = prev.elems[i]
				continue
			}
			cur.elems[i] = traceValue(elems[i])
			if !bytes.Equal(cur.elems[i], prev.elems[i]) {
				shared = false
				break
			}
		}
	}
	var out []byte
	if shared {
		added := joinList(encodeAll(elems[len(prev.elems):], cur.elems[len(prev.elems):]))
		cur.name = chainName(prev.name, added)
		var b bytes.Buffer
		b.WriteString(`{"$extends":"`)
		b.WriteString(prev.name)
		b.WriteString(`","$append":`)
		b.Write(added)
		b.WriteByte('}')
		out = b.Bytes()
	} else {
		out = joinList(encodeAll(elems, cur.elems))
		sum := sha256.Sum256(out)
		cur.name = "sha256:" + hex.EncodeToString(sum[:])
	}
	t.lists[key] = cur
	return out
}

// chainName names an extension: the sha256 of the name it extends, a
// newline, and the JSON list of the elements it appends.
func chainName(prev string, added []byte) string {
	h := sha256.New()
	h.Write([]byte(prev))
	h.Write([]byte{'\n'})
	h.Write(added)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// encodeAll fills the missing encodings of vals into enc and returns it.
func encodeAll(vals []delegation.Value, enc [][]byte) [][]byte {
	for i, v := range vals {
		if enc[i] == nil {
			enc[i] = traceValue(v)
		}
	}
	return enc
}

// joinList is the JSON list of the encoded elements.
func joinList(enc [][]byte) []byte {
	n := 2
	for _, e := range enc {
		n += len(e) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, e := range enc {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e...)
	}
	return append(b, ']')
}

// sameScalar reports whether a and b are the same string, integer,
// boolean or null.
func sameScalar(a, b delegation.Value) bool {
	switch a := a.(type) {
	case string:
		s, ok := b.(string)
		return ok && a == s
	case int64:
		n, ok := b.(int64)
		return ok && a == n
	case bool:
		x, ok := b.(bool)
		return ok && a == x
	case nil:
		return b == nil
	}
	return false
}
