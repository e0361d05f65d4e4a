package patterns

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/proselang/prose/delegation"
)

// TraceWriter is a delegation.Recorder that writes one JSON object per line
// (the `--trace FILE` format). Record types ("type"):
//
//	run.start   spec, name, digest, bindings, limits
//	call.start  id, pos, slot, attempt, args (a list argument that extends
//	            the one the slot got before is written as
//	            {"$extends": DIGEST, "$append": [...]}: see args)
//	call.end    id, pos, slot, attempt, result or error, duration_ms
//	judgment    id, pos, condition, values_digest, holds, rule, asked,
//	            cached, model, tokens_in, tokens_out, duration_ms
//	error       id, pos, slot, attempt, error (runtime errors as raised,
//	            including ones a `try` later catches)
//	run.end     status (ok, error, interrupted), result or error,
//	            duration_ms, totals
//
// Every line also has "time" (RFC 3339, UTC, nanoseconds). Each line is
// written with one Write call, so a crash loses at most the line being
// written. Strings listed in Secrets are replaced by "***" everywhere.
// TraceWriter is safe for concurrent use.
type TraceWriter struct {
	// Redact, when set, rewrites every line before it is written (after
	// the Secrets are replaced): a credential detector, for example.
	Redact func(line string) string
	// ModelUsage, when set, adds the run's model usage to run.end.
	ModelUsage func(Totals) any

	mu      sync.Mutex
	w       io.Writer
	secrets []string
	err     error
	totals  Totals
	start   time.Time
	// lists remembers, per slot and argument name, the last list written
	// in full or as an extension (see writeArgs).
	lists map[string]*tracedList
}

// tracedList is a list argument as the trace last wrote it: the JSON of
// each element and the digest of the whole.
type tracedList struct {
	elems  [][]byte
	digest string
}

// minShared is the length from which a list argument that extends the one
// the same slot got before is written as an extension.
const minShared = 8

// Totals counts a run's work.
type Totals struct {
	Calls  int `json:"calls"`  // call attempts that ended
	Failed int `json:"failed"` // attempts that threw or timed out
	// Cancelled attempts were stopped by the run's end (Ctrl-C, a failed
	// sibling, a first winner), not failures of their own; Failed does
	// not count them.
	Cancelled      int `json:"cancelled"`
	Judgments      int `json:"judgments"` // natural-language conditions decided
	ModelJudgments int `json:"model_judgments"`
	// DecidedJudgments were decided from the data alone (expression-free
	// natural conditions answered by a deterministic rule): model calls
	// avoided.
	DecidedJudgments int   `json:"decided_judgments"`
	CachedJudgments  int   `json:"cached_judgments"`
	TokensIn         int64 `json:"tokens_in"`
	TokensOut        int64 `json:"tokens_out"`
}

// add accounts for one event.
func (t *Totals) add(ev *delegation.Event) {
	switch ev.Kind {
	case "call.end":
		t.Calls++
		switch {
		case ev.Err == nil:
		case errors.Is(ev.Err, context.Canceled):
			t.Cancelled++
		default:
			t.Failed++
		}
	case "judgment":
		t.Judgments++
		if v := ev.Verdict; v != nil {
			if v.Asked {
				t.ModelJudgments++
			}
			if v.Cached {
				t.CachedJudgments++
			}
			if v.Rule != "" && !v.Asked {
				t.DecidedJudgments++
			}
			t.TokensIn += int64(v.TokensIn)
			t.TokensOut += int64(v.TokensOut)
		}
	}
}

// NewTraceWriter returns a TraceWriter writing to w. secrets are scrubbed
// from every line (empty strings are ignored).
func NewTraceWriter(w io.Writer, secrets ...string) *TraceWriter {
	t := &TraceWriter{w: w}
	for _, s := range secrets {
		if s != "" {
			t.secrets = append(t.secrets, s)
		}
	}
	return t
}

// Err returns the first write error, if any.
func (t *TraceWriter) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Totals returns the counts so far.
func (t *TraceWriter) Totals() Totals {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.totals
}

// field is one key of a trace line; lines keep their keys in order.
type field struct {
	k string
	v any
}

// write encodes fields as one JSON object line.
func (t *TraceWriter) write(now time.Time, fields ...field) {
	var b bytes.Buffer
	b.WriteByte('{')
	all := append([]field{{"time", now.UTC().Format(time.RFC3339Nano)}}, fields...)
	for i, f := range all {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(f.k))
		b.WriteByte(':')
		b.Write(encodeField(f.v))
	}
	b.WriteString("}\n")
	line := b.String()
	for _, s := range t.secrets {
		line = strings.ReplaceAll(line, s, "***")
		// as it reads inside a JSON string: a quote, backslash or control
		// character in the secret is escaped there
		if q := marshal(s); len(q) > 2 {
			line = strings.ReplaceAll(line, string(q[1:len(q)-1]), "***")
		}
	}
	if t.Redact != nil {
		line = t.Redact(line)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		_, t.err = io.WriteString(t.w, line)
	}
}

// encodeField encodes run-time values with delegation.ToJSON (ordered
// keys, integers kept) and anything else with encoding/json.
func encodeField(v any) []byte {
	switch v.(type) {
	case *delegation.Object, *delegation.List, delegation.Service:
		if raw, err := delegation.ToJSON(v); err == nil {
			return raw
		}
	case json.RawMessage:
		return v.(json.RawMessage)
	}
	return marshal(v)
}

// marshal encodes v with encoding/json without its HTML escaping: call ids
// of nested specs hold '>' ("L74>L61/1") and errors hold '<' or '&'; escaped
// as \u003e they could not be found by grep, and a secret holding one of
// those characters would escape the scrubbing of the written line.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.Reset()
		_ = enc.Encode(err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// value encodes a run-time value (nil stays null).
func value(v delegation.Value) json.RawMessage {
	raw, err := delegation.ToJSON(v)
	if err != nil {
		raw, _ = json.Marshal("<" + err.Error() + ">")
	}
	return raw
}

// Digest is the hex SHA-256 of a value's JSON encoding, prefixed
// "sha256:" (stable: object keys keep their order).
func Digest(v delegation.Value) string {
	return digestBytes(value(v))
}

func digestBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// args encodes a call's arguments. A list argument that extends the list
// the same slot got under the same name before (a ratchet's growing
// certified_progress) is written as {"$extends": DIGEST, "$append":
// [NEW ELEMENTS]}, where DIGEST ("sha256:HEX" of the earlier list's JSON)
// names a list written before in this trace, in full or as an extension
// itself. So a trace grows with what changed, not with the size of the
// arguments: a reader rebuilds each list from the one it extends.
func (t *TraceWriter) args(slot string, args *delegation.Object) json.RawMessage {
	if args == nil {
		return value(nil)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range args.Keys() {
		v, _ := args.Get(k)
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(k))
		b.WriteByte(':')
		l, ok := v.(*delegation.List)
		if !ok {
			b.Write(value(v))
			continue
		}
		b.Write(t.list(slot+"\x00"+k, l))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// list encodes one list argument, as an extension of the last one written
// under key when it is one.
func (t *TraceWriter) list(key string, l *delegation.List) []byte {
	elems := l.Elems()
	enc := make([][]byte, len(elems))
	for i, e := range elems {
		enc[i] = value(e)
	}
	full := joinList(enc)
	cur := &tracedList{elems: enc, digest: digestBytes(full)}
	t.mu.Lock()
	if t.lists == nil {
		t.lists = map[string]*tracedList{}
	}
	prev := t.lists[key]
	t.lists[key] = cur
	t.mu.Unlock()
	if prev == nil || len(prev.elems) < minShared || len(prev.elems) > len(enc) || len(enc) == 0 {
		return full
	}
	for i, e := range prev.elems {
		if !bytes.Equal(e, enc[i]) {
			return full
		}
	}
	var b bytes.Buffer
	b.WriteString(`{"$extends":`)
	b.Write(marshal(prev.digest))
	b.WriteString(`,"$append":`)
	b.Write(joinList(enc[len(prev.elems):]))
	b.WriteByte('}')
	return b.Bytes()
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

// Record implements delegation.Recorder.
func (t *TraceWriter) Record(ev *delegation.Event) {
	t.mu.Lock()
	t.totals.add(ev)
	t.mu.Unlock()
	pos := ev.Pos.String()
	switch ev.Kind {
	case "call.start":
		t.write(ev.Time, field{"type", ev.Kind}, field{"id", ev.ID}, field{"pos", pos},
			field{"slot", ev.Slot}, field{"attempt", ev.Attempt}, field{"args", t.args(ev.Slot, ev.Args)})
	case "call.end":
		fs := []field{{"type", ev.Kind}, {"id", ev.ID}, {"pos", pos}, {"slot", ev.Slot}, {"attempt", ev.Attempt}}
		if ev.Err != nil {
			fs = append(fs, field{"error", ev.Err.Error()}, field{"timeout", isTimeout(ev.Err)})
		} else {
			fs = append(fs, field{"result", value(ev.Result)})
		}
		t.write(ev.Time, append(fs, field{"duration_ms", millis(ev.Duration)})...)
	case "judgment":
		t.write(ev.Time, t.judgment(ev, pos)...)
	case "error":
		t.write(orNow(ev.Time), field{"type", ev.Kind}, field{"id", ev.ID}, field{"pos", pos},
			field{"slot", ev.Slot}, field{"attempt", ev.Attempt}, field{"error", errText(ev.Err)})
	default:
		t.write(orNow(ev.Time), field{"type", ev.Kind}, field{"id", ev.ID}, field{"pos", pos})
	}
}

func (t *TraceWriter) judgment(ev *delegation.Event, pos string) []field {
	fs := []field{{"type", ev.Kind}, {"id", ev.ID}, {"pos", pos}, {"condition", ev.Condition},
		{"values_digest", Digest(ev.Args)}}
	if v := ev.Verdict; v != nil {
		fs = append(fs, field{"holds", v.Holds}, field{"rule", v.Rule}, field{"asked", v.Asked},
			field{"cached", v.Cached}, field{"model", v.Model},
			field{"tokens_in", v.TokensIn}, field{"tokens_out", v.TokensOut})
		if v.Reasoning != "" {
			fs = append(fs, field{"reasoning", v.Reasoning})
		}
	}
	return append(fs, field{"duration_ms", millis(ev.Duration)})
}

// RunStart is what the run.start record says about a run.
type RunStart struct {
	Spec        string    // the spec's path as given
	Name        string    // the spec's name
	Digest      string    // SpecDigest of its source
	Bindings    *Bindings // as given (no secrets in them)
	MaxParallel int
	MaxSteps    int
}

// Start writes the run.start record.
func (t *TraceWriter) Start(now time.Time, rs RunStart) {
	t.mu.Lock()
	t.start = now
	t.mu.Unlock()
	t.write(now, field{"type", "run.start"}, field{"spec", rs.Spec}, field{"name", rs.Name},
		field{"digest", rs.Digest}, field{"bindings", rs.Bindings},
		field{"max_parallel", rs.MaxParallel}, field{"max_steps", rs.MaxSteps})
}

// End writes the run.end record: the result, or the error that ended the
// run, and the totals.
func (t *TraceWriter) End(now time.Time, result delegation.Value, err error) {
	t.mu.Lock()
	start, totals := t.start, t.totals
	t.mu.Unlock()
	fs := []field{{"type", "run.end"}, {"status", RunStatus(err)}}
	if err != nil {
		fs = append(fs, field{"error", err.Error()})
	} else {
		fs = append(fs, field{"result", value(result)})
	}
	var d time.Duration
	if !start.IsZero() {
		d = now.Sub(start)
	}
	fs = append(fs, field{"duration_ms", millis(d)}, field{"totals", totals})
	if t.ModelUsage != nil {
		if u := t.ModelUsage(totals); u != nil {
			fs = append(fs, field{"model_usage", u})
		}
	}
	t.write(now, fs...)
}

// RunStatus names how a run ended: "ok", "interrupted" (cancelled) or
// "error".
func RunStatus(err error) string {
	switch {
	case err == nil:
		return "ok"
	case isCancel(err):
		return "interrupted"
	}
	return "error"
}

func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func isTimeout(err error) bool {
	return errors.Is(err, errDeadline)
}
