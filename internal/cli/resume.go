package cli

import (
	"github.com/spf13/cobra"

	"github.com/proselang/prose/journal"
)

func newResumeCmd(s streams) *cobra.Command {
	var o rerunOptions
	cmd := &cobra.Command{
		Use:   "resume RUN_ID|latest [--force]",
		Short: "Continue a journaled run; finished calls are answered from its journal",
		Long: `resume re-executes a journaled run (see 'prose runs') with the same spec,
bindings, config and inputs, in the directory it started in. Every call whose
id and arguments match a finished call in the journal is answered from the
journal without running the service; the first call beyond the journal and
everything after it run live and are appended to the same journal. When a
failing call ended the run, that call runs live again, with its retries
(fix the service first); failures the spec caught stay as journaled.

A spec that changed since the run, or a call whose arguments differ from the
journal's, stops the resume with a message naming it, unless --force. Values
withheld from the journal as secrets must be given again (--slot, --config,
--input replace the journaled ones).

RUN_ID "latest" is the newest run under --run-dir. Only one process may
append to a journal: resuming a run that is still going (or being resumed)
is refused.`,
		Example: `  prose runs                       # find the run
  prose resume 20261130T021500-ab12cd
  prose resume latest --slot advancer=exec:./adv.sh   # give a withheld secret again`,
		Args: runIDArg(journal.Resuming),
		RunE: func(cmd *cobra.Command, args []string) error {
			return rerun(cmd.Context(), s, args[0], journal.Resuming, &o)
		},
	}
	addRerunFlags(cmd, &o, true)
	return cmd
}
