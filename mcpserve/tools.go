package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/std"
	"github.com/proselang/prose/world/graph"
)

// Finding is one diagnostic of lint or show.
type Finding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity" jsonschema:"error, warning or info"`
	Code     string `json:"code" jsonschema:"the rule, e.g. check/undeclared-slot"`
	Message  string `json:"message"`
}

func findings(l diag.List) []Finding {
	out := make([]Finding, 0, len(l))
	for _, d := range l {
		out = append(out, Finding{File: d.File, Line: d.Line, Col: d.Col, Severity: d.Severity.String(), Code: d.Code, Message: d.Message})
	}
	return out
}

// LintInput is the input of lint.
type LintInput struct {
	Paths []string `json:"paths" jsonschema:"spec files or directories (walked for *.prose.md); std/... names the built-in library"`
}

// LintOutput is the result of lint.
type LintOutput struct {
	Findings []Finding `json:"findings"`
	Files    int       `json:"files" jsonschema:"how many spec files were linted"`
	Errors   bool      `json:"errors" jsonschema:"true when any finding is an error: prose run would refuse the spec"`
}

// ShowInput is the input of show.
type ShowInput struct {
	File string `json:"file" jsonschema:"a spec file; std/... names the built-in library"`
}

// ShowOutput is the result of show.
type ShowOutput struct {
	Spec     any       `json:"spec" jsonschema:"the typed spec: slots, config, inputs, outputs, delegation..."`
	Findings []Finding `json:"findings"`
}

// GraphInput is the input of graph.
type GraphInput struct {
	Path string `json:"path" jsonschema:"a project directory or a root spec file of responsibilities and gateways"`
}

// GraphOutput is the result of graph.
type GraphOutput struct {
	Graph    any       `json:"graph" jsonschema:"{nodes, edges, entry_points, acyclic}, as prose graph --format json prints it"`
	Findings []Finding `json:"findings" jsonschema:"wiring errors (unsatisfied, ambiguous, cyclic) and warnings"`
}

// RunInput is the input of run.
type RunInput struct {
	File   string         `json:"file" jsonschema:"the spec to run (a pattern, a function or a responsibility); std/... names the built-in library"`
	Slots  map[string]any `json:"slots,omitempty" jsonschema:"NAME: BINDING (exec:COMMAND, llm, llm:MODEL, PATH.prose.md, or host: you fill its calls through pending and fill), or NAME: [BINDING, ...] for a list slot"`
	Inputs map[string]any `json:"inputs,omitempty" jsonschema:"NAME: VALUE, typed by the spec's declarations"`
	Config map[string]any `json:"config,omitempty" jsonschema:"NAME: VALUE, typed by the spec's declarations"`
	// WaitSeconds > 0 makes run wait as result does, so that progress
	// comes under this call's token.
	WaitSeconds float64 `json:"wait_seconds,omitempty" jsonschema:"wait up to this long for the run to end, as result does (at most 30; 0 returns the run_id at once)"`
}

// RunOutput is the result of run and resume: the run's id, and, when
// the call waited (wait_seconds), the run's outcome so far as result
// gives it.
type RunOutput struct {
	RunID   string        `json:"run_id" jsonschema:"the run's id: give it to result, replay, resume"`
	Status  string        `json:"status,omitempty" jsonschema:"when wait_seconds was given: running, ok, failed or waiting, as result says"`
	Value   any           `json:"value,omitempty" jsonschema:"the value the run returned, when ok"`
	Error   string        `json:"error,omitempty" jsonschema:"why the run failed"`
	Pending []PendingCall `json:"pending,omitempty" jsonschema:"when waiting: the calls and gates waiting"`
}

func runOutput(id string, o Outcome) RunOutput {
	return RunOutput{RunID: id, Status: o.Status, Value: o.Value, Error: o.Error, Pending: o.Pending}
}

// ResumeInput is the input of resume.
type ResumeInput struct {
	RunID       string  `json:"run_id" jsonschema:"a run id, as run returned it"`
	WaitSeconds float64 `json:"wait_seconds,omitempty" jsonschema:"wait up to this long for the run to end, as result does (at most 30; 0 returns at once)"`
}

// RunIDInput names a run.
type RunIDInput struct {
	RunID string `json:"run_id" jsonschema:"a run id, as run returned it"`
}

// ResultInput is the input of result.
type ResultInput struct {
	RunID       string  `json:"run_id" jsonschema:"a run id, as run returned it"`
	WaitSeconds float64 `json:"wait_seconds,omitempty" jsonschema:"how long to wait for the run to end (at most 30; 0 answers at once)"`
}

// RunsOutput is the result of runs.
type RunsOutput struct {
	Runs []RunSummary `json:"runs"`
}

// RunSummary is one journaled run.
type RunSummary struct {
	RunID  string    `json:"run_id"`
	Spec   string    `json:"spec"`
	Status string    `json:"status" jsonschema:"ok, error, interrupted, diverged, running, incomplete or unreadable"`
	Start  time.Time `json:"start"`
	Calls  int       `json:"calls"`
	Error  string    `json:"error,omitempty"`
}

// Empty is the input of a tool that takes none.
type Empty struct{}

func (s *Server) addTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "lint", Description: "Check OpenProse specs without running them: every finding with its place (the checks prose run applies before it starts).",
		InputSchema: pathsSchema[LintInput]()},
		safe(s.lint))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "show", Description: "The typed reading of one spec (slots and their contracts, config, inputs, delegation) and its findings."},
		safe(s.show))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "graph", Description: "Wire a project's responsibilities and gateways by prose's predictable rules and return the graph: nodes, edges (which rule bound each), entry points, and the wiring findings."},
		safe(s.graph))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "run", Description: "Start a run of a spec with its slots bound; returns its run_id at once (a spec prose refuses is an error instead). Progress notifications follow, one per finished call; poll result for the value."},
		safe(s.run))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "result", Description: "A run's status (running, ok, failed, or waiting: pending lists what it waits for, a gate with its question), its value or its error; waits up to wait_seconds (at most 30) for a running run to end."},
		safe(s.result))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "resume", Description: "Go on with a run that was stopped or failed: finished calls are answered from its journal, the rest run live. Returns the run_id at once."},
		safe(s.resume))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "replay", Description: "Re-run a finished run from its journal alone (no program or model is called) and return its outcome, as result does."},
		safe(s.replayTool))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "pending", Description: "The calls waiting for you to fill them (slots bound to host): run_id, call, slot, the slot's contract, the call's arguments and the JSON shape wanted. A progress notification says when one starts waiting."},
		safe(s.pendingTool))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "fill", Description: "Answer a pending call with its value (JSON keeping the slot's contract and shape): the run journals it and goes on. A value that does not fit is refused with what is wanted, and the call still waits."},
		safe(s.fillTool))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "answer", Description: "Answer a gate (ask_user, gate) a run waits at: result says waiting and shows the question. A run this server runs goes on at once; a run stopped while it waited (prose run exits 3 at a gate) gets the answer in its journal, and resume goes on."},
		safe(s.answerTool))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "test", Description: "Run prose test on test files (kind: test) or directories: each test's fixtures bind its subject, its Expects are checked; structured results per test and expectation. A test that needs a model when none is configured is skip, never pass.",
		InputSchema: pathsSchema[TestInput]()},
		safe(s.testTool))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "runs", Description: "The journaled runs, newest first: id, spec, status, start, calls."},
		safe(s.runs))
	s.addWorldTools()
}

// pathsSchema is the input schema of In, whose required paths is a
// list of one string at least: {"type": "array", "items": {"type":
// "string"}, "minItems": 1}. (Inferred from a Go slice, it would be
// ["null", "array"], which form-based hosts and the Inspector cannot
// fill.) nil, if In cannot be inferred, lets the SDK infer it.
func pathsSchema[In any]() any {
	sch, err := jsonschema.For[In](nil)
	if err != nil || sch.Properties["paths"] == nil {
		return nil
	}
	p := sch.Properties["paths"]
	p.Type, p.Types, p.MinItems = "array", nil, jsonschema.Ptr(1)
	return sch
}

func (s *Server) lint(ctx context.Context, _ *mcp.CallToolRequest, in LintInput) (*mcp.CallToolResult, LintOutput, error) {
	if len(in.Paths) == 0 {
		return nil, LintOutput{}, errors.New("lint: give at least one path in paths")
	}
	res, err := lint.PathsContext(ctx, in.Paths, lint.Options{Resolve: std.Resolve})
	if res == nil {
		return nil, LintOutput{}, err
	}
	out := LintOutput{Findings: findings(res.Diags), Files: res.Files, Errors: res.HasErrors()}
	if err != nil {
		return nil, out, err
	}
	return nil, out, nil
}

func (s *Server) show(_ context.Context, _ *mcp.CallToolRequest, in ShowInput) (*mcp.CallToolResult, ShowOutput, error) {
	sp, diags, err := callgraph.LoadSpec(in.File)
	if err != nil {
		return nil, ShowOutput{}, fmt.Errorf("show: %w", err)
	}
	diags = lint.Loaded(sp, diags).Dedupe()
	b, err := sp.JSON()
	if err != nil {
		return nil, ShowOutput{}, fmt.Errorf("show: %w", err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, ShowOutput{}, fmt.Errorf("show: %w", err)
	}
	return nil, ShowOutput{Spec: v, Findings: findings(diags)}, nil
}

func (s *Server) graph(_ context.Context, _ *mcp.CallToolRequest, in GraphInput) (*mcp.CallToolResult, GraphOutput, error) {
	if in.Path == "" {
		return nil, GraphOutput{}, errors.New("graph: give a project directory or a spec file in path")
	}
	g, diags, err := graph.Load(in.Path)
	if err != nil {
		return nil, GraphOutput{}, fmt.Errorf("graph: %w", err)
	}
	b, err := g.Format("json")
	if err != nil {
		return nil, GraphOutput{}, fmt.Errorf("graph: %w", err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, GraphOutput{}, fmt.Errorf("graph: %w", err)
	}
	return nil, GraphOutput{Graph: v, Findings: findings(diags)}, nil
}

func (s *Server) run(ctx context.Context, req *mcp.CallToolRequest, in RunInput) (*mcp.CallToolResult, RunOutput, error) {
	if id := s.retried(req); id != "" {
		return s.startedWaiting(ctx, req, id, in.WaitSeconds)
	}
	var args json.RawMessage
	if req != nil && req.Params != nil {
		args = req.Params.Arguments
	}
	r, err := request(in, args)
	if err != nil {
		return nil, RunOutput{}, err
	}
	r.Dir = s.o.Dir
	id, stop, err := s.start(ctx, req, in.WaitSeconds > 0, func(ctx context.Context, o run.Options) (*run.Result, error) { return run.Local{}.Run(ctx, r, o) })
	defer stop()
	if err != nil || in.WaitSeconds <= 0 {
		return nil, RunOutput{RunID: id}, inToolWords(err)
	}
	return s.startedWaiting(ctx, req, id, in.WaitSeconds)
}

func (s *Server) resume(ctx context.Context, req *mcp.CallToolRequest, in ResumeInput) (*mcp.CallToolResult, RunOutput, error) {
	if id := s.retried(req); id != "" {
		return s.startedWaiting(ctx, req, id, in.WaitSeconds)
	}
	if err := checkID(in.RunID); err != nil {
		return nil, RunOutput{}, err
	}
	if s.running(in.RunID) {
		return nil, RunOutput{}, fmt.Errorf("resume %s: the run is still running (result waits for it)", in.RunID)
	}
	id, stop, err := s.start(ctx, req, in.WaitSeconds > 0, func(ctx context.Context, o run.Options) (*run.Result, error) { return run.Resume(ctx, in.RunID, o) })
	defer stop()
	if err != nil || in.WaitSeconds <= 0 {
		return nil, RunOutput{RunID: id}, err
	}
	return s.startedWaiting(ctx, req, id, in.WaitSeconds)
}

// retried is the run a run or resume call started already, when req is
// that call retried with the answers to its input requests (its request
// state names the run): the retry waits for it instead of starting
// another.
func (s *Server) retried(req *mcp.CallToolRequest) string {
	if req == nil || req.Params == nil || req.Params.RequestState == "" {
		return ""
	}
	id := req.Params.RequestState
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs[id] == nil {
		return ""
	}
	return id
}

// startedWaiting is the result of a run or resume call that waits for
// the run it started.
func (s *Server) startedWaiting(ctx context.Context, req *mcp.CallToolRequest, id string, waitSeconds float64) (*mcp.CallToolResult, RunOutput, error) {
	s.takeElicited(req, id)
	res, out, err := s.await(ctx, req, id, waitSeconds)
	if res != nil {
		res.RequestState = id
		return res, RunOutput{}, nil
	}
	return nil, runOutput(id, out), err
}

func (s *Server) running(id string) bool {
	s.mu.Lock()
	j := s.jobs[id]
	s.mu.Unlock()
	if j == nil {
		return false
	}
	select {
	case <-j.done:
		return false
	default:
		return true
	}
}

func (s *Server) result(ctx context.Context, req *mcp.CallToolRequest, in ResultInput) (*mcp.CallToolResult, Outcome, error) {
	if err := checkID(in.RunID); err != nil {
		return nil, Outcome{}, err
	}
	s.takeElicited(req, in.RunID)
	return s.await(ctx, req, in.RunID, in.WaitSeconds)
}

func (s *Server) replayTool(ctx context.Context, _ *mcp.CallToolRequest, in RunIDInput) (*mcp.CallToolResult, Outcome, error) {
	if s.running(in.RunID) {
		return nil, Outcome{}, fmt.Errorf("replay %s: the run is still running (result waits for it)", in.RunID)
	}
	out, err := s.replay(ctx, in.RunID)
	return nil, out, err
}

func (s *Server) runs(ctx context.Context, _ *mcp.CallToolRequest, _ Empty) (*mcp.CallToolResult, RunsOutput, error) {
	list, err := journal.ListContext(ctx, s.o.RunDir)
	if err != nil {
		return nil, RunsOutput{}, err
	}
	out := RunsOutput{Runs: []RunSummary{}}
	for _, r := range list {
		out.Runs = append(out.Runs, RunSummary{RunID: r.ID, Spec: r.Spec, Status: r.Status, Start: r.Start, Calls: r.Calls, Error: r.Err})
	}
	sort.SliceStable(out.Runs, func(i, j int) bool { return out.Runs[i].Start.After(out.Runs[j].Start) })
	return nil, out, nil
}

// request turns a run tool's input into a run.Request: slots as
// bindings (a list for a list slot), config as NAME=VALUE text (a string
// verbatim, anything else as JSON, both typed by the spec), inputs as one
// JSON object (the --input-json of the command line). args, when given,
// is the call's arguments as the client sent them: the inputs and config
// are taken from its text, so that the run reads them as it reads
// --input-json (an integer kept exactly or refused, a member named twice
// refused), where in's were decoded into float64 and last-wins maps.
func request(in RunInput, args json.RawMessage) (run.Request, error) {
	if in.File == "" {
		return run.Request{}, errors.New("run: give the spec to run in file")
	}
	r := run.Request{Spec: in.File}
	for _, name := range sortedKeys(in.Slots) {
		switch v := in.Slots[name].(type) {
		case string:
			r.Bindings.Slots = append(r.Bindings.Slots, bind.Assignment{Name: name, Value: v})
		case []any:
			for _, e := range v {
				b, ok := e.(string)
				if !ok {
					return run.Request{}, fmt.Errorf("run: slot %s: a list slot's bindings are strings, got %v", name, e)
				}
				r.Bindings.Slots = append(r.Bindings.Slots, bind.Assignment{Name: name, Value: b})
			}
		default:
			return run.Request{}, fmt.Errorf("run: slot %s: want a binding such as \"exec:./worker.sh\" or \"llm\", or a list of them; got %v", name, v)
		}
	}
	var raw struct {
		Inputs json.RawMessage            `json:"inputs"`
		Config map[string]json.RawMessage `json:"config"`
	}
	if len(args) > 0 && json.Unmarshal(args, &raw) == nil {
		if t := bytes.TrimSpace(raw.Inputs); len(t) > 0 && t[0] == '{' {
			if _, err := delegation.FromJSON(t); err != nil {
				return run.Request{}, fmt.Errorf("run: inputs: %v", strings.TrimPrefix(err.Error(), "invalid JSON: "))
			}
			in.Inputs = nil
			r.Bindings.InputJSON = string(t)
		}
	}
	for _, name := range sortedKeys(in.Config) {
		text, err := assignmentText(in.Config[name])
		if t := bytes.TrimSpace(raw.Config[name]); len(t) > 0 && t[0] != '"' {
			text = string(t) // a number or a structure as the client wrote it
		}
		if err != nil {
			return run.Request{}, fmt.Errorf("run: config %s: %w", name, err)
		}
		r.Bindings.Config = append(r.Bindings.Config, bind.Assignment{Name: name, Value: text})
	}
	if len(in.Inputs) > 0 {
		b, err := json.Marshal(in.Inputs)
		if err != nil {
			return run.Request{}, fmt.Errorf("run: inputs: %w", err)
		}
		r.Bindings.InputJSON = string(b)
	}
	return r, nil
}

// exactValue is the "value" member of a call's arguments as the client
// wrote it, where decoded is the same member as the SDK decoded it (into
// float64s and last-wins maps), or nil when there is none: the value
// taken from it keeps 9007199254740993, and one that names a member twice
// or holds an integer beyond what prose holds is refused, as a program's
// answer is.
func exactValue(req *mcp.CallToolRequest, decoded any) (json.RawMessage, error) {
	if req == nil || req.Params == nil || decoded == nil {
		return nil, nil
	}
	var raw struct {
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(req.Params.Arguments, &raw) != nil || len(bytes.TrimSpace(raw.Value)) == 0 {
		return nil, nil
	}
	if _, err := delegation.FromJSON(raw.Value); err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "invalid JSON: "))
	}
	return raw.Value, nil
}

func assignmentText(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// PendingInput is the input of pending.
type PendingInput struct {
	RunID string `json:"run_id,omitempty" jsonschema:"only this run's calls (empty: every run's)"`
}

// PendingOutput is the result of pending.
type PendingOutput struct {
	Calls []PendingCall `json:"calls"`
}

// FillInput is the input of fill.
type FillInput struct {
	RunID string `json:"run_id" jsonschema:"the run, as pending lists it"`
	Call  string `json:"call" jsonschema:"the call's path, as pending lists it"`
	Value any    `json:"value" jsonschema:"the call's value: JSON of the shape pending shows"`
}

// FillOutput is the result of fill.
type FillOutput struct {
	RunID string `json:"run_id"`
	Call  string `json:"call"`
}

func (s *Server) pendingTool(_ context.Context, _ *mcp.CallToolRequest, in PendingInput) (*mcp.CallToolResult, PendingOutput, error) {
	calls, _ := s.host.pending(in.RunID)
	return nil, PendingOutput{Calls: calls}, nil
}

func (s *Server) fillTool(_ context.Context, req *mcp.CallToolRequest, in FillInput) (*mcp.CallToolResult, FillOutput, error) {
	raw, err := exactValue(req, in.Value)
	if err != nil {
		return nil, FillOutput{}, fmt.Errorf("fill: value: %w", err)
	}
	if err := s.host.fill(in.RunID, in.Call, in.Value, raw); err != nil {
		return nil, FillOutput{}, err
	}
	return nil, FillOutput{RunID: in.RunID, Call: in.Call}, nil
}
