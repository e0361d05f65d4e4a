package testrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/service"
	"github.com/proselang/prose/spec"
)

// This file is the one place that runs a subject: it turns a Case into a
// run of the run library (bind, journal, run) and gives back the value.
// Everything else in the package works on Cases and values.

// Models are the model hooks of a test run; the zero value has no model.
type Models struct {
	// JudgeFor builds the judge of a subject's natural-language
	// conditions (nil: no model).
	JudgeFor func(sp *spec.Spec) delegation.Judge
	// LLM builds the service of an `llm` binding (nil: no model).
	LLM func(b *bind.Slot) (service.Service, error)
	// Render builds the service rendering a function or responsibility
	// (nil: no model).
	Render func(b *bind.Render) (service.Service, error)
	// Subagent builds the service of a script's sessions (nil: no
	// model).
	Subagent func(b *bind.Subagent) (service.Service, error)
	// Claims judges the expectations no rule decides (nil: no model).
	Claims delegation.Judge
	// Secrets are scrubbed from journals (API keys).
	Secrets []string
}

// errNeedsModel is what the stand-ins for an absent model answer: the run
// stops there, and the test is skipped, not passed.
var errNeedsModel = errors.New("needs a model, and none is configured")

// prepared is a subject bound and ready to run.
type prepared struct {
	// world is the scratch directory of a test with ### Drains (nothing
	// else is prepared).
	world string
	r     *run.Run
	need  *modelNeed
}

// modelNeed remembers the first thing that asked for the absent model.
type modelNeed struct {
	once sync.Once
	what atomic.Value // string
}

// note records what needed a model and returns the error to answer with.
func (n *modelNeed) note(what string) error {
	n.once.Do(func() { n.what.Store(what) })
	return fmt.Errorf("%s: %w", what, errNeedsModel)
}

// reason is what needed a model, "" when nothing did.
func (n *modelNeed) reason() string {
	s, _ := n.what.Load().(string)
	return s
}

// prepare binds c's subject with its fixtures through run.Prepare, its
// exec services working in dir, journaled under runDir ("" for none).
// The run's directory on record is the test's own: the scratch directory
// is gone when the test ends, and prose replay and prose resume start
// from the recorded directory. Nothing runs. The error is a usage problem
// of the test (an unbound slot, a missing input), reported before any
// test runs.
func prepare(c *Case, dir, runDir string, m Models) (*prepared, error) {
	var b bind.Settings
	for _, s := range c.Slots {
		b.Slots = append(b.Slots, bind.Assignment{Name: s.Name, Value: s.Value})
	}
	for _, s := range c.Config {
		b.Config = append(b.Config, bind.Assignment{Name: s.Name, Value: s.Value})
	}
	if len(c.Inputs) > 0 {
		raw, err := json.Marshal(c.Inputs)
		if err != nil {
			return nil, err
		}
		b.InputJSON = string(raw)
	}
	need := &modelNeed{}
	hooks := &run.ModelHooks{JudgeFor: m.JudgeFor, LLM: m.LLM, Render: m.Render, Subagent: m.Subagent}
	if hooks.LLM == nil {
		hooks.LLM = func(sb *bind.Slot) (service.Service, error) {
			return &service.Func{Name: sb.Name, Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
				return nil, need.note("slot " + sb.Path + " is bound to llm")
			}}, nil
		}
	}
	if hooks.Render == nil {
		hooks.Render = func(rb *bind.Render) (service.Service, error) {
			return &service.Func{Name: rb.Name, Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
				return nil, need.note(rb.Name + " renders through a model")
			}}, nil
		}
	}
	if hooks.Subagent == nil {
		hooks.Subagent = func(sb *bind.Subagent) (service.Service, error) {
			return &service.Func{Name: sb.Name, Fn: func(context.Context, *delegation.CallRequest) (delegation.Value, error) {
				return nil, need.note(sb.Name + " is answered by a model")
			}}, nil
		}
	}
	if hooks.JudgeFor == nil {
		hooks.JudgeFor = func(*spec.Spec) delegation.Judge { return absentJudge{need} }
	}
	req := run.Request{Spec: c.SubjectPath, Dir: c.Dir, Bindings: b}
	o := run.Options{RunDir: runDir, SyncEvery: run.DefaultSyncEvery, WorkDir: dir, Models: hooks, ContractCheck: lint.Contract}
	r, err := run.Prepare(context.Background(), req, o)
	if err != nil {
		return nil, err
	}
	return &prepared{r: r, need: need}, nil
}

// run runs a prepared subject. needModel says what stopped the run for
// want of a model ("" when nothing did).
func (pr *prepared) run(ctx context.Context) (v delegation.Value, runID string, needModel string, err error) {
	var res *run.Result
	if err = pr.r.Start(ctx); err == nil {
		res, err = pr.r.Wait()
	} else {
		err = fmt.Errorf("journal: %w", err)
	}
	if res != nil {
		v, runID = res.Value, res.RunID
	}
	need := pr.need.reason()
	if need == "" && errors.Is(err, errNeedsModel) {
		need = "the run needs one"
	}
	return v, runID, need, err
}

// absentJudge stands in for the model judge when none is configured.
type absentJudge struct{ need *modelNeed }

func (a absentJudge) Judge(_ context.Context, j *delegation.Judgment) (delegation.Verdict, error) {
	if j.IsChoice() {
		return delegation.Verdict{}, a.need.note(fmt.Sprintf("choice %q at %s needs a model to pick an option", j.Cond.Text, j.Pos))
	}
	return delegation.Verdict{}, a.need.note(fmt.Sprintf("condition %q at %s needs judging", j.Cond.Text, j.Pos))
}

// mkScratch makes a test's own working directory.
func mkScratch(base, name string) (string, error) {
	return os.MkdirTemp(base, "prose-test-"+safeName(name)+"-")
}
