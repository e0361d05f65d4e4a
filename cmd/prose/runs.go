package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/journal"
)

func newRunsCmd(s streams) *cobra.Command {
	var runDir string
	var limit int
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List journaled runs, newest first",
		Long: `runs lists the journaled runs under --run-dir (default .prose/runs): id,
spec, start time, status (ok, error, interrupted, diverged, running, or
incomplete for a run that was killed), finished calls and duration.
'prose runs rm' deletes runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			runs, err := journal.List(runDir)
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			if limit > 0 && len(runs) > limit {
				runs = runs[:limit]
			}
			printRuns(s, runs)
			return nil
		},
	}
	cmd.PersistentFlags().StringVar(&runDir, "run-dir", defaultRunDir, "directory holding run journals")
	cmd.Flags().IntVarP(&limit, "limit", "n", 20, "show at most `N` runs (0: all)")
	cmd.AddCommand(newRunsRmCmd(s, &runDir))
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
		Use:   "rm RUN_ID... | --older-than D | --all",
		Short: "Delete journaled runs",
		RunE: func(cmd *cobra.Command, args []string) error {
			if n := boolCount(len(args) > 0, all, olderThan != ""); n != 1 {
				return usageErrorf("runs rm: give run ids, --older-than D, or --all (exactly one)")
			}
			ids := args
			if len(ids) == 0 {
				var err error
				if ids, err = selectRuns(*runDir, all, olderThan); err != nil {
					return err
				}
			}
			failed := false
			for _, id := range ids {
				if err := journal.Remove(*runDir, id); err != nil {
					fmt.Fprintf(s.err, "prose: runs rm: %v\n", err)
					failed = true
					continue
				}
				fmt.Fprintf(s.err, "removed %s\n", id)
			}
			if failed {
				return &exitError{code: exitFailure}
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
func selectRuns(runDir string, all bool, olderThan string) ([]string, error) {
	var cutoff time.Time
	if !all {
		d, err := parseAge(olderThan)
		if err != nil {
			return nil, usageErrorf("runs rm: --older-than %q: %v", olderThan, err)
		}
		cutoff = time.Now().Add(-d)
	}
	runs, err := journal.List(runDir)
	if err != nil {
		return nil, &exitError{code: exitFailure, err: err}
	}
	var ids []string
	for _, r := range runs {
		if r.Status == journal.StatusRunning || (!all && !r.Start.Before(cutoff)) {
			continue
		}
		ids = append(ids, r.ID)
	}
	return ids, nil
}

// parseAge reads a duration with an optional day unit ("7d", "1d12h").
func parseAge(s string) (time.Duration, error) {
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 0 {
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
