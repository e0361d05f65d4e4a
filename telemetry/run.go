package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/redact"
)

// ScopeName is the instrumentation scope of prose's spans.
const ScopeName = "github.com/proselang/prose/telemetry"

// Options say what spans carry.
type Options struct {
	// Content adds the messages sent to and received from models
	// (gen_ai.system_instructions, gen_ai.input.messages,
	// gen_ai.output.messages), redacted. Off by default: prompts carry
	// the run's data.
	Content bool
}

// Tracer starts the spans of runs. The zero value is not usable; see New.
type Tracer struct {
	tr  trace.Tracer
	opt Options
}

// New returns a Tracer whose spans go to tp.
func New(tp trace.TracerProvider, opt Options) *Tracer {
	return &Tracer{tr: tp.Tracer(ScopeName), opt: opt}
}

// RunInfo describes a run as it starts.
type RunInfo struct {
	Spec string // the spec's path as given
	Mode string // live, resuming, replaying
	// Redactor scrubs every text put into a span (nil: the process
	// environment's secrets and credential shapes).
	Redactor *redact.Redactor
	// ErrorCode names an error by prose's own codes (run.Code: "failed",
	// "usage", ...), the error.type of a failed run or call (nil: every
	// error is "_OTHER", the conventions' fallback).
	ErrorCode func(error) string
	// BaseURL is the model server's base URL: the server.address and
	// server.port of chat spans ("" leaves them out).
	BaseURL string
}

// Start begins the span of a run under ctx's span, if any. The Run records
// the run's events; End ends it.
//
// The span itself starts (with the time Start was called) when the run
// is named (Started), or at its first event or End: a run's id, known
// only once its journal is open, chooses the trace of a run that has no
// parent span (see IDGenerator), so that a run and its resumes are one
// trace.
func (t *Tracer) Start(ctx context.Context, info RunInfo) *Run {
	red := info.Redactor
	if red == nil {
		red = redact.ForEnv(nil).WithShapes()
	}
	r := &Run{t: t, ctx: ctx, red: red, info: info, begun: time.Now(), open: map[callKey]*openCall{}}
	r.server = serverAttrs(info.BaseURL)
	return r
}

// begin starts the run's span if it has not started yet. Called with r.mu
// held.
func (r *Run) begin(name, runID string) {
	if r.span != nil {
		return
	}
	ctx := r.ctx
	if runID != "" && !trace.SpanContextFromContext(ctx).IsValid() {
		ctx = withRunTrace(ctx, runID)
	}
	attrs := []attribute.KeyValue{OperationName.String(OpInvokeWorkflow), SpecPath.String(r.info.Spec), RunMode.String(r.info.Mode)}
	spanName := OpInvokeWorkflow
	if name != "" {
		spanName += " " + name
		attrs = append(attrs, SpecName.String(name))
	}
	if runID != "" {
		attrs = append(attrs, RunID.String(runID))
	}
	r.ctx, r.span = r.t.tr.Start(ctx, spanName, trace.WithTimestamp(r.begun), trace.WithAttributes(attrs...))
}

type callKey struct {
	path    delegation.Path
	attempt int
}

// openCall is a call attempt whose span is open: its context parents the
// spans of its model requests and of the calls of a nested run.
type openCall struct {
	ctx  context.Context
	span trace.Span
}

// Run is the spans of one run in progress. It is a delegation.Recorder,
// safe for concurrent use.
type Run struct {
	t      *Tracer
	red    *redact.Redactor
	info   RunInfo
	begun  time.Time
	server []attribute.KeyValue

	mu sync.Mutex
	// ctx and span are the run's, once begun (nil span before).
	ctx      context.Context
	span     trace.Span
	open     map[callKey]*openCall
	answered func(path delegation.Path, attempt int) bool
}

// Started names the run once it is bound: the spec's name, the run id
// ("" without a journal) and, for a resume or a replay, which call
// attempts the journal answered (nil: none).
func (r *Run) Started(name, runID string, answered func(path delegation.Path, attempt int) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.span == nil {
		r.begin(name, runID)
	} else {
		if name != "" {
			r.span.SetName(OpInvokeWorkflow + " " + name)
			r.span.SetAttributes(SpecName.String(name))
		}
		if runID != "" {
			r.span.SetAttributes(RunID.String(runID))
		}
	}
	r.answered = answered
}

// End ends the run's span, with err (nil: success) as its status. Spans
// of calls still open (a run stopped under them) end with it. A run that
// waits at a gate (a *delegation.WaitingError) has not failed: its status
// stays unset, and an event and prose.run.waiting say it waits.
func (r *Run) End(err error) {
	w := delegation.Waiting(err)
	r.mu.Lock()
	r.begin("", "")
	for k, c := range r.open {
		switch {
		case w != nil && k.path == w.Path:
			// The gate's own call: it waits for its answer.
			c.span.SetAttributes(CallOutcome.String("waiting"))
			c.span.AddEvent(EventGateWaiting, trace.WithAttributes(waitingAttrs(w)...))
		case w != nil:
			// Stopped because the run suspended: not a failure either.
			c.span.SetAttributes(CallOutcome.String("suspended"))
		default:
			c.span.SetStatus(codes.Error, "the run ended before the call did")
		}
		c.span.End()
		delete(r.open, k)
	}
	span := r.span
	r.mu.Unlock()
	if w != nil {
		span.SetAttributes(RunWaiting.Bool(true))
		span.AddEvent(EventGateWaiting, trace.WithAttributes(waitingAttrs(w)...))
	} else if err != nil {
		span.SetAttributes(ErrorType.String(r.errorType(err)))
		span.SetStatus(codes.Error, r.red.String(err.Error()))
	}
	span.End()
}

// waitingAttrs describe the gate a run waits at.
func waitingAttrs(w *delegation.WaitingError) []attribute.KeyValue {
	attrs := []attribute.KeyValue{GateKind.String(w.Kind), CallPath.String(w.Path.Key())}
	if w.Pos.File != "" {
		attrs = append(attrs, CallPos.String(w.Pos.String()))
	}
	return attrs
}

// Record implements delegation.Recorder.
func (r *Run) Record(ev *delegation.Event) {
	switch ev.Kind {
	case delegation.EventCallStart:
		r.callStart(ev)
	case delegation.EventCallEnd:
		r.callEnd(ev)
	case delegation.EventCallModel:
		r.model(ev)
	case delegation.EventJudgment:
		r.judgment(ev)
	case delegation.EventToolCall:
		r.tool(ev)
	}
}

func (r *Run) callStart(ev *delegation.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.begin("", "")
	opts := []trace.SpanStartOption{trace.WithAttributes(
		CallPath.String(ev.Path.Key()), CallSlot.String(ev.Slot), CallAttempt.Int(ev.Attempt))}
	if ev.Pos.File != "" {
		opts = append(opts, trace.WithAttributes(CallPos.String(ev.Pos.String())))
	}
	if !ev.Time.IsZero() {
		opts = append(opts, trace.WithTimestamp(ev.Time))
	}
	ctx, span := r.t.tr.Start(r.parent(ev.Path), "call "+ev.Slot, opts...)
	r.open[callKey{ev.Path, ev.Attempt}] = &openCall{ctx: ctx, span: span}
}

// parent is the context of the span a call or judgment at path belongs
// under: the open call attempt whose nested run made it, else the run.
// Called with r.mu held.
func (r *Run) parent(path delegation.Path) context.Context {
	if p := path.Parent(); !p.IsZero() {
		if c := r.open[callKey{p.Call(), p.Attempt()}]; c != nil {
			return c.ctx
		}
	}
	return r.ctx
}

func (r *Run) callEnd(ev *delegation.Event) {
	k := callKey{ev.Path, ev.Attempt}
	r.mu.Lock()
	c := r.open[k]
	delete(r.open, k)
	answered := r.answered
	r.mu.Unlock()
	if c == nil {
		return
	}
	outcome := "ok"
	if w := delegation.Waiting(ev.Err); w != nil {
		// A gate with no answer yet: the run suspends, nothing failed.
		outcome = "waiting"
		c.span.AddEvent(EventGateWaiting, trace.WithAttributes(waitingAttrs(w)...))
	} else if ev.Err != nil {
		outcome = "error"
		switch et := r.errorType(ev.Err); et {
		case "timeout", "canceled":
			outcome = et
			c.span.SetAttributes(ErrorType.String(et))
		default:
			c.span.SetAttributes(ErrorType.String(et))
		}
		c.span.SetStatus(codes.Error, r.red.String(ev.Err.Error()))
	}
	c.span.SetAttributes(CallOutcome.String(outcome))
	if answered != nil && answered(ev.Path, ev.Attempt) {
		c.span.SetAttributes(CallJournal.Bool(true))
	}
	if ev.Time.IsZero() {
		c.span.End()
		return
	}
	c.span.End(trace.WithTimestamp(ev.Time))
}

// model records one model request of a call attempt as a chat span.
func (r *Run) model(ev *delegation.Event) {
	x := ev.Exchange
	if x == nil {
		return
	}
	r.mu.Lock()
	r.begin("", "")
	ctx := r.ctx
	if c := r.open[callKey{ev.Path, ev.Attempt}]; c != nil {
		ctx = c.ctx
	}
	r.mu.Unlock()
	r.chat(ctx, x, ev.Time)
}

// chat records the model request x, which ended at end (zero: now), as
// a chat span under ctx's span.
func (r *Run) chat(ctx context.Context, x *delegation.Exchange, end time.Time) {
	if end.IsZero() {
		end = time.Now()
	}
	model := x.RequestModel
	if model == "" {
		model = x.Model
	}
	attrs := []attribute.KeyValue{OperationName.String(OpChat), ProviderName.String(Provider), RequestModel.String(model)}
	attrs = append(attrs, r.server...)
	attrs = append(attrs, requestAttrs(x)...)
	if x.Err == nil {
		attrs = append(attrs, ResponseModel.String(x.Model),
			UsageInputTokens.Int(x.TokensIn), UsageOutputTokens.Int(x.TokensOut))
		if x.FinishReason != "" {
			attrs = append(attrs, ResponseFinishReasons.StringSlice([]string{x.FinishReason}))
		}
		if x.ResponseID != "" {
			attrs = append(attrs, ResponseID.String(x.ResponseID))
		}
	}
	if r.t.opt.Content {
		attrs = append(attrs, r.content(x)...)
	}
	_, span := r.t.tr.Start(ctx, spanName(OpChat, model), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(end.Add(-x.Duration)), trace.WithAttributes(attrs...))
	if x.Err != nil {
		span.SetAttributes(ErrorType.String(r.errorType(x.Err)))
		span.SetStatus(codes.Error, r.red.String(x.Err.Error()))
	}
	span.End(trace.WithTimestamp(end))
}

// requestAttrs are what a model request asked for: the temperature and
// output cap it sent (none when it sent none) and its output type.
func requestAttrs(x *delegation.Exchange) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if x.Temperature != nil {
		attrs = append(attrs, RequestTemperature.Float64(*x.Temperature))
	}
	if x.MaxTokens > 0 {
		attrs = append(attrs, RequestMaxTokens.Int(x.MaxTokens))
	}
	if x.OutputType != "" {
		attrs = append(attrs, OutputType.String(x.OutputType))
	}
	return attrs
}

// judgment records a condition a model decided as a chat span (one
// decided by a rule, or answered from a cache or the journal, asked no
// model and has none).
func (r *Run) judgment(ev *delegation.Event) {
	v := ev.Verdict
	if v == nil || !v.Asked {
		return
	}
	r.mu.Lock()
	r.begin("", "")
	ctx := r.parent(ev.Path)
	r.mu.Unlock()
	end := ev.Time
	if end.IsZero() {
		end = time.Now()
	}
	// The request's parameters and the reply's id are those of the last
	// ask (a judge asks again when a reply is no readable verdict).
	req := requestAttrs(&delegation.Exchange{Temperature: v.Temperature, MaxTokens: v.MaxTokens, OutputType: OutputJSON})
	if v.ResponseID != "" {
		req = append(req, ResponseID.String(v.ResponseID))
	}
	_, span := r.t.tr.Start(ctx, spanName(OpChat, v.Model), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(end.Add(-ev.Duration)), trace.WithAttributes(
			OperationName.String(OpChat), ProviderName.String(Provider),
			RequestModel.String(v.Model), ResponseModel.String(v.Model),
			UsageInputTokens.Int(v.TokensIn), UsageOutputTokens.Int(v.TokensOut),
			JudgmentPath.String(ev.Path.Key()), Condition.String(r.red.String(ev.Condition))),
		trace.WithAttributes(req...), trace.WithAttributes(r.server...))
	span.End(trace.WithTimestamp(end))
}

// content is an exchange's messages in the conventions' shapes, redacted.
func (r *Run) content(x *delegation.Exchange) []attribute.KeyValue {
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	}
	type message struct {
		Role         string `json:"role"`
		Parts        []part `json:"parts"`
		FinishReason string `json:"finish_reason,omitempty"`
	}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return r.red.String(string(b))
	}
	attrs := []attribute.KeyValue{
		SystemInstructions.String(enc([]part{{"text", x.System}})),
		InputMessages.String(enc([]message{{Role: "user", Parts: []part{{"text", x.Prompt}}}})),
	}
	if x.Err == nil {
		attrs = append(attrs, OutputMessages.String(enc([]message{{Role: "assistant", Parts: []part{{"text", x.Reply}}, FinishReason: x.FinishReason}})))
	}
	return attrs
}

func spanName(op, model string) string {
	if model == "" {
		return op
	}
	return op + " " + model
}

// errorType is error.type of err: timeout or canceled for a context's
// end, else the name of its prose code (RunInfo.ErrorCode), else
// "_OTHER" (low cardinality, as the conventions ask: never a Go type's
// name).
func (r *Run) errorType(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	if r.info.ErrorCode != nil {
		if c := r.info.ErrorCode(err); c != "" {
			return c
		}
	}
	return "_OTHER"
}

// serverAttrs are server.address and server.port of a base URL (nil when
// it has no host).
func serverAttrs(base string) []attribute.KeyValue {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	attrs := []attribute.KeyValue{ServerAddress.String(u.Hostname())}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "https":
		port = "443"
	case u.Scheme == "http":
		port = "80"
	}
	if n, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, ServerPort.Int(n))
	}
	return attrs
}
