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
// that is JSON is the answer; otherwise, when the question lists string
// options, the line must be one of them and the answer is {"choice":
// LINE}, as an MCP host's form gives it; otherwise the line is a string.
// A line that is none of these is asked again. A gate's deadline bounds
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
				if v, ok := answerOf(q.Kind, strings.TrimSpace(line), opts); ok {
					return v, nil
				}
				if len(opts) > 0 {
					fmt.Fprintf(out, "  want one of %s, or a JSON value\n", strings.Join(opts, ", "))
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

// answerOf is a line as the gate's answer, if it is one.
func answerOf(kind, line string, opts []string) (json.RawMessage, bool) {
	if kind == "ask_user" {
		b, _ := json.Marshal(line)
		return b, true
	}
	if line == "" {
		return nil, false
	}
	for _, o := range opts {
		if line == o {
			b, _ := json.Marshal(map[string]string{"choice": o})
			return b, true
		}
	}
	if json.Valid([]byte(line)) {
		return json.RawMessage(line), true
	}
	if len(opts) > 0 {
		return nil, false
	}
	b, _ := json.Marshal(line)
	return b, true
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
