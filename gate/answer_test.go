package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/gate"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
)

func question(t *testing.T, js string) delegation.Value {
	t.Helper()
	v, err := delegation.FromJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// An answer is shaped and checked the same way whoever gives it: a bare
// option is {"choice": OPTION}, a choice outside the options, a key the
// gate does not ask for and a field of the wrong type are refused, naming
// what the gate takes.
func TestShapeAnswers(t *testing.T) {
	opts := `{"question": "Ship?", "options": ["go", "stop"]}`
	fields := `{"question": "Review", "fields": {"approved": "boolean", "notes": "string"}}`
	for _, tt := range []struct {
		kind, q, answer string
		want            string // the shaped answer, or the refusal's text
		refused         bool
	}{
		{"gate", opts, `"go"`, `{"choice":"go"}`, false},
		{"gate", opts, `{"choice": "stop"}`, `{"choice": "stop"}`, false},
		{"gate", opts, `{"choice": "aprove"}`, `choice "aprove" is not one of the options ["go", "stop"]`, true},
		{"gate", opts, `"aprove"`, `"aprove" is not one of the options ["go", "stop"]`, true},
		{"gate", opts, `{"choice": "go", "why": "x"}`, `the key "why", which the gate does not ask for`, true},
		{"gate", opts, `3`, `the answer is integer; the gate takes {"choice": one of ["go", "stop"]}`, true},
		{"gate", opts, `{}`, `the answer has no choice`, true},
		{"gate", fields, `{"approved": true, "notes": "ok"}`, `{"approved": true, "notes": "ok"}`, false},
		{"gate", fields, `{"approved": "yes", "notes": "ok"}`, `field "approved" is "yes", not boolean`, true},
		{"gate", fields, `{"approved": true}`, `the answer has no field "notes"`, true},
		{"gate", fields, `"approved"`, `the answer is string`, true},
		{"gate", `{"fields": {"n": "intger"}}`, `{"n": 1}`, `the gate's field "n" has the type "intger"`, true},
		{"gate", `{"release": "v1"}`, `"anything"`, `"anything"`, false},
		{"gate", `"Ship it?"`, `{"x": 1}`, `{"x": 1}`, false},
		{"ask_user", `"Which?"`, `"v1"`, `"v1"`, false},
		{"ask_user", `"Which?"`, `{"a": 1}`, `the answer is object: ask_user asks for a string`, true},
	} {
		got, err := gate.Shape(tt.kind, question(t, tt.q), json.RawMessage(tt.answer))
		var ae *gate.AnswerError
		switch {
		case tt.refused && (!errors.As(err, &ae) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %s answered %s: err %v, want a refusal with %q", tt.kind, tt.q, tt.answer, err, tt.want)
		case !tt.refused && (err != nil || string(got) != tt.want):
			t.Errorf("%s %s answered %s = %s, %v; want %s", tt.kind, tt.q, tt.answer, got, err, tt.want)
		}
	}
}

// A recorded answer is checked before it is written: a bare option becomes
// {"choice": OPTION}, a wrong one is refused, a second answer needs
// replace and the journal keeps both; a wrong answer that reached the
// journal anyway (written by other means) fails the resume, naming the
// options, instead of taking a branch.
func TestCheckRecordedAnswers(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	res, err := run.Local{}.Run(ctx, f.req, f.opts)
	waitsAt(t, f, res, err, "L19", `"Which release?"`)
	f.answer(t, res.RunID, "", `"v1"`)
	res, err = run.Resume(ctx, res.RunID, f.opts)
	waitsAt(t, f, res, err, "L20", `{"summary":"v1","options":["ship","hold"]}`)

	var ae *gate.AnswerError
	if _, err := gate.CheckRecorded(waiting(t, f.opts.RunDir, res.RunID), res.RunID, "L20", json.RawMessage(`{"choice":"aprove"}`), false); !errors.As(err, &ae) ||
		!strings.Contains(err.Error(), `choice "aprove" is not one of the options ["ship", "hold"]`) {
		t.Fatalf("a choice outside the options: %v", err)
	}
	shaped, err := gate.CheckRecorded(waiting(t, f.opts.RunDir, res.RunID), res.RunID, "", json.RawMessage(`"hold"`), false)
	if err != nil || string(shaped) != `{"choice":"hold"}` {
		t.Fatalf("a bare option = %s, %v; want {\"choice\":\"hold\"}", shaped, err)
	}
	f.answer(t, res.RunID, "L20", string(shaped))
	if _, err := gate.CheckRecorded(waiting(t, f.opts.RunDir, res.RunID), res.RunID, "L20", json.RawMessage(`"ship"`), false); !errors.As(err, &ae) || !strings.Contains(err.Error(), "give --replace") {
		t.Fatalf("a second answer without replace: %v", err)
	}
	shaped, err = gate.CheckRecorded(waiting(t, f.opts.RunDir, res.RunID), res.RunID, "L20", json.RawMessage(`"ship"`), true)
	if err != nil {
		t.Fatal(err)
	}
	f.answer(t, res.RunID, "L20", string(shaped))
	l, err := journal.ReadFile(filepath.Join(f.opts.RunDir, res.RunID, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var answers []string
	for _, r := range l.Records {
		if r.Type == journal.TypeAnswer && r.ID.Key() == "L20" {
			answers = append(answers, string(r.Gate.Value))
		}
	}
	if strings.Join(answers, " ") != `{"choice":"hold"} {"choice":"ship"}` {
		t.Fatalf("journaled answers %v, want both", answers)
	}
	got, err := run.Resume(ctx, res.RunID, f.opts)
	if err != nil || js(t, got.Value) != `{"release":"v1","verdict":{"choice":"ship"},"shipped":"did v1"}` {
		t.Fatalf("resume: %v", err)
	}

	// An answer journaled without the check is refused where the run takes it.
	f = newFixture(t)
	res, err = run.Local{}.Run(ctx, f.req, f.opts)
	waitsAt(t, f, res, err, "L19", `"Which release?"`)
	f.answer(t, res.RunID, "", `"v1"`)
	res, err = run.Resume(ctx, res.RunID, f.opts)
	waitsAt(t, f, res, err, "L20", `{"summary":"v1","options":["ship","hold"]}`)
	f.answer(t, res.RunID, "L20", `"go"`)
	if _, err = run.Resume(ctx, res.RunID, f.opts); err == nil || !strings.Contains(err.Error(), `"go" is not one of the options ["ship", "hold"]`) {
		t.Fatalf("resume with an answer outside the options: %v", err)
	}
	if f.calls.Load() != 1 {
		t.Fatalf("%d shipper calls; the run must not go on past a refused answer", f.calls.Load())
	}
}

// FuzzShape: any question and answer are read without a panic, and an
// answer a gate takes is taken again unchanged once shaped.
func FuzzShape(f *testing.F) {
	f.Add(`{"options": ["go", "stop"]}`, `"go"`)
	f.Add(`{"fields": {"approved": "boolean", "n": "integer[]"}}`, `{"approved": true, "n": [1]}`)
	f.Add(`{"options": ["a"], "fields": {"x": "string"}}`, `{"choice": "a", "x": ""}`)
	f.Add(`"Ship?"`, `{"choice": 1}`)
	f.Fuzz(func(t *testing.T, question, answer string) {
		q, err := delegation.FromJSON([]byte(question))
		if err != nil {
			return
		}
		for _, kind := range []string{"gate", "ask_user"} {
			shaped, err := gate.Shape(kind, q, json.RawMessage(answer))
			if err != nil {
				continue
			}
			again, err := gate.Shape(kind, q, shaped)
			if err != nil || string(again) != string(shaped) {
				t.Fatalf("%s %s: %s shaped to %s, then %s, %v", kind, question, answer, shaped, again, err)
			}
		}
	})
}

// waiting is the gates the journal of run id says it waits at.
func waiting(t *testing.T, base, id string) []delegation.GateState {
	t.Helper()
	gates, err := journal.Waiting(base, id)
	if err != nil {
		t.Fatal(err)
	}
	return gates
}
