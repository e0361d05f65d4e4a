package gate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/proselang/prose/delegation"
)

// ErrNoAnswer is what a Prompt returns when no one can answer in place
// (its input ended): the run then suspends at the gate as it would
// without a Prompt.
var ErrNoAnswer = errors.New("no answer in place")

// LinePrompt asks each gate on out and reads the answer as one line of
// in (a terminal). For ask_user the line is the answer. For a gate, a line
// that is JSON is the answer, otherwise the line as a string, checked and
// shaped by Shape: when the question lists string options, a line that is
// one of them is {"choice": LINE}, as an MCP host's form gives it, and a
// line that is no option is refused. A refused line is asked again. A gate's deadline bounds
// the wait (ErrGateTimeout after it); the end of in is ErrNoAnswer.
func LinePrompt(in io.Reader, out io.Writer) func(context.Context, Question) (json.RawMessage, error) {
	lines := make(chan string)
	var readErr error
	started := false
	start := func() {
		started = true
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(in)
			for sc.Scan() {
				lines <- sc.Text()
			}
			readErr = sc.Err()
		}()
	}
	return func(ctx context.Context, q Question) (json.RawMessage, error) {
		if !started {
			start()
		}
		opts := options(q.Question)
		var timeout <-chan time.Time
		if q.Left > 0 {
			t := time.NewTimer(q.Left)
			defer t.Stop()
			timeout = t.C
		}
		for {
			ask(out, q, opts)
			select {
			case line, ok := <-lines:
				if !ok {
					if readErr != nil {
						return nil, fmt.Errorf("%w: %v", ErrNoAnswer, readErr)
					}
					return nil, ErrNoAnswer
				}
				v, why := answerOf(q, strings.TrimSpace(line))
				if v != nil {
					return v, nil
				}
				if why != "" {
					fmt.Fprintf(out, "  %s\n", why)
				}
			case <-timeout:
				fmt.Fprintln(out)
				return nil, delegation.ErrGateTimeout
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
}

func ask(out io.Writer, q Question, opts []string) {
	text := delegation.Text(q.Question)
	if _, isText := q.Question.(string); !isText {
		if raw, err := delegation.ToJSON(q.Question); err == nil {
			text = string(raw)
		}
	}
	fmt.Fprintf(out, "%s %s: %s\n", q.Kind, q.Path.Key(), text)
	if !q.Deadline.IsZero() {
		fmt.Fprintf(out, "  (until %s)\n", q.Deadline.UTC().Format(time.RFC3339))
	}
	if len(opts) > 0 {
		fmt.Fprintf(out, "[%s] ", strings.Join(opts, "/"))
	}
	fmt.Fprint(out, "> ")
}

// answerOf is a line as the gate's answer, if it is one: for ask_user the
// line; for a gate the line's JSON when it is JSON, else the line as a
// string, shaped by Shape (an option becomes {"choice": OPTION}). why
// says what a refused line lacks.
func answerOf(q Question, line string) (raw json.RawMessage, why string) {
	if q.Kind == "ask_user" {
		b, _ := json.Marshal(line)
		return b, ""
	}
	if line == "" {
		return nil, ""
	}
	b := json.RawMessage(line)
	if !json.Valid(b) {
		b, _ = json.Marshal(line)
	}
	shaped, err := Shape(q.Kind, q.Question, b)
	if err != nil {
		var ae *AnswerError
		if errors.As(err, &ae) {
			return nil, ae.Msg
		}
		return nil, err.Error()
	}
	return shaped, ""
}

// options are the string options of a gate's question object, if any.
func options(q delegation.Value) []string {
	o, ok := q.(*delegation.Object)
	if !ok {
		return nil
	}
	v, _ := o.Get("options")
	l, ok := v.(*delegation.List)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range l.Elems() {
		s, ok := e.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}
