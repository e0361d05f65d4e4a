package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/proselang/prose/delegation"
)

// Renders.
//
// A function or responsibility with no runnable Execution is rendered: a
// RenderService sends one request whose system prompt is the node's
// contract (description, goal, parameters, returns, strategies,
// invariants, shape, declared errors) and whose user message is the call's
// arguments as JSON. The reply must be one JSON object with exactly the
// node's output names (asked for with a JSON schema, not in OpenAI's strict
// mode, which takes no untyped values; the client falls back to
// instructions when a server refuses schemas), or a
// declared error {"error": NAME, "message": "..."}. The first fails the
// call with a *DeclaredError (catchable by `try`, its name in the catch
// object's `error`); an undeclared error name, a missing output or a
// reply that is not an object is a *ProtocolError.

// Field is a named item of a contract: a parameter, an output, an error.
type Field struct {
	Name        string
	Description string
	// Type is the declared type (integer, string[], ...), or "": a
	// render's schema asks for it.
	Type string
}

// RenderInfo is the contract of the node a render answers for, taken
// from the spec by the caller (this package does not depend on spec).
type RenderInfo struct {
	Name        string // the node's name
	Kind        string // function or responsibility
	Pos         string // the node's position, FILE:LINE:COL, for errors
	Description string
	Goal        string
	Parameters  []Field
	Returns     []Field
	Errors      []Field
	Strategies  []string
	Invariants  []string
	Continuity  []string
	// Maintains is the text of a responsibility's ### Maintains when it
	// says more than its contract items: the truth's shape, what is
	// material, its postconditions and facets.
	Maintains string
	// ReturnsText is the text of a function's ### Returns when it says
	// more than its outputs: its postconditions, `each ... has:` items and
	// conditional clauses (`if research is unavailable: ...`).
	ReturnsText string
	Shape       string
	Guidance    string // the prose of an Execution without code
	// Needs are what the node works from, written as sentences that name
	// no input (Parameters or Requires in prose).
	Needs []string
	// Environment are the host variables of ### Environment: Description
	// says what each is and that the host sets it; values are never
	// stated (they are credentials and capabilities).
	Environment []Field
	Model       string // overrides the client's model ("" for its own)
	// Tools, when set, makes each call a tool session (session.go);
	// Line is the node's line in the .md, which the paths of its model
	// turns carry; MaxTurns bounds the session's model requests (0:
	// DefaultMaxTurns).
	Tools    Toolbox
	Line     int
	MaxTurns int
	// Skills are the skills the node declares (### Skills), each with
	// the text of its SKILL.md, which the system prompt gives whole.
	Skills []Skill
}

// Skill is one skill a render follows: its name as declared, the
// directory it is installed in (where the files its SKILL.md names are)
// and its SKILL.md.
type Skill struct {
	Name string
	Dir  string
	Text string
}

// RenderService answers calls of one node with a model.
type RenderService struct {
	client *Client
	info   RenderInfo
	system string
	schema *Schema
}

// NewRenderService returns the render service of info on c.
func NewRenderService(c *Client, info RenderInfo) *RenderService {
	return &RenderService{client: c, info: info, system: RenderSystemPrompt(info), schema: RenderSchema(info)}
}

// ServiceName implements delegation.Service.
func (s *RenderService) ServiceName() string { return s.info.Name }

// Info returns the contract the service renders.
func (s *RenderService) Info() RenderInfo { return s.info }

// Call sends one render request and checks the reply against the
// contract. The value is an object keyed by the output names.
func (s *RenderService) Call(ctx context.Context, req *delegation.CallRequest) (delegation.Value, error) {
	user, err := SlotUserMessage(req.Args)
	if err != nil {
		return nil, err
	}
	if s.info.Tools != nil {
		return s.session(ctx, req, user)
	}
	model := s.info.Model
	if model == "" {
		model = s.client.Model()
	}
	// A render is a model acting for a node, as a slot is: it takes the
	// slot cap (PROSE_MAX_TOKENS), not the cap of a verdict, although it
	// asks for a schema too.
	limit := s.client.ActingMaxTokens()
	start := time.Now()
	cr := ChatRequest{Model: s.info.Model, System: s.system,
		Messages: []Message{{Role: "user", Content: user}}, Schema: s.schema, MaxTokens: limit}
	reply, err := s.client.Chat(ctx, cr)
	if req.Exchanged != nil {
		x := ExchangeOf(cr, model, reply, err, start)
		x.System, x.Prompt = s.system, user
		req.Exchanged(x)
	}
	if err != nil {
		return nil, stopped(ctx, err)
	}
	if reply.Truncated {
		return nil, fmt.Errorf("%s: the model's reply rendering %s was cut off at the output limit of %d tokens (finish_reason \"length\") after %d bytes: "+
			"raise PROSE_MAX_TOKENS if the answer is meant to be this long", s.info.Pos, s.info.Name, limit, len(reply.Content))
	}
	v, err := ParseReply(reply.Content)
	if err != nil {
		return nil, &ProtocolError{s.info.Name, s.info.Pos, err.Error()}
	}
	return CheckRender(s.info, v)
}

// DeclaredError is a render's answer that it failed with one of the
// node's declared errors.
type DeclaredError struct {
	Name    string // the declared error
	Message string
	Node    string
	Pos     string
}

func (e *DeclaredError) Error() string {
	msg := fmt.Sprintf("%s: %s failed with its declared error %s", e.Pos, e.Node, e.Name)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// ErrorName is the declared error's name (a `catch` object's `error`).
func (e *DeclaredError) ErrorName() string { return e.Name }

// ProtocolError is a render's reply that breaks the contract: not an
// object, outputs missing, or an error the node does not declare.
type ProtocolError struct {
	Node, Pos, Msg string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("%s: render protocol error: %s %s", e.Pos, e.Node, e.Msg)
}

// CheckRender turns a render's reply into the call's value: an object
// with exactly the output names, in declared order, or the error the
// reply stands for.
func CheckRender(info RenderInfo, v delegation.Value) (delegation.Value, error) {
	o, ok := v.(*delegation.Object)
	if !ok {
		return nil, &ProtocolError{info.Name, info.Pos, fmt.Sprintf("answered %s, not a JSON object with %s", describe(v), names(info.Returns))}
	}
	if e, ok := o.Get("error"); ok && e != nil && !declares(info.Returns, "error") {
		name, _ := e.(string)
		msg, _ := o.Get("message")
		m, _ := msg.(string)
		for _, d := range info.Errors {
			if d.Name == name {
				return nil, &DeclaredError{Name: name, Message: m, Node: info.Name, Pos: info.Pos}
			}
		}
		declared := "it declares no errors"
		if len(info.Errors) > 0 {
			declared = "it declares " + names(info.Errors)
		}
		return nil, &ProtocolError{info.Name, info.Pos, fmt.Sprintf("answered the error %q, which it does not declare (%s); message: %s", name, declared, excerpt(m, 300))}
	}
	out := delegation.NewObject()
	var missing []string
	for _, f := range info.Returns {
		x, ok := o.Get(f.Name)
		if !ok {
			missing = append(missing, f.Name)
			continue
		}
		out.Set(f.Name, x)
	}
	if len(missing) > 0 {
		return nil, &ProtocolError{info.Name, info.Pos, fmt.Sprintf("answered without %s (keys given: %s)", strings.Join(missing, ", "), strings.Join(o.Keys(), ", "))}
	}
	return out, nil
}

func declares(fs []Field, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

func names(fs []Field) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return strings.Join(out, ", ")
}

func describe(v delegation.Value) string {
	switch v.(type) {
	case string:
		return "text"
	case *delegation.List:
		return "a list"
	case nil:
		return "nothing"
	}
	t := delegation.TypeName(v) // integer, number, bool: never Go's int64
	if strings.ContainsRune("aeiou", rune(t[0])) {
		return "an " + t
	}
	return "a " + t
}

// RenderSystemPrompt is the system prompt of a render: the node's contract.
func RenderSystemPrompt(info RenderInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You carry out the %s %q. The user message holds its inputs as a JSON object.\n", orDefault(info.Kind, "function"), info.Name)
	section := func(title, text string) {
		if strings.TrimSpace(text) != "" {
			fmt.Fprintf(&b, "\n%s:\n%s\n", title, strings.TrimSpace(text))
		}
	}
	list := func(title string, items []string) {
		if len(items) > 0 {
			section(title, "- "+strings.Join(items, "\n- "))
		}
	}
	fields := func(title string, fs []Field) {
		var items []string
		for _, f := range fs {
			name := f.Name
			if f.Type != "" {
				name += " (" + f.Type + ")"
			}
			items = append(items, strings.TrimSpace(name+": "+f.Description))
		}
		list(title, items)
	}
	section("Description", info.Description)
	section("Goal", info.Goal)
	fields("Inputs", info.Parameters)
	list("What it works from (not given as inputs)", info.Needs)
	fields("Its environment (variables the host sets)", info.Environment)
	fields("Outputs to produce", info.Returns)
	section("What it maintains", info.Maintains)
	section("What it returns must satisfy", info.ReturnsText)
	list("Strategies", info.Strategies)
	list("Invariants (must hold whatever the outcome)", info.Invariants)
	section("Shape", info.Shape)
	section("Guidance", info.Guidance)
	fields("Declared errors", info.Errors)
	for _, sk := range info.Skills {
		section(fmt.Sprintf("Skill %q (installed in %s; follow its instructions where they apply)", sk.Name, sk.Dir), sk.Text)
	}
	fmt.Fprintf(&b, "\nReply with one JSON object whose keys are exactly: %s.", names(info.Returns))
	if len(info.Errors) > 0 {
		fmt.Fprintf(&b, " If and only if one of the declared errors applies, reply instead {\"error\": NAME, \"message\": WHY} with NAME one of: %s.", names(info.Errors))
	}
	return b.String()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// RenderSchema is the JSON schema of a render's reply: an object with
// exactly the output names (any JSON value each), or, when the node
// declares errors, that or an error object naming one of them.
func RenderSchema(info RenderInfo) *Schema {
	props := map[string]any{}
	required := make([]string, 0, len(info.Returns))
	for _, f := range info.Returns {
		prop := map[string]any{"description": f.Description}
		for k, v := range jsonSchemaType(f.Type) {
			prop[k] = v
		}
		props[f.Name] = prop
		required = append(required, f.Name)
	}
	sort.Strings(required)
	outputs := map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	schema := outputs
	if len(info.Errors) > 0 {
		enum := make([]string, len(info.Errors))
		for i, e := range info.Errors {
			enum[i] = e.Name
		}
		failure := map[string]any{"type": "object", "required": []string{"error", "message"}, "additionalProperties": false,
			"properties": map[string]any{"error": map[string]any{"type": "string", "enum": enum}, "message": map[string]any{"type": "string"}}}
		schema = map[string]any{"anyOf": []any{outputs, failure}}
	}
	raw, _ := json.Marshal(schema)
	return &Schema{Name: "render", JSON: raw, Loose: true}
}

// quotedWords is the words of a type that is a set of them, as the
// loader writes it (`"low" | "high"`), or nil.
func quotedWords(t string) []any {
	var out []any
	for p := range strings.SplitSeq(t, "|") {
		p = strings.TrimSpace(p)
		if len(p) < 3 || p[0] != '"' || p[len(p)-1] != '"' || strings.ContainsAny(p[1:len(p)-1], "\"\\") {
			return nil
		}
		out = append(out, p[1:len(p)-1])
	}
	return out
}

// jsonSchemaType is the JSON schema of a declared type ("integer",
// "string[]", "number|null"), or nil when it says nothing a schema can
// (any, run, an unknown name).
func jsonSchemaType(t string) map[string]any {
	if words := quotedWords(t); words != nil {
		return map[string]any{"type": "string", "enum": words}
	}
	t = strings.ToLower(strings.TrimSpace(t))
	if strings.Contains(t, "|") {
		var alts []any
		for _, p := range strings.Split(t, "|") {
			s := jsonSchemaType(p)
			if s == nil {
				return nil
			}
			alts = append(alts, s)
		}
		return map[string]any{"anyOf": alts}
	}
	if elem, ok := strings.CutSuffix(t, "[]"); ok {
		s := map[string]any{"type": "array"}
		if e := jsonSchemaType(elem); e != nil {
			s["items"] = e
		}
		return s
	}
	switch t {
	case "integer", "int":
		return map[string]any{"type": "integer"}
	case "number", "float":
		return map[string]any{"type": "number"}
	case "boolean", "bool":
		return map[string]any{"type": "boolean"}
	case "string", "str", "text":
		return map[string]any{"type": "string"}
	case "object":
		return map[string]any{"type": "object"}
	case "null":
		return map[string]any{"type": "null"}
	case "array", "list":
		return map[string]any{"type": "array"}
	}
	return nil
}
