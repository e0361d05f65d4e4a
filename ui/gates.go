package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/gate"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
)

// gateRoutes registers the actions on a run's gates: answer and resume.
func (s *Server) gateRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /ui/runs/{id}/answer", s.answer)
	mux.HandleFunc("POST /ui/runs/{id}/resume", s.resume)
	mux.HandleFunc("POST /ui/runs/{id}/replay", s.replay)
}

// gateView is a waiting gate as its form shows it.
type gateView struct {
	journal.GateState
	Key string
	// Text is the question as a person reads it.
	Text string
	// Options are the options of a gate's question, Fields its declared
	// fields (sorted by name); a gate with neither takes any JSON.
	Options []string
	Fields  []fieldView
	// Expired: its timeout passed; a resume takes its on_fail value.
	Expired bool
}

// fieldView is one declared field of a gate and the input it gets.
type fieldView struct {
	Name, Type string
	Input      string // text, number, boolean, json
}

// AskUser reports whether the gate is an ask_user (its answer is text).
func (g gateView) AskUser() bool { return g.Kind == "ask_user" }

// gateViews are the gates the run at path (runID under base) waits at.
func gateViews(path, runID, base string, now time.Time) []gateView {
	gs, err := journal.Waiting(base, runID)
	if err != nil {
		return nil
	}
	var out []gateView
	for _, g := range gs {
		v := gateView{GateState: g, Key: g.Path.Key(), Text: question(g.Question)}
		v.Expired = !g.Deadline.IsZero() && now.After(g.Deadline)
		if q, err := delegation.FromJSON(g.Question); err == nil && g.Kind != "ask_user" {
			v.Options = gate.Options(q)
			fs, _ := gate.Fields(q)
			for name, typ := range fs {
				v.Fields = append(v.Fields, fieldView{Name: name, Type: typ, Input: inputFor(typ)})
			}
			sort.Slice(v.Fields, func(i, j int) bool { return v.Fields[i].Name < v.Fields[j].Name })
		}
		out = append(out, v)
	}
	return out
}

// inputFor is the form input of a field's type.
func inputFor(typ string) string {
	switch strings.ToLower(typ) {
	case "string":
		return "text"
	case "integer", "number":
		return "number"
	case "boolean":
		return "boolean"
	}
	return "json"
}

// answer records the answer a gate's form gives, as prose answer does
// (run.Answer: checked against the gate, journaled).
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("id")
	key := r.PostForm.Get("gate")
	l, err := s.readRun(runID)
	if err != nil {
		s.fail(w, http.StatusNotFound, "Run "+runID, err.Error())
		return
	}
	var g *gateView
	views := gateViews(l.Path, runID, s.o.RunDir, s.o.Now())
	for i := range views {
		if views[i].Key == key {
			g = &views[i]
		}
	}
	if g == nil {
		s.showRun(w, http.StatusConflict, runID, "", fmt.Sprintf("run %s waits at no gate %s (any more): nothing was recorded", runID, key))
		return
	}
	val, err := formAnswer(g, r.PostForm)
	if err == nil {
		_, err = run.Answer(s.o.RunDir, runID, key, val, r.PostForm.Get("replace") != "")
	}
	if err != nil {
		code := http.StatusInternalServerError
		var ge *gate.AnswerError
		var je *journal.AnswerError
		if errors.As(err, &ge) || errors.As(err, &je) || errors.Is(err, errForm) {
			code = http.StatusUnprocessableEntity
		}
		s.showRun(w, code, runID, "", err.Error())
		return
	}
	s.publish("runs", map[string]any{"ids": []string{runID}})
	http.Redirect(w, r, "/ui/runs/"+runID+"?notice="+url.QueryEscape("answered "+g.Kind+" "+key+"; resume to go on"), http.StatusSeeOther)
}

// errForm marks a form that cannot be made into an answer.
var errForm = errors.New("the form")

// formAnswer makes the answer's JSON of a gate's form: the JSON written
// in its json field when there is one, else text for an ask_user, else
// {"choice": OPTION, FIELD: VALUE...} of the options and fields. The
// gate checks it (run.Answer), as it checks prose answer's.
func formAnswer(g *gateView, f url.Values) (json.RawMessage, error) {
	if raw := strings.TrimSpace(f.Get("json")); raw != "" {
		if !json.Valid([]byte(raw)) {
			return nil, fmt.Errorf("%w: the JSON answer is not JSON", errForm)
		}
		return json.RawMessage(raw), nil
	}
	if g.AskUser() {
		b, _ := json.Marshal(f.Get("value"))
		return b, nil
	}
	if len(g.Options) == 0 && len(g.Fields) == 0 {
		return nil, fmt.Errorf("%w: the gate takes any JSON value: write it in the JSON answer", errForm)
	}
	obj := map[string]any{}
	if len(g.Options) > 0 {
		c := f.Get("choice")
		if c == "" {
			return nil, fmt.Errorf("%w: choose one of the options", errForm)
		}
		obj["choice"] = c
	}
	for _, fld := range g.Fields {
		v, err := fieldValue(fld, f.Get("field."+fld.Name))
		if err != nil {
			return nil, err
		}
		obj[fld.Name] = v
	}
	b, err := json.Marshal(obj)
	return b, err
}

// fieldValue reads one field's input as its type.
func fieldValue(fld fieldView, s string) (any, error) {
	switch fld.Input {
	case "text":
		return s, nil
	case "boolean":
		switch s {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("%w: field %s: choose true or false", errForm, fld.Name)
	case "number":
		// read as a value's numbers are (delegation.FromJSON): an integer
		// is kept exactly, or refused, never rounded into a float
		v, err := delegation.FromJSON([]byte(strings.TrimSpace(s)))
		switch v.(type) {
		case int64, float64:
			return v, nil
		}
		if inexact := (*delegation.InexactIntegerError)(nil); errors.As(err, &inexact) {
			return nil, fmt.Errorf("%w: field %s: %s", errForm, fld.Name, inexact.Reason())
		}
		return nil, fmt.Errorf("%w: field %s: %q is not a number", errForm, fld.Name, s)
	}
	if _, err := delegation.FromJSON([]byte(s)); err != nil {
		return nil, fmt.Errorf("%w: field %s (%s): write it as JSON (%v)", errForm, fld.Name, fld.Type, strings.TrimPrefix(err.Error(), "invalid JSON: "))
	}
	return json.RawMessage(s), nil
}

// resume starts a resume of the run, as prose resume does (run.Resume
// with Options.Rerun), and shows the run: its page follows the resume
// live. The resume goes on in this process until it ends or the server
// closes (then it stops as Ctrl-C stops prose resume: resumable).
func (s *Server) resume(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("id")
	d, err := s.runData(runID)
	if err != nil {
		s.fail(w, http.StatusNotFound, "Run "+runID, err.Error())
		return
	}
	if d.Sum.Status == journal.StatusRunning {
		s.showRun(w, http.StatusConflict, runID, "", "the run is running in another process: it cannot be resumed until that ends")
		return
	}
	if !s.startResume(runID) {
		s.showRun(w, http.StatusConflict, runID, "", "a resume of this run is already running")
		return
	}
	http.Redirect(w, r, "/ui/runs/"+runID+"?notice="+url.QueryEscape("resuming"), http.StatusSeeOther)
}

// startResume runs the resume of runID in the background, unless one runs.
func (s *Server) startResume(runID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resuming[runID] || s.ctx.Err() != nil {
		return false
	}
	s.resuming[runID] = true
	delete(s.resumed, runID)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		o := s.o.Rerun
		o.RunDir = s.o.RunDir
		_, err := run.Resume(s.ctx, runID, o)
		outcome := "the resume ended: ok"
		switch w := delegation.Waiting(err); {
		case w != nil:
			outcome = "the resume stopped at " + w.Path.Key() + ", waiting for an answer"
		case err != nil:
			outcome = "the resume ended: " + err.Error()
		}
		s.mu.Lock()
		delete(s.resuming, runID)
		s.resumed[runID] = outcome
		s.mu.Unlock()
		s.publish("runs", map[string]any{"ids": []string{runID}})
	}()
	return true
}

// resumeState says whether a resume from the page runs runID, and how the
// last one ended.
func (s *Server) resumeState(runID string) (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resuming[runID], s.resumed[runID]
}
