package journal

import (
	"fmt"
	"time"

	"github.com/proselang/prose/internal/procgroup"
)

// leftoverWait bounds how long a resume waits for a killed run's process
// group to go after SIGKILL.
const leftoverWait = 10 * time.Second

// endLeftovers ends the process groups of call attempts that were running
// when the journaled run was killed (a "proc" record and no "end"): the
// programs' descendants outlive a prose killed with SIGKILL, and the
// resume would otherwise run the same call again beside them. A group is
// ended only when it is still the one the run started (see
// procgroup.Group.Mine); the lock on the journal, held by now, says the
// run that started it is gone. A group that does not go refuses the
// resume.
func endLeftovers(l *Log) error {
	open := map[callKey][]*Record{}
	for _, r := range l.Records {
		switch r.Type {
		case TypeProc, TypeStart: // a "start" holds the first group since format 5
			if r.PGID == 0 {
				continue
			}
			k := callKey{r.ID, r.Attempt}
			open[k] = append(open[k], r)
		case TypeEnd:
			delete(open, callKey{r.ID, r.Attempt})
		}
	}
	for _, recs := range open {
		for _, r := range recs {
			g := procgroup.Group{ID: r.PGID, Ident: r.Proc}
			if _, err := g.End(leftoverWait); err != nil {
				return fmt.Errorf("call %s (attempt %d) of the killed run: %w: end it, then resume", r.ID, r.Attempt, err)
			}
		}
	}
	return nil
}
