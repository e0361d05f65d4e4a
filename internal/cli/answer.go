package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/delegation"
	gatepkg "github.com/proselang/prose/gate"
	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
)

// answerOptions are the flags of `prose answer`.
type answerOptions struct {
	runDir string
	value  string
	json   string
	// set: --value or --json was given (an empty --value is an answer)
	valueSet, jsonSet bool
	// replace: a gate already answered (and not yet resumed) takes this
	// answer in place of the earlier one; the journal keeps both.
	replace  bool
	temporal temporalAnswer
}

const answerLong = `answer gives a person's answer to a gate a run waits at: an ask_user
question (the answer is text) or a gate (the answer is a JSON value). A run
that reaches a gate with no answer stops there, journaled, and exits 3
printing the gate's id (its line, L12, and loop iterations, L12/2) and
these commands. answer records the answer in the run's journal; prose
resume RUN_ID then goes on from the gate with it, answering every call
before it from the journal.

GATE may be left out when the run waits at one gate only. Without --value
or --json, answer lists the gates the run waits at, with their questions.
A gate whose timeout has passed takes no answer: prose resume goes on with
its on_fail use value. An answer is checked as the terminal checks it: for a
gate whose question lists options, --value OPTION gives {"choice": OPTION}
(what the terminal gives), and an answer that is no option, or an object
with keys the gate's options and fields do not name, is refused. A gate
already answered takes another answer only with --replace (the journal
keeps both; the resume uses the last).

With --engine temporal, RUN_ID is the workflow id of a run started with
prose run --engine temporal, which waits at its gate on the cluster; the
answer is sent to it as a signal and the run goes on at once.`

const answerExample = `  prose run release.prose.md --slot shipper=exec:./ship.sh   # exits 3 at the gate
  prose answer latest                                         # which gates wait, and their questions
  prose answer 20261201T101500-ab12cd L12 --value v1.2        # an ask_user's answer
  prose answer latest L14 --value ship                         # a gate's option: {"choice": "ship"}
  prose answer latest L14 --json '{"choice": "ship"}' --replace  # the same, replacing an earlier answer
  prose resume latest                                         # goes on with the answers

  # A run on Temporal waits on the cluster; the answer is a signal:
  prose answer --engine temporal prose-7f3a L12 --value v1.2`

func newAnswerCmd(s streams) *cobra.Command {
	o := &answerOptions{}
	cmd := &cobra.Command{
		Use:     "answer RUN_ID|latest [GATE] (--value TEXT | --json JSON)",
		Short:   "Answer a gate (ask_user, gate) a run waits at; prose resume then goes on",
		Long:    answerLong,
		Example: answerExample,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageErrorf("answer: give a run id (or latest) and, when the run waits at several gates, the gate: prose answer RUN_ID [GATE] --value TEXT")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.valueSet, o.jsonSet = cmd.Flags().Changed("value"), cmd.Flags().Changed("json")
			gate := ""
			if len(args) == 2 {
				gate = args[1]
			}
			if o.valueSet && o.jsonSet {
				return usageErrorf("answer: give --value TEXT or --json JSON, not both")
			}
			if o.temporal.engine != "" && o.temporal.engine != "local" {
				return answerTemporal(cmdContext(cmd), s, cmd, &o.temporal, args[0], gate, o)
			}
			return answerLocal(s, o, args[0], gate)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.runDir, "run-dir", run.DefaultRunDir, "directory `DIR` holding run journals")
	fl.StringVar(&o.value, "value", "", "the answer as `TEXT` (a string)")
	fl.StringVar(&o.json, "json", "", "the answer as a `JSON` value (a gate's object, list, number...)")
	fl.BoolVar(&o.replace, "replace", false, "replace the answer a gate was already given (the journal keeps both)")
	addTemporalAnswerFlags(cmd, &o.temporal)
	return cmd
}

// answerValue is the answer's JSON, or nil when none was given.
func (o *answerOptions) answerValue() (json.RawMessage, error) {
	switch {
	case o.jsonSet:
		if !json.Valid([]byte(o.json)) {
			return nil, usageErrorf("answer: --json %s is not JSON (a string is --value TEXT, or --json '\"TEXT\"')", o.json)
		}
		return json.RawMessage(o.json), nil
	case o.valueSet:
		b, _ := json.Marshal(o.value)
		return b, nil
	}
	return nil, nil
}

func answerLocal(s streams, o *answerOptions, id, gate string) error {
	base, err := filepath.Abs(o.runDir)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if id, err = resolveRunID(base, o.runDir, id, answerMode{}); err != nil {
		return err
	}
	val, err := o.answerValue()
	if err != nil {
		return err
	}
	flags := runDirFlag(base)
	if val == nil {
		gates, err := journal.Waiting(base, id)
		if err != nil {
			return &exitError{Code: exitFailure, Err: err}
		}
		if len(gates) == 0 {
			fmt.Fprintf(s.err, "prose: run %s waits at no gate\n", id)
			return nil
		}
		printGates(s.out, id, flags, gates)
		return nil
	}
	g, err := run.Answer(base, id, gate, val, o.replace)
	var ae *journal.AnswerError
	var nr *journal.NoRunError
	var ge *gatepkg.AnswerError
	if errors.As(err, &ae) || errors.As(err, &nr) || errors.As(err, &ge) {
		return &exitError{Code: exitUsage, Err: err}
	}
	if err != nil {
		return &exitError{Code: exitFailure, Err: err}
	}
	fmt.Fprintf(s.err, "prose: answered %s %s of run %s; go on with: prose resume %s%s\n", g.Kind, g.Path.Key(), id, id, flags)
	return nil
}

// printGates lists waiting gates, one block each.
func printGates(w io.Writer, id, flags string, gates []journal.GateState) {
	for _, g := range gates {
		fmt.Fprintf(w, "%s %s (%s): %s\n", g.Kind, g.Path.Key(), g.Pos, question(g.Question))
		if !g.Deadline.IsZero() {
			fmt.Fprintf(w, "  times out at %s\n", g.Deadline.UTC().Format(time.RFC3339))
		}
		if g.Answer != nil {
			fmt.Fprintf(w, "  answered %s (not yet used): %s; prose resume %s%s goes on (prose answer --replace changes it)\n", g.Answered.UTC().Format(time.RFC3339), g.Answer, id, flags)
			continue
		}
		how := "--json JSON"
		q, _ := delegation.FromJSON(g.Question)
		if opts := gatepkg.Options(q); g.Kind == "ask_user" {
			how = "--value TEXT"
		} else if len(opts) > 0 {
			how = "--value " + strings.Join(opts, "|")
		}
		fmt.Fprintf(w, "  answer: prose answer %s %s %s%s\n", id, g.Path.Key(), how, flags)
	}
}

// question is a journaled question as a person reads it: a string's text,
// else its JSON.
func question(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// answerMode names the command in resolveRunID's messages.
type answerMode struct{}

func (answerMode) String() string { return "answer" }

// temporalAnswer are the flags of an answer sent to a run on Temporal.
type temporalAnswer struct {
	engine string
	conn   connFlags
}

func addTemporalAnswerFlags(cmd *cobra.Command, t *temporalAnswer) {
	cmd.Flags().StringVar(&t.engine, "engine", "local", "the run's `ENGINE`: local (a journaled run) or temporal (a workflow id)")
	addConnFlags(cmd, &t.conn)
}

// readsTerminal reports whether r is a terminal (a character device).
func readsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
