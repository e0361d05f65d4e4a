// Package propose asks a model to wire the Requires items a project's
// graph leaves unresolved, for a person to review: `prose graph
// --propose`.
//
// Decided: the model is never the wiring. It is shown the nodes (ids,
// titles, facets, fields, world-model names) and each unresolved item
// (its node, name, text, and why no rule bound it), and answers one
// proposal per item: a producer and part, or none (a caller input). Each
// answer is checked against the graph (the item is unresolved, the
// producer is another node, the part is its facet, field or @atomic);
// what fails is dropped with the reason. What is left is appended to the
// project's prose.wiring.yaml, each line under a comment naming the model
// and its reason, and the graph is wired again from the file: rule (d),
// which a reader can see and edit, and which changes only when the file
// does.
//
// Main types: Proposal, Rejected. Entry points: Ask, Append.
package propose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/proselang/prose/internal/filekind"
	"github.com/proselang/prose/internal/wholefile"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/world/graph"
)

// Proposal is one wiring the model proposes: subscriber.input:
// producer.part.
type Proposal struct {
	Subscriber string `json:"subscriber"`
	Input      string `json:"input"`
	Producer   string `json:"producer"`
	Part       string `json:"part"`
	Reason     string `json:"reason"`
}

// Rejected is an answer that does not fit the graph.
type Rejected struct {
	Proposal
	Why string
}

// Key is the wiring file's key of p: subscriber.input.
func (p Proposal) Key() string { return p.Subscriber + "." + p.Input }

// Value is the wiring file's value of p: producer, or producer.part.
func (p Proposal) Value() string {
	if p.Part == "" || p.Part == graph.Atomic {
		return p.Producer
	}
	return p.Producer + "." + p.Part
}

const system = `You wire a project of OpenProse responsibilities. Each node maintains a truth (a JSON object whose members are its facets and fields); a node's ### Requires item subscribes to one producer's truth or part. The rules a program applies have left the items below unresolved. For each, propose the producer and part it most plausibly means, or none when it is an input given from outside. Answer JSON: {"proposals": [{"subscriber", "input", "producer", "part", "reason"}]}, one per item, "producer": "" for none, "part": a facet or field of the producer, or "@atomic" for its whole truth; "reason": one short sentence.`

var schema = json.RawMessage(`{"type":"object","properties":{"proposals":{"type":"array","items":{"type":"object","properties":{"subscriber":{"type":"string"},"input":{"type":"string"},"producer":{"type":"string"},"part":{"type":"string"},"reason":{"type":"string"}},"required":["subscriber","input","producer","part","reason"],"additionalProperties":false}}},"required":["proposals"],"additionalProperties":false}`)

// Result is what Ask got: the proposals that fit the graph, those that
// do not, and what the request cost.
type Result struct {
	OK                  []Proposal
	Rejected            []Rejected
	Model               string
	Requests            int
	TokensIn, TokensOut int
}

// Ask puts g's unresolved items to the model in one request; nothing is
// asked when nothing is unresolved.
func Ask(ctx context.Context, g *graph.Graph, c *llm.Client, model string) (*Result, error) {
	res := &Result{}
	items := unresolved(g)
	if len(items) == 0 {
		return res, nil
	}
	var nodes []map[string]any
	for _, n := range g.Nodes {
		m := map[string]any{"id": n.ID, "kind": n.Kind, "title": n.Title, "facets": n.Facets, "fields": n.Fields}
		if n.Spec.Truth != nil {
			m["world_model_names"] = n.Spec.Truth.Names
		}
		nodes = append(nodes, m)
	}
	var asks []map[string]any
	for _, u := range items {
		asks = append(asks, map[string]any{"subscriber": u.Node, "input": u.Item.Name, "text": u.Item.Text, "why": why(u), "candidates": u.Candidates})
	}
	user, err := json.MarshalIndent(map[string]any{"nodes": nodes, "unresolved": asks}, "", "  ")
	if err != nil {
		return nil, err
	}
	reply, err := c.Chat(ctx, llm.ChatRequest{Model: model, System: system, Messages: []llm.Message{{Role: "user", Content: string(user)}},
		Schema: &llm.Schema{Name: "wiring", JSON: schema}})
	res.Requests, res.TokensIn, res.TokensOut, res.Model = 1, reply.TokensIn, reply.TokensOut, reply.Model
	if err != nil {
		return res, err
	}
	var ans struct {
		Proposals []Proposal `json:"proposals"`
	}
	if err := json.Unmarshal([]byte(stripFence(reply.Content)), &ans); err != nil {
		return res, fmt.Errorf("the model's answer is not the JSON asked for: %v", err)
	}
	open := map[string]bool{}
	for _, u := range items {
		open[u.Node+"."+u.Item.Name] = true
	}
	for _, p := range ans.Proposals {
		if p.Producer == "" {
			continue // a caller input, as the model reads it
		}
		if why := check(g, p, open); why != "" {
			res.Rejected = append(res.Rejected, Rejected{p, why})
			continue
		}
		delete(open, p.Key()) // one proposal per item
		res.OK = append(res.OK, p)
	}
	return res, nil
}

func why(u *graph.Unresolved) string {
	switch u.Why {
	case graph.CodeAmbiguous:
		return "ambiguous: several producers could give it"
	case graph.CodeUnsatisfied:
		return "unsatisfied: nothing named so maintains it"
	}
	return "nothing maintains it: an error unless a producer gives it (or a drain's caller, with --input)"
}

// unresolved lists g's unresolved items that have a name, of nodes g
// still holds.
func unresolved(g *graph.Graph) []*graph.Unresolved {
	var out []*graph.Unresolved
	for _, u := range g.Unresolved {
		if u.Item.Name != "" && g.Node(u.Node) != nil {
			out = append(out, u)
		}
	}
	return out
}

// check says why p does not fit g ("" when it does).
func check(g *graph.Graph, p Proposal, open map[string]bool) string {
	if !open[p.Key()] {
		return fmt.Sprintf("%s is not an unresolved item", p.Key())
	}
	prod := g.Node(p.Producer)
	switch {
	case prod == nil:
		return fmt.Sprintf("no node is %q", p.Producer)
	case prod.ID == p.Subscriber:
		return "a node does not subscribe to itself"
	case p.Part != "" && p.Part != graph.Atomic && !contains(prod.Facets, p.Part) && !contains(prod.Fields, p.Part):
		return fmt.Sprintf("%s has no part %q (facets: %s; fields: %s)", prod.ID, p.Part, strings.Join(prod.Facets, ", "), strings.Join(prod.Fields, ", "))
	}
	return ""
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func stripFence(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	return s
}

// Append writes ps to root's wiring file (creating it), after what it
// holds, each under a comment naming the model and the reason; keys the
// file already has are left as they are and returned as kept. It
// returns the file's path.
func Append(root string, ps []Proposal, model string) (path string, kept []Proposal, err error) {
	path = filepath.Join(root, graph.WiringFile)
	old, err := filekind.ReadFile(path) // a named pipe is refused, not waited on
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return path, nil, err
	}
	var b strings.Builder
	b.Write(old)
	if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
		b.WriteByte('\n')
	}
	wrote := 0
	for _, p := range ps {
		if hasKey(string(old), p.Key()) {
			kept = append(kept, p)
			continue
		}
		if wrote == 0 {
			fmt.Fprintf(&b, "\n# Proposed by prose graph --propose (model %s): review each line, then commit.\n", model)
		}
		fmt.Fprintf(&b, "# %s\n%s: %s\n", oneLine(p.Reason), p.Key(), p.Value())
		wrote++
	}
	if wrote == 0 {
		return path, kept, nil
	}
	return path, kept, wholefile.Write(path, []byte(b.String()), 0o644)
}

func hasKey(src, key string) bool {
	for _, l := range strings.Split(src, "\n") {
		if k, _, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == key && !strings.HasPrefix(l, " ") {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(no reason given)"
	}
	return s
}
