package cli

import (
	"github.com/spf13/cobra"

	"github.com/proselang/prose/journal"
)

func newReplayCmd(s streams) *cobra.Command {
	var o rerunOptions
	cmd := &cobra.Command{
		Use:   "replay RUN_ID|latest [--trace FILE]",
		Short: "Re-run a journaled run from its journal alone, with no service or model call",
		Long: `replay re-runs a journaled run (see 'prose runs') with every call, judgment
and parallel-first winner answered from its journal: no service runs and no
model is asked. It prints what the run printed and checks that the result is
the journaled one. Anything the journal does not hold (a changed spec, a call
with other arguments) is an error naming the call and its .md position.

With --trace FILE the replay writes the run's trace after the fact. RUN_ID
"latest" is the newest run under --run-dir.`,
		Example: `  prose replay latest
  prose replay 20261130T021500-ab12cd --trace run.jsonl`,
		Args: runIDArg(journal.Replaying),
		RunE: func(cmd *cobra.Command, args []string) error {
			return rerun(cmd.Context(), s, args[0], journal.Replaying, &o)
		},
	}
	addRerunFlags(cmd, &o, false)
	return cmd
}
