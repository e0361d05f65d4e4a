package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/service"
)

// A slot bound to `host` hands its calls to the agent host: each call
// waits, listed by the pending tool (and reported by result; a request
// watching the run also gets a progress notification, as news only),
// until fill gives its value or the run is stopped. The
// value is the call's result, so the journal records it as any call's:
// a replay answers it from there and needs no host; a resume of a run
// stopped while a call waited asks the host again.

// PendingCall is one call waiting for the host to fill it.
type PendingCall struct {
	RunID     string `json:"run_id"`
	Call      string `json:"call" jsonschema:"the call's path: give it to fill"`
	Slot      string `json:"slot"`
	Attempt   int    `json:"attempt"`
	Contract  string `json:"contract" jsonschema:"the slot's contract: what it requires and what its value ensures"`
	Arguments any    `json:"arguments" jsonschema:"the call's arguments, as JSON"`
	Shape     string `json:"shape,omitempty" jsonschema:"the JSON shape the value must have, when the slot declares one"`
	// Question is a gate's question (slot ask_user or gate): answer it
	// with the answer tool.
	Question any `json:"question,omitempty" jsonschema:"a gate's question (slot ask_user or gate): answer it with the answer tool"`
}

// hostCall is a PendingCall and where its value goes.
type hostCall struct {
	PendingCall
	want   *shape
	text   bool                  // the value must be a string (an ask_user's answer)
	filled chan delegation.Value // buffered: one value
	// gate, when set, checks and shapes a gate's answer (gate.Shape).
	gate func(json.RawMessage) (json.RawMessage, error)
}

// host is the calls of every run waiting for the agent host.
type host struct {
	mu      sync.Mutex
	calls   map[string]*hostCall // by run id and call path
	changed chan struct{}        // closed, and replaced, when a call starts waiting
}

func newHost() *host {
	return &host{calls: map[string]*hostCall{}, changed: make(chan struct{})}
}

func hostKey(run, call string) string { return run + "\x00" + call }

// wait registers c and blocks until it is filled or ctx is done.
func (h *host) wait(ctx context.Context, c *hostCall) (delegation.Value, error) {
	k := hostKey(c.RunID, c.Call)
	h.mu.Lock()
	h.calls[k] = c
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		if h.calls[k] == c {
			delete(h.calls, k)
		}
		h.mu.Unlock()
	}()
	select {
	case v := <-c.filled:
		return v, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("call %s: stopped while waiting for the host to fill it: %w", c.Call, ctx.Err())
	}
}

// pending lists the waiting calls (of run, or of every run when run is
// ""), by run and call; and a channel closed when another starts waiting.
func (h *host) pending(run string) ([]PendingCall, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := []PendingCall{}
	for _, c := range h.calls {
		if run == "" || c.RunID == run {
			out = append(out, c.PendingCall)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].RunID != out[j].RunID {
			return out[i].RunID < out[j].RunID
		}
		return out[i].Call < out[j].Call
	})
	return out, h.changed
}

// fill checks v against the call's contract and hands it to the call. A
// refused value leaves the call waiting.
func (h *host) fill(run, call string, v any, raw json.RawMessage) error {
	k := hostKey(run, call)
	h.mu.Lock()
	c := h.calls[k]
	h.mu.Unlock()
	if c == nil {
		return fmt.Errorf("fill: no call %q of run %q waits for the host (the pending tool lists those that do)", call, run)
	}
	val, err := c.check(v, raw)
	if err != nil {
		return fmt.Errorf("fill %s (slot %s): %w; the call still waits for a value", call, c.Slot, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.calls[k] != c {
		return fmt.Errorf("fill: call %q of run %q no longer waits (filled already, or the run stopped)", call, run)
	}
	delete(h.calls, k)
	c.filled <- val
	return nil
}

// check is v as the call's value, or why it does not keep the slot's
// contract. raw, when given, is v as the client wrote it (exactValue):
// the value is taken from it.
func (c *hostCall) check(v any, raw json.RawMessage) (delegation.Value, error) {
	if v == nil {
		return nil, fmt.Errorf("no value: give the slot's value (%s)", c.wanted())
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("the value is not JSON: %v", err)
	}
	if raw != nil {
		b = raw
	}
	if _, isText := v.(string); c.text && !isText {
		return nil, fmt.Errorf("the value is %s: %s asks for a string", kindOf(v), c.Slot)
	}
	if c.gate != nil {
		if b, err = c.gate(b); err != nil {
			return nil, err
		}
	}
	if c.want != nil {
		if err := c.want.check(v); err != nil {
			return nil, fmt.Errorf("%v; want %s", err, c.want.text)
		}
	}
	return delegation.FromJSON(b)
}

func (c *hostCall) wanted() string {
	if c.want != nil {
		return c.want.text
	}
	if c.Contract != "" {
		return c.Contract
	}
	return "any JSON value"
}

// hostService serves one slot bound to host, for one run.
type hostService struct {
	h     *host
	name  string
	runID func() string
	// contract and want are read from the slot's declaration.
	contract string
	want     *shape
	notify   func(msg string)
}

func (s *hostService) ServiceName() string { return s.name }

// Call implements service.Service: it waits for the host.
func (s *hostService) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	var args any = map[string]any{}
	if req.Args != nil {
		a, err := jsonValue(req.Args)
		if err != nil {
			return nil, err
		}
		args = a
	}
	c := &hostCall{PendingCall: PendingCall{RunID: s.runID(), Call: req.Path.Key(), Slot: s.name, Attempt: req.Attempt,
		Contract: s.contract, Arguments: args}, want: s.want, filled: make(chan delegation.Value, 1)}
	if s.want != nil {
		c.Shape = s.want.text
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		// announced once the call is listed, so a host that reacts to
		// the notification finds it pending
		for {
			list, changed := s.h.pending(c.RunID)
			for _, p := range list {
				if p.Call == c.Call {
					s.notify(fmt.Sprintf("call %s %s waits for the host: the pending tool shows it, fill answers it", c.Call, c.Slot))
					return
				}
			}
			select {
			case <-changed:
			case <-done:
				return
			}
		}
	}()
	return s.h.wait(ctx, c)
}

// hostBinding is the run.Options.Host of one run.
func (s *Server) hostBinding(runID func() string, notify func(string)) func(b *bind.Slot) (service.Service, error) {
	return func(b *bind.Slot) (service.Service, error) {
		hs := &hostService{h: s.host, name: b.Name, runID: runID, notify: notify}
		if sl := b.Slot; sl != nil {
			var parts []string
			if sl.Requires != "" {
				parts = append(parts, "requires: "+sl.Requires)
			}
			if sl.Ensures != "" {
				parts = append(parts, "ensures: "+sl.Ensures)
			}
			hs.contract = strings.Join(parts, "; ")
			hs.want = readShape(sl.Ensures)
		}
		return hs, nil
	}
}

// shape is the JSON object a slot's ensures clause writes in backticks,
// as in "a verdict object, `{verdict: "certify" | "reject", reason}`".
// Decision: a key written with a value (verdict: ...) is required, a bare
// key (reason) may be absent; a value written as quoted strings joined by
// | is one of them. A clause with no such object declares no shape, and
// a fill is checked only to be JSON and not null.
type shape struct {
	text  string
	keys  []string
	need  map[string]bool
	oneOf map[string][]string
}

var shapeRE = regexp.MustCompile("`(\\{[^`]*\\})`")

func readShape(ensures string) *shape {
	m := shapeRE.FindStringSubmatch(ensures)
	if m == nil {
		return nil
	}
	sh := &shape{text: m[1], need: map[string]bool{}, oneOf: map[string][]string{}}
	for _, part := range strings.Split(strings.Trim(m[1], "{} "), ",") {
		key, val, hasVal := strings.Cut(part, ":")
		key = strings.Trim(strings.TrimSpace(key), `"'`)
		if key == "" {
			continue
		}
		sh.keys = append(sh.keys, key)
		if !hasVal {
			continue
		}
		sh.need[key] = true
		var lits []string
		for _, alt := range strings.Split(val, "|") {
			alt = strings.TrimSpace(alt)
			if len(alt) < 2 || alt[0] != '"' || alt[len(alt)-1] != '"' {
				lits = nil
				break
			}
			lits = append(lits, alt[1:len(alt)-1])
		}
		if len(lits) > 0 {
			sh.oneOf[key] = lits
		}
	}
	if len(sh.keys) == 0 {
		return nil
	}
	return sh
}

func (sh *shape) check(v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("the value is %s, not a JSON object", kindOf(v))
	}
	var missing []string
	for _, k := range sh.keys {
		if _, ok := obj[k]; !ok && sh.need[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the object lacks %s", strings.Join(missing, ", "))
	}
	for _, k := range sh.keys {
		lits := sh.oneOf[k]
		if lits == nil {
			continue
		}
		got, _ := obj[k].(string)
		if _, isString := obj[k].(string); !isString || !contains(lits, got) {
			b, _ := json.Marshal(obj[k])
			return fmt.Errorf("%s is %s, not one of %q", k, b, lits)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "null"
}
