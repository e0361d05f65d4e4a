package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/gate"
	"github.com/proselang/prose/journal"
)

// Gates (ask_user, gate) of a run started over MCP ask the agent host.
// Each waits as a pending call (slot ask_user or gate, its question in
// Question) until the answer tool (or fill) answers it: the pending tool
// lists it, and result reports the run as waiting, with the pending
// gates. (A request that watches the run also gets a progress
// notification when a gate starts waiting, but that is news only: a
// gate reached while no request is active is found through result or
// pending.) When the client that waits for the run (result, or run and
// resume with wait_seconds) takes elicitations, the call asks each
// waiting gate once as a form, in the session's protocol version:
//
//   - up to 2025-11-25, with elicitation/create requests during the call:
//     an accepted form answers the gate and the call waits on, so that a
//     run with several gates has each asked within one call, and the
//     call's wait starts over after each answer (a person took the time);
//   - from 2026-07-28 (multi round-trip requests, SEP-2322), as the input
//     requests of the call's result: the client answers the forms and
//     calls again with the answers (a retried run or resume carries the
//     run's id as its request state, and waits for it instead of starting
//     another).
//
// A declined or cancelled form leaves the gate pending, and the call ends
// with the structured waiting result, as for a client without
// elicitation; it is never asked again (the answer tool answers it).
//
// Decisions: the form of an ask_user has one string
// field, answer, and the gate's value is that string; the form of a gate
// whose question has a list of string options has one field, choice, one
// of them, and otherwise one string field, answer; the gate's value is
// the submitted object ({"choice": "ship"}), as a person answering with
// prose answer --json would give it. A gate's timeout is measured from
// when the run reached it (the journal's first ask when resumed); once it
// passes, the gate takes its on_fail use value.

// gatePrompt is the run.Options.GatePrompt of one run started over MCP.
func (s *Server) gatePrompt(runID func() string, notify func(string)) func(context.Context, gate.Question) (json.RawMessage, error) {
	return func(ctx context.Context, q gate.Question) (json.RawMessage, error) {
		question, err := jsonValue(q.Question)
		if err != nil {
			return nil, err
		}
		c := &hostCall{PendingCall: PendingCall{RunID: runID(), Call: q.Path.Key(), Slot: q.Kind, Attempt: 1,
			Contract: gateContract(q.Kind), Arguments: map[string]any{"question": question}, Question: question},
			text: q.Kind == "ask_user", filled: make(chan delegation.Value, 1),
			gate: func(raw json.RawMessage) (json.RawMessage, error) { return gate.Shape(q.Kind, q.Question, raw) }}
		wctx, cancel := context.WithCancel(ctx)
		if q.Left > 0 {
			wctx, cancel = context.WithTimeout(ctx, q.Left)
		}
		defer cancel()
		go s.announce(wctx, c, notify, fmt.Sprintf("%s %s waits for an answer: the answer tool gives it (result and pending show the question)", q.Kind, c.Call))
		v, err := s.host.wait(wctx, c)
		if err != nil && ctx.Err() == nil && errors.Is(wctx.Err(), context.DeadlineExceeded) {
			return nil, delegation.ErrGateTimeout
		}
		if err != nil {
			return nil, err
		}
		return delegation.ToJSON(v)
	}
}

func gateContract(kind string) string {
	if kind == "ask_user" {
		return "a person's answer to the question, as a string"
	}
	return "a person's decision on the question, as a JSON value"
}

// announce sends msg once c is listed as pending.
func (s *Server) announce(ctx context.Context, c *hostCall, notify func(string), msg string) {
	for {
		list, changed := s.host.pending(c.RunID)
		for _, p := range list {
			if p.Call == c.Call {
				notify(msg)
				return
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// await is the result of a call that waits for run id up to waitSeconds
// (at most MaxWait): its outcome, with the waiting gates asked of a client
// that takes elicitations (see above).
func (s *Server) await(ctx context.Context, req *mcp.CallToolRequest, id string, waitSeconds float64) (*mcp.CallToolResult, Outcome, error) {
	d := time.Duration(waitSeconds * float64(time.Second))
	for {
		out, err := s.wait(ctx, req, id, d)
		if err != nil || out.Status != StatusWaiting || req == nil || req.Session == nil || !elicits(req.Session) {
			return nil, out, err
		}
		if multiRoundTrip(req.Session) {
			if m := s.elicitations(req, out.Pending); m != nil {
				return &mcp.CallToolResult{InputRequests: m}, Outcome{}, nil
			}
			return nil, out, nil
		}
		if !s.elicitGates(ctx, req, id, out.Pending) {
			return nil, out, nil
		}
	}
}

// elicitGates asks the client each gate of pending not asked before, one
// at a time, and answers those whose form comes back accepted. It reports
// whether any was answered.
func (s *Server) elicitGates(ctx context.Context, req *mcp.CallToolRequest, id string, pending []PendingCall) bool {
	answered := false
	forms := s.elicitations(req, pending)
	for _, k := range slices.Sorted(maps.Keys(forms)) {
		res, err := req.Session.Elicit(ctx, forms[k].(*mcp.ElicitParams))
		if err != nil || res.Action != "accept" {
			continue // declined, cancelled or gone: the gate stays pending
		}
		call, _ := strings.CutPrefix(k, "gate "+id+" ")
		if s.host.fill(id, call, s.elicitedValue(id, call, res), nil) == nil {
			answered = true
		}
	}
	return answered
}

// elicitFor is the run.Options.Elicit of a run started by req: the
// elicitations of the run's MCP servers (### Tools) go to the client
// that started it, when it takes elicitations and its protocol lets a
// server ask outside a call's result (before 2026-07-28); otherwise nil,
// and the servers are told prose takes none.
func elicitFor(req *mcp.CallToolRequest) func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if req == nil || req.Session == nil || !elicits(req.Session) || multiRoundTrip(req.Session) {
		return nil
	}
	ss := req.Session
	return func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) { return ss.Elicit(ctx, p) }
}

// multiRoundTrip reports whether session speaks a protocol version with
// multi round-trip requests (2026-07-28 and later), as the SDK decides it.
func multiRoundTrip(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion >= "2026-07-28"
}

// elicits reports whether the client of session takes elicitations.
func elicits(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// elicitKey names the elicitation of gate call of run in a result's
// input requests.
func elicitKey(run, call string) string { return "gate " + run + " " + call }

// elicitations are the input requests of a result that finds gates
// waiting, for a client that takes elicitations: one form per gate not
// yet asked. The client answers them and calls result again (SEP-2322);
// on protocol versions before it the SDK asks the client itself.
func (s *Server) elicitations(req *mcp.CallToolRequest, pending []PendingCall) mcp.InputRequestMap {
	if req == nil || req.Session == nil || !elicits(req.Session) {
		return nil
	}
	var m mcp.InputRequestMap
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range pending {
		if p.Slot != "ask_user" && p.Slot != "gate" {
			continue
		}
		k := elicitKey(p.RunID, p.Call)
		if s.elicited[k] {
			continue // asked once; declined or not, the answer tool still answers it
		}
		s.elicited[k] = true
		if m == nil {
			m = mcp.InputRequestMap{}
		}
		m[k] = elicitParams(p.Slot, p.Question)
	}
	return m
}

// takeElicited answers the gates whose forms came back accepted in req's
// input responses.
func (s *Server) takeElicited(req *mcp.CallToolRequest, run string) {
	if req == nil || req.Params == nil {
		return
	}
	for k, r := range req.Params.InputResponses {
		res, ok := r.(*mcp.ElicitResult)
		if !ok || res.Action != "accept" {
			continue
		}
		call, ok := strings.CutPrefix(k, "gate "+run+" ")
		if !ok {
			continue
		}
		_ = s.host.fill(run, call, s.elicitedValue(run, call, res), nil) // a gate answered meanwhile keeps its answer
	}
}

// elicitedValue is the answer an accepted form gives gate call of run.
func (s *Server) elicitedValue(run, call string, res *mcp.ElicitResult) any {
	if a, ok := res.Content["answer"]; ok && len(res.Content) == 1 && s.gateKind(run, call) == "ask_user" {
		return a
	}
	return res.Content
}

func (s *Server) gateKind(run, call string) string {
	list, _ := s.host.pending(run)
	for _, p := range list {
		if p.Call == call {
			return p.Slot
		}
	}
	return ""
}

// elicitParams is the form of a gate's elicitation.
func elicitParams(kind string, question any) *mcp.ElicitParams {
	msg, _ := question.(string)
	obj, isObj := question.(map[string]any)
	if isObj {
		raw, _ := json.Marshal(question)
		msg = string(raw)
		if s, ok := obj["summary"].(string); ok {
			msg = s
		}
	}
	if kind == "gate" && isObj {
		props, required := fieldSchema(obj["fields"])
		if opts := stringList(obj["options"]); len(opts) > 0 {
			props["choice"] = map[string]any{"type": "string", "enum": opts}
			required = append([]string{"choice"}, required...)
		}
		if len(props) > 0 {
			return &mcp.ElicitParams{Message: msg, RequestedSchema: map[string]any{"type": "object",
				"properties": props, "required": required}}
		}
	}
	return &mcp.ElicitParams{Message: msg, RequestedSchema: map[string]any{"type": "object",
		"properties": map[string]any{"answer": map[string]any{"type": "string"}},
		"required":   []string{"answer"}}}
}

// fieldSchema is the form of a gate's `fields` ({approved: "boolean"}):
// one property each, of the JSON schema type its type name says (a form
// has no lists or objects: those fields are left to the answer tool, and
// the form is not offered).
func fieldSchema(v any) (map[string]any, []string) {
	props := map[string]any{}
	fields, _ := v.(map[string]any)
	var required []string
	for name, t := range fields {
		typ, _ := t.(string)
		switch typ {
		case "string", "boolean", "integer", "number":
		default:
			return map[string]any{}, nil
		}
		props[name] = map[string]any{"type": typ}
		required = append(required, name)
	}
	sort.Strings(required)
	return props, required
}

func stringList(v any) []string {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

// AnswerInput is the input of answer.
type AnswerInput struct {
	RunID string `json:"run_id" jsonschema:"the run that waits, as result or pending names it"`
	Gate  string `json:"gate,omitempty" jsonschema:"the gate's path (pending's call, L12); may be left out when the run waits at one gate"`
	Value any    `json:"value" jsonschema:"the answer: a string for ask_user; for gate, one of its options or {\"choice\": OPTION}, or any JSON value when it lists none"`
	// Replace lets an answer replace one recorded earlier.
	Replace bool `json:"replace,omitempty" jsonschema:"replace the answer the gate was already given (the journal keeps both)"`
}

// AnswerOutput is the result of answer.
type AnswerOutput struct {
	RunID string `json:"run_id"`
	Gate  string `json:"gate"`
	// Resume is set when the run is not running here but waits in its
	// journal (started by prose run, or by a server since stopped): the
	// answer is recorded, and the resume tool goes on with it.
	Resume bool `json:"resume,omitempty" jsonschema:"true when the answer was recorded in the journal of a stopped run: call resume to go on"`
}

func (s *Server) answerTool(_ context.Context, req *mcp.CallToolRequest, in AnswerInput) (*mcp.CallToolResult, AnswerOutput, error) {
	if err := checkID(in.RunID); err != nil {
		return nil, AnswerOutput{}, err
	}
	exact, err := exactValue(req, in.Value)
	if err != nil {
		return nil, AnswerOutput{}, fmt.Errorf("answer: value: %w", err)
	}
	var gates []PendingCall
	all, _ := s.host.pending(in.RunID)
	for _, p := range all {
		if p.Slot == "ask_user" || p.Slot == "gate" {
			gates = append(gates, p)
		}
	}
	if len(gates) > 0 || s.running(in.RunID) {
		g := in.Gate
		if g == "" && len(gates) == 1 {
			g = gates[0].Call
		}
		if g == "" {
			return nil, AnswerOutput{}, fmt.Errorf("answer: run %s waits at %d gates: name one in gate (pending lists them)", in.RunID, len(gates))
		}
		if err := s.host.fill(in.RunID, g, in.Value, exact); err != nil {
			return nil, AnswerOutput{}, err
		}
		return nil, AnswerOutput{RunID: in.RunID, Gate: g}, nil
	}
	raw, err := json.Marshal(in.Value)
	if exact != nil {
		raw = exact
	}
	if err != nil || in.Value == nil {
		return nil, AnswerOutput{}, fmt.Errorf("answer: give the answer in value (a string for ask_user, JSON for gate)")
	}
	if gates, werr := journal.Waiting(s.o.RunDir, in.RunID); werr == nil { // else journal.Answer says why
		if raw, err = gate.CheckRecorded(gates, in.RunID, in.Gate, raw, in.Replace); err != nil {
			return nil, AnswerOutput{}, fmt.Errorf("answer: %w", err)
		}
	}
	st, err := journal.Answer(s.o.RunDir, in.RunID, in.Gate, raw, journal.Options{Env: s.o.Environ})
	if err != nil {
		return nil, AnswerOutput{}, fmt.Errorf("answer: %w", err)
	}
	return nil, AnswerOutput{RunID: in.RunID, Gate: st.Path.Key(), Resume: true}, nil
}

// journalWaiting is the Outcome of a run whose journal says it waits.
func (s *Server) journalWaiting(id string, msg string) Outcome {
	out := Outcome{Status: StatusWaiting, Error: msg}
	gates, err := journal.Waiting(s.o.RunDir, id)
	if err != nil {
		return out
	}
	for _, g := range gates {
		var q any
		_ = json.Unmarshal(g.Question, &q)
		out.Pending = append(out.Pending, PendingCall{RunID: id, Call: g.Path.Key(), Slot: g.Kind, Attempt: 1,
			Contract: gateContract(g.Kind), Arguments: map[string]any{"question": q}, Question: q})
	}
	return out
}
