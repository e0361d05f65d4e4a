package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/journal"
)

func newRunsShowCmd(s streams, runDir *string) *cobra.Command {
	return &cobra.Command{
		Use:   "show RUN_ID|latest",
		Short: "Tell the story of one journaled run",
		Long: `runs show prints a readable account of one journaled run: its spec and
request, each session (the run and every resume) with how many calls it
ran live, every call attempt (id, service, attempt, outcome, duration),
every judgment (condition, answer, how it was decided, tokens), every
gate's question and the answers it got, and how the run ended.`,
		Example: `  prose runs show latest
  prose runs show 20261130T021500-ab12cd`,
		Args: runIDArg(commandName("runs show")),
		RunE: func(cmd *cobra.Command, args []string) error {
			base, err := filepath.Abs(*runDir)
			if err != nil {
				return usageErrorf("%v", err)
			}
			id, err := resolveRunID(base, *runDir, args[0], commandName("runs show"))
			if err != nil {
				return err
			}
			l, err := journal.ReadFile(filepath.Join(base, id, journal.FileName))
			if err != nil {
				return &exitError{Code: exitFailure, Err: fmt.Errorf("runs show: %w", err)}
			}
			showRun(s.out, l)
			return nil
		},
	}
}

// showRun writes the account of one run.
func showRun(w io.Writer, l *journal.Log) {
	h := l.Header
	fmt.Fprintf(w, "run %s\n", h.RunID)
	fmt.Fprintf(w, "  spec     %s\n", h.Spec)
	if h.Dir != "" {
		fmt.Fprintf(w, "  dir      %s\n", h.Dir)
	}
	fmt.Fprintf(w, "  started  %s\n", h.Time.Local().Format(time.DateTime))
	if h.Prose != "" {
		fmt.Fprintf(w, "  prose    %s\n", h.Prose)
	}
	for _, list := range []struct {
		name string
		kvs  []journal.KV
	}{{"slot", h.Bindings}, {"config", h.Config}, {"input", h.Inputs}} {
		for _, kv := range list.kvs {
			fmt.Fprintf(w, "  %-8s %s=%s\n", list.name, kv.Key, oneLineText(kv.Value, 100))
		}
	}
	session, live := "run", 0
	var start time.Time = h.Time
	endSession := func() {
		fmt.Fprintf(w, "  (%s: %d calls live)\n", session, live)
	}
	fmt.Fprintf(w, "\n%s, %s\n", session, h.Time.Local().Format(time.DateTime))
	for _, r := range l.Records {
		at := ""
		if !r.Time.IsZero() && !start.IsZero() {
			at = fmt.Sprintf("%8s  ", r.Time.Sub(start).Round(time.Millisecond))
		}
		switch r.Type {
		case journal.TypeSession:
			endSession()
			session, live, start = r.Mode, 0, r.Time
			force := ""
			if r.Force {
				force = " --force"
			}
			by := ""
			if r.Prose != "" && r.Prose != h.Prose {
				by = ", prose " + r.Prose
			}
			fmt.Fprintf(w, "\n%s%s, %s%s (calls the journal held were answered from it)\n", session, force, r.Time.Local().Format(time.DateTime), by)
		case journal.TypeEnd:
			live++
			out := "ok"
			switch {
			case r.Kind != "":
				out = r.Kind + ": " + oneLineText(r.Err, 120)
			case len(r.Result) > 0:
				out = "ok " + oneLineText(string(r.Result), 80)
			}
			fmt.Fprintf(w, "  %scall %-14s %-12s attempt %d  %s  (%gms)\n", at, r.ID, r.Slot, r.Attempt, out, r.MS)
		case journal.TypeJudge:
			answer := "error: " + oneLineText(r.Err, 100)
			if r.Holds != nil {
				answer = fmt.Sprintf("holds=%v", *r.Holds)
			} else if r.Pick != "" {
				answer = fmt.Sprintf("picked %q", r.Pick)
			}
			how := "decided by rule " + r.Rule
			if r.Asked {
				how = fmt.Sprintf("asked %s (%d tokens in, %d out)", r.Model, r.TokensIn, r.TokensOut)
			} else if r.Rule == "" {
				how = "decided without a model"
			}
			fmt.Fprintf(w, "  %sjudge %-13s %q  %s, %s\n", at, r.ID, oneLineText(r.Cond, 60), answer, how)
		case journal.TypeFirst:
			if r.Winner != nil {
				fmt.Fprintf(w, "  %sfirst %-13s winner: iteration %d\n", at, r.ID, *r.Winner+1)
			}
		case journal.TypeGroup:
			switch {
			case r.Winner != nil:
				fmt.Fprintf(w, "  %sgroup %-13s won by iteration %d of %d started\n", at, r.ID, *r.Winner+1, r.Started)
			case r.Failed != nil:
				fmt.Fprintf(w, "  %sgroup %-13s ended by iteration %d of %d started\n", at, r.ID, *r.Failed+1, r.Started)
			}
		case journal.TypeGate:
			if g := r.Gate; g != nil {
				fmt.Fprintf(w, "  %sgate  %-13s %s asks %s", at, r.ID, g.Kind, oneLineText(string(g.Question), 200))
				if !g.Deadline.IsZero() {
					fmt.Fprintf(w, " (times out %s)", g.Deadline.Local().Format(time.DateTime))
				}
				fmt.Fprintln(w)
			}
		case journal.TypeAnswer:
			if g := r.Gate; g != nil {
				fmt.Fprintf(w, "  %sanswer %-12s %s\n", at, r.ID, oneLineText(string(g.Value), 200))
			}
		case journal.TypeFinal:
			fmt.Fprintf(w, "  %send: %s", at, r.Status)
			switch {
			case r.Err != "":
				fmt.Fprintf(w, ": %s", oneLineText(r.Err, 200))
			case len(r.Result) > 0:
				fmt.Fprintf(w, ", result %s", oneLineText(string(r.Result), 200))
			}
			fmt.Fprintln(w)
		}
	}
	endSession()
	if l.Final() == nil {
		fmt.Fprintln(w, "\nno outcome recorded: the run is still going, or was stopped (prose resume continues it)")
	}
}

// oneLineText is s on one line, cut at about n bytes.
func oneLineText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		cut := strings.LastIndex(s[:n], " ")
		if cut < n/2 {
			cut = n
		}
		s = s[:cut] + "..."
	}
	return s
}

// commandName names a command in messages about run ids.
type commandName string

func (c commandName) String() string { return string(c) }
