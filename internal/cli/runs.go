package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/journal"
	"github.com/proselang/prose/run"
)

func newRunsCmd(s streams) *cobra.Command {
	var runDir string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "runs [--json] [-n N]",
		Short: "List journaled runs, newest first",
		Long: `runs lists the journaled runs under --run-dir (default .prose/runs), newest
first: id, spec, start time (local), status (ok, error, interrupted,
diverged, running, or incomplete for a run that was killed), finished calls
and duration (the time it spent running, over the run and its resumes,
without the pauses between them). The table is the same on a terminal and
in a pipe; --json prints a JSON array instead (the id as run_id, as the
MCP runs tool says, and as id; times in RFC 3339, duration in
milliseconds, the error of a failed or unreadable run).

'prose resume latest' and 'prose replay latest' name the newest run.
'prose runs show ID' tells one run's story; 'prose runs rm' deletes runs.`,
		Example: `  prose runs
  prose runs --json | jq -r '.[] | select(.status == "incomplete") | .run_id'
  prose runs rm --older-than 7d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			runs, err := journal.ListContext(cmd.Context(), runDir)
			if cmd.Context().Err() != nil {
				return &exitError{Code: exitInterrupt, Err: errors.New("interrupted")}
			}
			if err != nil {
				return &exitError{Code: exitFailure, Err: err}
			}
			if limit > 0 && len(runs) > limit {
				runs = runs[:limit]
			}
			if asJSON {
				return printRunsJSON(s, runs)
			}
			printRuns(s, runs)
			return nil
		},
	}
	cmd.PersistentFlags().StringVar(&runDir, "run-dir", run.DefaultRunDir, "directory `DIR` holding run journals")
	cmd.Flags().IntVarP(&limit, "limit", "n", 20, "show at most `N` runs (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the runs as a JSON array")
	cmd.AddCommand(newRunsRmCmd(s, &runDir), newRunsShowCmd(s, &runDir))
	return cmd
}

func printRuns(s streams, runs []*journal.Summary) {
	if len(runs) == 0 {
		fmt.Fprintln(s.err, "no runs")
		return
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSPEC\tSTARTED\tSTATUS\tCALLS\tDURATION")
	for _, r := range runs {
		start := "-"
		if !r.Start.IsZero() {
			start = r.Start.Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", r.ID, orDash(shortPath(r.Spec)), start, r.Status, r.Calls, r.Duration().Round(time.Millisecond))
	}
	tw.Flush()
	for _, r := range runs {
		if r.Status == journal.StatusUnreadable {
			fmt.Fprintf(s.err, "prose: run %s is unreadable: %s\n", r.ID, r.Err)
		}
	}
}

// runJSON is one run of 'prose runs --json'.
//
// Decided: the id is run_id, as the MCP runs tool and every other prose
// output call it; "id" stays beside it with the same value, so that
// scripts written against it go on working.
type runJSON struct {
	RunID    string     `json:"run_id"`
	ID       string     `json:"id"`
	Spec     string     `json:"spec,omitempty"`
	Dir      string     `json:"dir"`
	Start    *time.Time `json:"start,omitempty"`
	Status   string     `json:"status"`
	Calls    int        `json:"calls"`
	Duration int64      `json:"duration_ms"`
	Err      string     `json:"error,omitempty"`
}

func printRunsJSON(s streams, runs []*journal.Summary) error {
	out := make([]runJSON, 0, len(runs))
	for _, r := range runs {
		j := runJSON{RunID: r.ID, ID: r.ID, Spec: r.Spec, Dir: r.Dir, Status: r.Status, Calls: r.Calls,
			Duration: r.Duration().Milliseconds(), Err: r.Err}
		if !r.Start.IsZero() {
			t := r.Start.UTC()
			j.Start = &t
		}
		out = append(out, j)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return &exitError{Code: exitFailure, Err: err}
	}
	fmt.Fprintf(s.out, "%s\n", b)
	return nil
}

// shortPath shows a spec path relative to the working directory when it
// lies under it.
func shortPath(p string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newRunsRmCmd(s streams, runDir *string) *cobra.Command {
	var all bool
	var olderThan string
	cmd := &cobra.Command{
		Use:   "rm RUN_ID|latest... | --older-than D | --all",
		Short: "Delete journaled runs",
		Long: `runs rm deletes run directories under --run-dir: the runs named, every
run started more than D ago (--older-than), or all of them (--all), and
says which it removed. Any run 'prose runs' lists can be removed, an
unreadable one too; it only deletes directories directly under --run-dir
that hold a journal.jsonl, never follows a symbolic link, refuses ids with
/ or .., and keeps runs that are still running.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if n := boolCount(len(args) > 0, all, olderThan != ""); n != 1 {
				return usageErrorf("runs rm: give run ids, --older-than D, or --all (exactly one)")
			}
			ids := args
			if len(ids) == 0 {
				var running []string
				var err error
				if ids, running, err = selectRuns(*runDir, all, olderThan); err != nil {
					return err
				}
				for _, id := range running {
					fmt.Fprintf(s.err, "kept %s (running)\n", id)
				}
				if len(ids) == 0 && len(running) == 0 {
					why := ""
					if !all {
						why = " (none started more than " + olderThan + " ago)"
					}
					fmt.Fprintf(s.err, "prose: runs rm: no runs to remove in %s%s\n", *runDir, why)
				}
			}
			failed, unknown := false, false
			for i, id := range ids {
				if id == latestRun {
					// As for resume, replay and runs show: the newest run.
					got, err := resolveRunID(*runDir, *runDir, id, commandName("runs rm"))
					if err != nil {
						return err
					}
					ids[i], id = got, got
				}
				status := ""
				if !strings.ContainsAny(id, `/\`) && id != ".." {
					status = journal.Summarize(filepath.Join(*runDir, id, journal.FileName)).Status
				}
				dir, err := journal.Remove(*runDir, id)
				if err != nil {
					fmt.Fprintf(s.err, "prose: runs rm: %v\n", err)
					if errors.As(err, new(*journal.NoRunError)) {
						unknown = true // a wrong id is bad usage, as for runs show
					} else {
						failed = true
					}
					continue
				}
				fmt.Fprintf(s.err, "removed %s (%s run, directory %s)\n", id, status, dir)
			}
			switch {
			case failed:
				return &exitError{Code: exitFailure}
			case unknown:
				return &exitError{Code: exitUsage}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "delete every run (except running ones)")
	cmd.Flags().StringVar(&olderThan, "older-than", "", "delete runs that started more than `D` ago (30m, 12h, 7d)")
	return cmd
}

// selectRuns picks the runs for --all or --older-than, skipping running
// ones.
func selectRuns(runDir string, all bool, olderThan string) (ids, running []string, err error) {
	var cutoff time.Time
	if !all {
		d, err := parseAge(olderThan)
		if err != nil {
			return nil, nil, usageErrorf("runs rm: --older-than %q: %v", olderThan, err)
		}
		cutoff = time.Now().Add(-d)
	}
	runs, err := journal.List(runDir)
	if err != nil {
		return nil, nil, &exitError{Code: exitFailure, Err: err}
	}
	for _, r := range runs {
		switch {
		case !all && !r.Started().Before(cutoff):
		case r.Status == journal.StatusRunning:
			running = append(running, r.ID)
		default:
			ids = append(ids, r.ID)
		}
	}
	return ids, running, nil
}

// parseAge reads a duration with an optional day unit ("7d", "1d12h").
func parseAge(s string) (time.Duration, error) {
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 0 || n > 100000 {
			return 0, fmt.Errorf("want a duration such as 30m, 12h or 7d")
		}
		days, s = time.Duration(n)*24*time.Hour, s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 30m, 12h or 7d")
	}
	return days + d, nil
}

func boolCount(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
