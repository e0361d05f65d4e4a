package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/spec"
	"github.com/proselang/prose/testrun"
)

// TestInput is the input of test.
type TestInput struct {
	Paths []string `json:"paths" jsonschema:"test files (kind: test) or directories walked for them; relative to the server's directory"`
	Run   string   `json:"run,omitempty" jsonschema:"only the tests whose name matches this regular expression"`
}

// TestOutput is the result of test.
type TestOutput struct {
	Results []TestResult `json:"results"`
	Passed  int          `json:"passed"`
	Failed  int          `json:"failed"`
	Errors  int          `json:"errors"`
	Skipped int          `json:"skipped" jsonschema:"tests that need a model when none is configured"`
	OK      bool         `json:"ok" jsonschema:"true when no test failed or errored: prose test would exit 0"`
}

// TestResult is one test's outcome, as prose test --json prints it.
type TestResult struct {
	Name   string     `json:"name"`
	File   string     `json:"file"`
	Status string     `json:"status" jsonschema:"pass, fail, error or skip"`
	Reason string     `json:"reason,omitempty" jsonschema:"why the test errored or was skipped"`
	Items  []TestItem `json:"items,omitempty" jsonschema:"the expectations checked, in file order"`
	RunID  string     `json:"run_id,omitempty" jsonschema:"the journal of the test's run (replay shows it)"`
}

// TestItem is one expectation of a test.
type TestItem struct {
	Text     string `json:"text"`
	Pos      string `json:"pos" jsonschema:"FILE:LINE:COL of the expectation"`
	Negated  bool   `json:"negated,omitempty" jsonschema:"an Expects Not item"`
	Status   string `json:"status" jsonschema:"pass, fail, or skip (needs a model)"`
	Observed string `json:"observed" jsonschema:"the value it was checked against, as JSON, cut"`
	Rule     string `json:"rule" jsonschema:"what decided it"`
	Detail   string `json:"detail,omitempty"`
}

// testTool runs prose test on paths: each test's run is journaled under
// the server's run directory, and a test that needs a model when none is
// configured is skipped, never passed.
func (s *Server) testTool(ctx context.Context, _ *mcp.CallToolRequest, in TestInput) (*mcp.CallToolResult, TestOutput, error) {
	if len(in.Paths) == 0 {
		return nil, TestOutput{}, errors.New("test: give at least one test file or directory in paths")
	}
	var re *regexp.Regexp
	if in.Run != "" {
		var err error
		if re, err = regexp.Compile(in.Run); err != nil {
			return nil, TestOutput{}, fmt.Errorf("test: run: %v", err)
		}
	}
	paths := make([]string, len(in.Paths))
	for i, p := range in.Paths {
		paths[i] = p
		if !filepath.IsAbs(p) {
			paths[i] = filepath.Join(s.o.Dir, p)
		}
	}
	files, err := testrun.Discover(paths)
	if err != nil {
		return nil, TestOutput{}, fmt.Errorf("test: %v", err)
	}
	var cases []*testrun.Case
	for _, f := range files {
		cs, err := testrun.LoadCases(f)
		if err != nil {
			cs = []*testrun.Case{testrun.Broken(f, err)}
		}
		cases = append(cases, cs...)
	}
	models, err := s.testModels()
	if err != nil {
		return nil, TestOutput{}, fmt.Errorf("test: %v", err)
	}
	opts := testrun.Options{Models: models, RunDir: s.o.RunDir, Parallel: 1}
	suite, err := testrun.Prepare(testrun.Match(cases, re), opts)
	if err != nil {
		return nil, TestOutput{}, fmt.Errorf("test: no test was run: %v", err)
	}
	defer suite.Close()
	results := suite.Run(ctx, opts)
	c := testrun.Count(results)
	out := TestOutput{Results: []TestResult{}, Passed: c.Passed, Failed: c.Failed, Errors: c.Errors, Skipped: c.Skipped, OK: c.OK()}
	for _, r := range results {
		tr := TestResult{Name: r.Name, File: r.File, Status: string(r.Status), Reason: r.Reason, RunID: r.RunID}
		for _, it := range r.Items {
			tr.Items = append(tr.Items, TestItem{Text: it.Text, Pos: it.Pos.String(), Negated: it.Negated, Status: string(it.Status),
				Observed: it.Observed, Rule: it.Rule, Detail: it.Detail})
		}
		out.Results = append(out.Results, tr)
	}
	return nil, out, nil
}

// testModels are the models of the server's environment, as prose test
// reads them; none configured: tests that need one skip.
func (s *Server) testModels() (testrun.Models, error) {
	getenv := s.o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	m, err := run.NewModels(getenv, "", "")
	if err != nil {
		return testrun.Models{}, err
	}
	out := testrun.Models{Secrets: m.Secrets()}
	c := m.Configured()
	if c == nil {
		return out, nil
	}
	out.LLM, out.Render, out.Subagent = m.SlotService, m.RenderService, m.SubagentService
	out.JudgeFor = func(sp *spec.Spec) delegation.Judge {
		return llm.NewModelJudge(c, llm.JudgeOptions{Pattern: sp.Name, Invariants: sp.Invariants})
	}
	out.Claims = llm.NewModelJudge(c, llm.JudgeOptions{Pattern: "test expectations"})
	return out, nil
}
