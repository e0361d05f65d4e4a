package ui

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/proselang/prose/journal"
)

// A run's page shows its journal as a timeline (decided here):
//
//   - every call attempt is one step, from its "start" to its "end"
//     record, with its outcome (ok, error, timeout, canceled, or running
//     when it has no end), its duration and the model requests the
//     journal kept for it ("model" records);
//   - an attempt after the first is a retry; an error a try caught is
//     shown where it was raised ("error" records);
//   - steps whose times overlap ran side by side: consecutive steps that
//     overlap make one block, laid out in lanes, one per loop iteration
//     (the iterations of the call's path), or one per call where the
//     calls are in no loop;
//   - judgments (condition, answer, who decided), gates and answers,
//     parallel groups' outcomes, sessions (resumes) and the outcome are
//     steps of their own, where the journal put them.

// step is one entry of the timeline.
type step struct {
	Kind string // call, judge, gate, answer, group, session, error, final, parallel
	At   string // time since the run started
	Rec  *journal.Record
	Call *callStep
	// Lanes are a parallel block's lanes.
	Lanes []lane
	start time.Time
	end   time.Time
}

// lane is one branch of a parallel block.
type lane struct {
	Label string
	Steps []*step
}

// callStep is one call attempt.
type callStep struct {
	ID      string
	Slot    string
	Pos     string
	Attempt int
	// Depth is how deep in nested runs (and tool sessions) the call is.
	Depth   int
	Outcome string // ok, error, timeout, canceled, waiting, running
	Result  string
	Err     string
	MS      float64
	Args    string
	Models  []*journal.Record
	// Diverged: a replay from the page diverged at this call.
	Diverged bool
	lane     string
}

// ModelTurn reports whether the call is a model turn of a tool session
// (its result the model's content and tool calls).
func (c *callStep) ModelTurn() bool { return c.Slot == "model" && c.Depth > 0 }

// Retry reports whether the attempt retried an earlier one.
func (c *callStep) Retry() bool { return c.Attempt > 1 }

// timeline builds the steps of l.
func timeline(l *journal.Log) []*step {
	start := l.Header.Time
	at := func(t time.Time) string {
		if t.IsZero() || start.IsZero() {
			return ""
		}
		return "+" + dur(t.Sub(start))
	}
	var steps []*step
	// A call's records are those of one path and attempt.
	type attempt struct {
		path string
		n    int
	}
	calls := map[attempt]*step{}
	key := func(r *journal.Record) attempt { return attempt{r.ID.Key(), max(r.Attempt, 1)} }
	for _, r := range l.Records {
		switch r.Type {
		case journal.TypeStart, journal.TypeEnd:
			s := calls[key(r)]
			if s == nil {
				s = &step{Kind: "call", At: at(r.Time), Rec: r, start: r.Time, end: r.Time,
					Call: &callStep{ID: r.ID.Key(), Slot: r.Slot, Pos: r.Pos, Attempt: max(r.Attempt, 1), Depth: min(r.ID.Depth(), 6), Outcome: "running", lane: laneOf(r)}}
				calls[key(r)] = s
				steps = append(steps, s)
			}
			if r.Type == journal.TypeStart {
				if len(r.ArgsValue) > 0 {
					s.Call.Args = string(r.ArgsValue)
				}
				continue
			}
			s.end = r.Time
			c := s.Call
			c.MS, c.Err = r.MS, r.Err
			if s.start.Equal(r.Time) && r.MS > 0 {
				s.start = r.Time.Add(-time.Duration(r.MS * float64(time.Millisecond)))
			}
			switch {
			case r.Kind != "":
				c.Outcome = r.Kind
			default:
				c.Outcome = "ok"
			}
			if len(r.Result) > 0 {
				c.Result = string(r.Result)
			}
		case journal.TypeModel:
			if s := calls[key(r)]; s != nil {
				s.Call.Models = append(s.Call.Models, r)
				continue
			}
			steps = append(steps, &step{Kind: "model", At: at(r.Time), Rec: r, start: r.Time, end: r.Time})
		case journal.TypeGate:
			if s := calls[key(r)]; s != nil && s.Call.Outcome == "running" {
				s.Call.Outcome = "waiting" // at the gate: no end until it is answered
			}
			steps = append(steps, &step{Kind: r.Type, At: at(r.Time), Rec: r, start: r.Time, end: r.Time})
		case journal.TypeJudge, journal.TypeAnswer, journal.TypeSession, journal.TypeError, journal.TypeFinal:
			steps = append(steps, &step{Kind: r.Type, At: at(r.Time), Rec: r, start: r.Time, end: r.Time})
		case journal.TypeGroup, journal.TypeFirst:
			steps = append(steps, &step{Kind: "group", At: at(r.Time), Rec: r, start: r.Time, end: r.Time})
		}
	}
	return parallel(steps)
}

// laneOf is the lane a call attempt belongs to in a parallel block: its
// loop iterations, or its call when it is in no loop.
func laneOf(r *journal.Record) string {
	its := r.ID.Iterations()
	if len(its) == 0 {
		return "call " + r.ID.Call().Key()
	}
	parts := make([]string, len(its))
	for i, n := range its {
		parts[i] = strconv.Itoa(n)
	}
	return "iteration " + strings.Join(parts, ".")
}

// parallel folds runs of overlapping call steps into parallel blocks.
func parallel(steps []*step) []*step {
	var out []*step
	for i := 0; i < len(steps); {
		s := steps[i]
		if s.Kind != "call" {
			out = append(out, s)
			i++
			continue
		}
		j, end := i+1, s.end
		for j < len(steps) && steps[j].Kind == "call" && steps[j].start.Before(end) {
			if steps[j].end.After(end) {
				end = steps[j].end
			}
			j++
		}
		block := steps[i:j]
		lanes := lanesOf(block)
		if len(lanes) < 2 {
			out = append(out, block...)
		} else {
			out = append(out, &step{Kind: "parallel", At: s.At, Lanes: lanes, start: s.start, end: end})
		}
		i = j
	}
	return out
}

func lanesOf(block []*step) []lane {
	var lanes []lane
	idx := map[string]int{}
	for _, s := range block {
		k := s.Call.lane
		i, ok := idx[k]
		if !ok {
			i = len(lanes)
			idx[k] = i
			lanes = append(lanes, lane{Label: k})
		}
		lanes[i].Steps = append(lanes[i].Steps, s)
	}
	return lanes
}

// judgment says how a judgment was decided, and by whom.
func judgment(r *journal.Record) string {
	answer := "error: " + r.Err
	if r.Holds != nil {
		answer = fmt.Sprintf("holds = %v", *r.Holds)
	} else if r.Pick != "" {
		answer = fmt.Sprintf("picked %q", r.Pick)
	}
	switch {
	case r.Asked:
		return fmt.Sprintf("%s, asked %s (%d tokens in, %d out)", answer, r.Model, r.TokensIn, r.TokensOut)
	case r.Rule != "":
		return answer + ", decided by the rule " + r.Rule
	}
	return answer + ", decided without a model"
}

// groupOutcome says how a parallel group was decided.
func groupOutcome(r *journal.Record) string {
	switch {
	case r.Winner != nil && r.Started > 0:
		return fmt.Sprintf("won by iteration %d of %d started", *r.Winner+1, r.Started)
	case r.Winner != nil:
		return fmt.Sprintf("won by iteration %d", *r.Winner+1)
	case r.Failed != nil:
		return fmt.Sprintf("ended by iteration %d of %d started", *r.Failed+1, r.Started)
	}
	return "decided"
}

// question is a gate's question as a person reads it: a string's text,
// else its JSON.
func question(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return prettyJSON(raw)
}
