package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/world/graph"
	"github.com/proselang/prose/world/receipt"
	"github.com/proselang/prose/world/store"
)

// WorldInput is the input of world.
type WorldInput struct {
	Path    string `json:"path" jsonschema:"the project directory: its state is the nearest .prose/world at or above it"`
	Node    string `json:"node" jsonschema:"the node's id or name"`
	Facet   string `json:"facet,omitempty" jsonschema:"only this member of the truth"`
	Version string `json:"version,omitempty" jsonschema:"a committed version (sha256:HEX, as a receipt names it) instead of the published truth"`
	State   string `json:"state,omitempty" jsonschema:"the state directory, when it is not PATH/.prose/world"`
}

// WorldOutput is the result of world.
type WorldOutput struct {
	Node    string `json:"node"`
	Facet   string `json:"facet,omitempty"`
	Version string `json:"version,omitempty" jsonschema:"the version shown: the one asked for, or the last receipt's"`
	Truth   any    `json:"truth" jsonschema:"the truth (or its facet), as prose world show prints it"`
}

// ReceiptsInput is the input of receipts.
type ReceiptsInput struct {
	Path   string `json:"path" jsonschema:"the project directory: its state is the nearest .prose/world at or above it"`
	Node   string `json:"node,omitempty" jsonschema:"only this node's receipts (and cost), by id or name; verify always checks every node"`
	State  string `json:"state,omitempty" jsonschema:"the state directory, when it is not PATH/.prose/world"`
	Verify bool   `json:"verify,omitempty" jsonschema:"check every ledger's chain and signatures, the stored versions and the published files instead of listing"`
	Cost   bool   `json:"cost,omitempty" jsonschema:"sum requests, tokens and programs by node and by wake source instead of listing"`
}

// ReceiptsOutput is the result of receipts: the receipts when neither
// verify nor cost is asked, else what was asked.
type ReceiptsOutput struct {
	Count    int                `json:"count" jsonschema:"how many receipts were read"`
	Receipts []*receipt.Receipt `json:"receipts,omitempty" jsonschema:"in ledger order (by drain, then seq), each with the fields prose receipts --format json prints"`
	Verify   *VerifyResult      `json:"verify,omitempty"`
	Cost     *CostResult        `json:"cost,omitempty"`
}

// VerifyResult is what receipts with verify found.
type VerifyResult struct {
	OK       bool      `json:"ok" jsonschema:"true when every chain, signature, version and published file checks"`
	Problems []Problem `json:"problems"`
}

// Problem is one thing verify found wrong.
type Problem struct {
	File    string `json:"file" jsonschema:"the file that is wrong"`
	Message string `json:"message"`
}

// CostResult is what receipts with cost sums, as prose receipts cost.
type CostResult struct {
	ByNode []receipt.CostRow `json:"by_node"`
	ByWake []receipt.CostRow `json:"by_wake"`
}

func (s *Server) addWorldTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "world", Description: "A world model node's published truth (or one facet of it, or a committed version) as JSON, as prose world show prints it; the state is the project's .prose/world, which prose run DIR drains into."},
		safe(s.worldTool))
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "receipts", Description: "A world model's receipts in ledger order, as prose receipts --format json prints them; with verify the check of every chain, signature, version and published file (each problem with its file); with cost the requests and tokens by node and by wake source."},
		safe(s.receiptsTool))
}

// state opens the state directory of a world or receipts call, relative
// paths resolved against the server's directory as run's are.
func (s *Server) state(path, state string) (*store.Store, error) {
	if path == "" && state == "" {
		return nil, errors.New("give the project directory in path (or its state directory in state)")
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(s.o.Dir, p)
	}
	return store.Find(abs(state), abs(path))
}

func (s *Server) worldTool(_ context.Context, _ *mcp.CallToolRequest, in WorldInput) (*mcp.CallToolResult, WorldOutput, error) {
	if in.Node == "" {
		return nil, WorldOutput{}, errors.New("world: give the node's id or name in node")
	}
	st, err := s.state(in.Path, in.State)
	if err != nil {
		return nil, WorldOutput{}, fmt.Errorf("world: %w", err)
	}
	stored, _ := st.Nodes()
	in.Node = graph.StoredNode(stored, st.Dir, in.Node)
	v, err := st.Show(in.Node, in.Facet, in.Version)
	if err != nil {
		return nil, WorldOutput{}, fmt.Errorf("world: %w", err)
	}
	out := WorldOutput{Node: in.Node, Facet: in.Facet, Version: in.Version, Truth: v}
	if out.Version == "" {
		if r, err := st.CheckedLast(in.Node); err == nil && r != nil {
			out.Version = r.Version
		}
	}
	return nil, out, nil
}

func (s *Server) receiptsTool(_ context.Context, _ *mcp.CallToolRequest, in ReceiptsInput) (*mcp.CallToolResult, ReceiptsOutput, error) {
	st, err := s.state(in.Path, in.State)
	if err != nil {
		return nil, ReceiptsOutput{}, fmt.Errorf("receipts: %w", err)
	}
	if in.Node != "" {
		stored, _ := st.Nodes()
		in.Node = graph.StoredNode(stored, st.Dir, in.Node)
	}
	// Verify comes first: the receipts of a ledger that does not check
	// are refused (store.Receipts), and verify is what names its problems.
	var out ReceiptsOutput
	if in.Verify {
		problems, err := st.Verify(nil, nil)
		if err != nil {
			return nil, ReceiptsOutput{}, fmt.Errorf("receipts verify: %w", err)
		}
		v := &VerifyResult{OK: len(problems) == 0, Problems: []Problem{}}
		for _, p := range problems {
			v.Problems = append(v.Problems, Problem{File: p.File, Message: p.Msg})
		}
		out.Verify = v
		if !v.OK && !in.Cost {
			return nil, out, nil
		}
	}
	rs, err := st.Receipts(in.Node)
	if err != nil {
		return nil, ReceiptsOutput{}, fmt.Errorf("receipts: %w", err)
	}
	out.Count = len(rs)
	if in.Cost {
		byNode, byWake := receipt.Costs(rs)
		out.Cost = &CostResult{ByNode: byNode, ByWake: byWake}
	}
	if !in.Verify && !in.Cost {
		out.Receipts = rs
	}
	return nil, out, nil
}
