package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/run"
)

// journalFlags are the journal's flags of `prose run`.
type journalFlags struct {
	runDir    string
	noJournal bool
	sync      string
}

// addJournalFlags adds --run-dir, --no-journal and --journal-sync to cmd.
func addJournalFlags(cmd *cobra.Command, f *journalFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.runDir, "run-dir", run.DefaultRunDir, "directory `DIR` holding run journals (one subdirectory per run)")
	fl.BoolVar(&f.noJournal, "no-journal", false, "do not journal this run (it cannot be resumed or replayed)")
	fl.StringVar(&f.sync, "journal-sync", "100ms", "when journal records reach the disk: `WHEN` is always (fsync each before the run goes on) or a group-commit window such as 100ms (a machine crash loses at most that much; a killed process loses nothing)")
}

// options are the run.Options the journal flags say.
func (f *journalFlags) options() (run.Options, error) {
	every, err := syncWindow(f.sync)
	if err != nil {
		return run.Options{}, err
	}
	o := run.Options{RunDir: f.runDir, SyncEvery: every, ContractCheck: lint.Contract}
	if f.noJournal {
		o.RunDir, o.InputRunDir = "", f.runDir
	}
	return o, nil
}

// syncWindow reads --journal-sync: "always" or a duration.
func syncWindow(s string) (time.Duration, error) {
	if s == "always" || s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, usageErrorf("--journal-sync %q: want always or a duration such as 100ms", s)
	}
	return d, nil
}
