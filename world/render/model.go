package render

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/callgraph"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/skilldecl"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/world/canon"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/reconcile"
)

// worldPrompt is what a render of a world node is told beyond its
// contract.
const worldPrompt = `
You keep this node's truth current over time. The user message holds its inputs by name, and:
- "prior": the truth you published last (null on a first render): keep what still holds;
- "diff": the names of the inputs that moved since then;
- "events": for a gateway, the events to fold into the truth;
- "absent": the inputs that do not exist yet (their producers have not published them): they are not null and have no value; never invent one, keep what the prior truth says of them or say they are unknown.
Answer the new truth: one JSON object with the outputs named above.`

// movedInputs are the names of the inputs a request's Diff says moved
// (its keys are edges, IN<-PRODUCER.FACET or IN<-caller), sorted, each
// once: what a model can use of the diff. The fingerprints themselves
// (two of 71 characters an edge) are tokens it is paid for and can do
// nothing with; a program is given the whole diff (render.go).
func movedInputs(diff map[string]any) []any {
	seen := map[string]bool{}
	var names []string
	for k := range diff {
		name, _, _ := strings.Cut(k, "<-")
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}

// Model renders a node with one model request: its contract (Maintains
// prose, facets, postconditions, Continuity, Invariants, and its
// Execution's code as instructions) as the system prompt; the inputs,
// the absent ones named, the prior truth, diff and events as the user
// message; the answer checked against the outputs it must name (for a
// Maintains with facets, its whole truth or its facets). The functions
// its Execution or contract names are offered as tools (functions.go).
type Model struct {
	Client *llm.Client
	Model  string // "" for the client's
	// Slots bind the functions the node names (FN=BINDING, as --slot
	// NODE.FN=BINDING gives them); Dir is where their relative paths
	// resolve ("": the current directory).
	Slots []bind.Assignment
	Dir   string
	// BaseURL is the API a function rendered by a model is sent to ("":
	// the environment's, OPENAI_BASE_URL); its model is Model, else the
	// client's.
	BaseURL string
	// MaxTurns bounds the model requests of a render that calls
	// functions (0: llm.DefaultMaxTurns).
	MaxTurns int
	// Exchanged, when set, is told of the model request, with the
	// render's context (a tracer's chat span goes under the render's).
	Exchanged func(ctx context.Context, x delegation.Exchange)
	// Drain is what the renders of the drain share: the spec graph the
	// functions it calls load from, and their runs' settings (nil:
	// prose run's defaults).
	Drain *Drain
}

// Render implements reconcile.Renderer.
// horizonForm is how a model is asked to write a `valid_until`.
const horizonForm = "an RFC 3339 time with its zone, such as 2026-12-05T09:00:00Z, or null for no horizon"

func (m *Model) Render(ctx context.Context, req *reconcile.Request) (*reconcile.Answer, error) {
	info := callgraph.RenderInfo(req.Node.Spec, req.Node.ID, m.Model)
	for i, f := range info.Returns {
		if f.Name == "valid_until" {
			// The clock reads it, and a truth whose horizon it cannot
			// read fails (reconcile.Freshness): say the form.
			info.Returns[i].Description = strings.TrimSpace(f.Description + " (" + horizonForm + ")")
		}
	}
	if ex := req.Node.Spec.Execution; ex != nil && strings.TrimSpace(ex.Code) != "" {
		// Upstream hands the Execution to the model as text: a node
		// rendered by a model (its Execution is not ProseScript, or a
		// binding says so) follows it as instructions.
		info.Guidance = strings.TrimSpace(info.Guidance + "\n\nFollow this Execution as instructions (it is not run for you):\n" + ex.Code)
	}
	args := delegation.NewObject()
	set := func(k string, v any) error {
		x, err := delegation.FromGo(v)
		if err == nil {
			args.Set(k, x)
		}
		return err
	}
	for _, in := range req.Node.Spec.Inputs {
		if _, isAbsent := req.Absent[in.Name]; isAbsent {
			continue
		}
		if err := set(in.Name, req.Inputs[in.Name]); err != nil {
			return nil, err
		}
	}
	if len(req.Absent) > 0 {
		absent := map[string]any{}
		for name, by := range req.Absent {
			absent[name] = by + " has not published it yet"
		}
		if err := set("absent", absent); err != nil {
			return nil, err
		}
	}
	if err := set("prior", req.Prior); err != nil {
		return nil, err
	}
	if err := set("diff", movedInputs(req.Diff)); err != nil {
		return nil, err
	}
	if req.Node.Kind == spec.KindGateway {
		events := req.Events
		if events == nil {
			events = []any{}
		}
		if err := set("events", events); err != nil {
			return nil, err
		}
	}
	user, err := llm.SlotUserMessage(args)
	if err != nil {
		return nil, err
	}
	fns := namedFunctions(req.Node.Spec, m.Drain)
	byName := map[string]function{}
	// The node's ### Tools are offered first, as prose run of the node
	// offers them (its functions after).
	declared, closeTools, err := m.declaredTools(req.Node.Spec)
	if err != nil {
		return nil, err
	}
	defer closeTools()
	// Its ### Skills, as prose run gives them: each must resolve, and
	// its SKILL.md is in the instructions.
	skills, err := skilldecl.Load(skilldecl.ForRender(req.Node.Spec), m.Dir)
	if err != nil {
		return nil, err
	}
	info.Skills = run.LLMSkills(skills)
	var tools []llm.Tool
	if declared != nil {
		if tools, err = declared.Tools(ctx); err != nil {
			return nil, err
		}
	}
	for _, fn := range fns {
		byName[fn.name] = fn
		tools = append(tools, fn.tool())
	}
	if len(tools) > 0 {
		info.Guidance = strings.TrimSpace(info.Guidance + "\n\nThe functions named here are tools: call one to have it run (its result is the tool's answer) rather than composing its result yourself.")
	}
	limit := m.MaxTurns
	if limit <= 0 {
		limit = llm.DefaultMaxTurns
	}
	ans := &reconcile.Answer{}
	msgs := []llm.Message{{Role: "user", Content: user}}
	var reply llm.ChatReply
	for turn := 1; ; turn++ {
		if turn > limit {
			return ans, fmt.Errorf("the model was still calling functions after %d model requests (the session bound --max-turns=%d); raise --max-turns, or say in the contract when to stop", limit, limit)
		}
		// A render is a model acting for the node: the cap of prose run's
		// render (PROSE_MAX_TOKENS), not a verdict's.
		cr := llm.ChatRequest{Model: info.Model, System: llm.RenderSystemPrompt(info) + worldPrompt,
			Messages: msgs, Schema: llm.RenderSchema(info), Tools: tools, MaxTokens: m.Client.ActingMaxTokens()}
		start := time.Now()
		reply, err = m.Client.Chat(ctx, cr)
		if m.Exchanged != nil {
			x := llm.ExchangeOf(cr, firstNonEmpty(info.Model, m.Client.Model()), reply, err, start)
			x.System, x.Prompt = cr.System, user
			m.Exchanged(ctx, x)
		}
		addCost(&ans.Cost, receipt.Cost{Requests: 1, TokensIn: reply.TokensIn, TokensOut: reply.TokensOut})
		if reply.Model != "" {
			ans.Cost.Model = reply.Model
		}
		if err != nil {
			return ans, err
		}
		if len(reply.ToolCalls) == 0 {
			break
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: reply.Content, ToolCalls: reply.ToolCalls})
		for _, c := range reply.ToolCalls {
			out := errorJSON("refused: " + c.Name + " is not a function this node names; it was not run")
			if svc := toolService(declared, c.Name); svc != nil {
				out = callTool(ctx, svc, c)
				addCost(&ans.Cost, receipt.Cost{Programs: 1})
			} else if fn, ok := byName[c.Name]; ok {
				var cost receipt.Cost
				out, cost, err = m.callFunction(ctx, fn, c.Arguments)
				addCost(&ans.Cost, cost)
				if err != nil {
					return ans, err
				}
			}
			msgs = append(msgs, llm.Message{Role: "tool", ToolCallID: c.ID, Content: out})
		}
	}
	if reply.Truncated {
		return ans, fmt.Errorf("the model's reply was cut off at its output token limit after %d bytes", len(reply.Content))
	}
	if err := canon.LoneSurrogate([]byte(reply.Content)); err != nil {
		// read, it would be U+FFFD: a truth other than the one answered
		return ans, fmt.Errorf("the model's answer for %s: %v", req.Node.ID, err)
	}
	parsed, err := llm.ParseReply(reply.Content)
	if err != nil {
		return ans, err
	}
	v, err := checkTruth(req.Node.Spec, info, parsed)
	if err != nil {
		return ans, err
	}
	raw, err := delegation.ToJSON(v)
	if err != nil {
		return ans, err
	}
	ans.Truth, err = canon.Decode(raw)
	return ans, err
}

// checkTruth checks a model's answer: against the outputs it must name,
// or, for a Maintains with facets, by the rule of the whole truth or its
// facets (callgraph.Truth). An answered error is the render's either way.
func checkTruth(sp *spec.Spec, info llm.RenderInfo, v delegation.Value) (delegation.Value, error) {
	if o, ok := v.(*delegation.Object); ok && callgraph.HasFacets(sp) {
		if _, answeredError := o.Get("error"); !answeredError {
			return callgraph.Truth(sp, o)
		}
	}
	return llm.CheckRender(info, v)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
