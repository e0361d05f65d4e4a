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
//	            {"$extends": NAME, "$append": [...]}: see args)
//	call.model  id, pos, slot, attempt, model, system (the first time;
//	            system_sha256 always), prompt, reply, tokens_in, tokens_out:
//	            one per model request of an llm slot's attempt
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
	// in full or as an extension (see args); startMu orders call.start
	// lines with it.
	lists   map[string]*tracedList
	startMu sync.Mutex
	systems map[string]bool // system prompts written (by digest)
}

// tracedList is a list argument as the trace last wrote it: its elements,
// the JSON of each, and its name (see args).
type tracedList struct {
	vals  []delegation.Value
	elems [][]byte
	name  string
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
	switch x := v.(type) {
	case *delegation.Object, *delegation.List, delegation.Service:
		if raw, err := delegation.ToJSON(x); err == nil {
			return raw
		}
	case json.RawMessage:
		return x
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
// certified_progress) is written as {"$extends": NAME, "$append": [NEW
// ELEMENTS]}, where NAME names a list written before in this trace. A list
// written in full is named "sha256:HEX" of its JSON; an extension
// "sha256:HEX" of the name it extends, a newline, and the JSON list of the
// elements it appends. So a trace grows with what changed, not with the
// size of the arguments, and writing it costs work in proportion to the new
// elements (the old ones are recognized, not encoded again); a reader
// rebuilds each list from the one it extends.
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
	t.mu.Lock()
	if t.lists == nil {
		t.lists = map[string]*tracedList{}
	}
	prev := t.lists[key]
	t.mu.Unlock()
	cur := &tracedList{vals: elems, elems: make([][]byte, len(elems))}
	shared := prev != nil && len(prev.elems) >= minShared && len(prev.elems) <= len(elems)
	if shared {
		for i, pv := range prev.vals {
			if sameScalar(pv, elems[i]) {
				cur.elems[i] = prev.elems[i]
				continue
			}
			cur.elems[i] = value(elems[i])
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
		b.WriteString(`{"$extends":`)
		b.Write(marshal(prev.name))
		b.WriteString(`,"$append":`)
		b.Write(added)
		b.WriteByte('}')
		out = b.Bytes()
	} else {
		out = joinList(encodeAll(elems, cur.elems))
		cur.name = digestBytes(out)
	}
	t.mu.Lock()
	t.lists[key] = cur
	t.mu.Unlock()
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
			enc[i] = value(v)
		}
	}
	return enc
}

// sameScalar reports whether a and b are the same string, number, boolean
// or null (lists and objects are compared by their encoding).
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
		// One call.start at a time: a list it extends is on an earlier line.
		t.startMu.Lock()
		t.write(ev.Time, field{"type", ev.Kind}, field{"id", ev.ID}, field{"pos", pos},
			field{"slot", ev.Slot}, field{"attempt", ev.Attempt}, field{"args", t.args(ev.Slot, ev.Args)})
		t.startMu.Unlock()
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
	case "call.model":
		t.write(orNow(ev.Time), t.exchange(ev, pos)...)
	case "error":
		t.write(orNow(ev.Time), field{"type", ev.Kind}, field{"id", ev.ID}, field{"pos", pos},
			field{"slot", ev.Slot}, field{"attempt", ev.Attempt}, field{"error", errText(ev.Err)})
	default:
		t.write(orNow(ev.Time), field{"type", ev.Kind}, field{"id", ev.ID}, field{"pos", pos})
	}
}

// exchange is a call.model record: the model, the prompt and the reply,
// the tokens. A slot's system prompt is written the first time and named
// by its digest afterwards (system_sha256).
func (t *TraceWriter) exchange(ev *delegation.Event, pos string) []field {
	x := ev.Exchange
	fs := []field{{"type", ev.Kind}, {"id", ev.ID}, {"pos", pos}, {"slot", ev.Slot}, {"attempt", ev.Attempt}, {"model", x.Model}}
	sum := digestBytes([]byte(x.System))
	t.mu.Lock()
	if t.systems == nil {
		t.systems = map[string]bool{}
	}
	seen := t.systems[sum]
	t.systems[sum] = true
	t.mu.Unlock()
	if !seen {
		fs = append(fs, field{"system", x.System})
	}
	return append(fs, field{"system_sha256", sum}, field{"prompt", x.Prompt}, field{"reply", x.Reply},
		field{"tokens_in", x.TokensIn}, field{"tokens_out", x.TokensOut})
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
