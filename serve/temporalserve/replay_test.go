package temporalserve

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// The histories in testdata/histories were recorded against a real
// server with plain payloads: before-shape-fingerprint.json from a serve
// workflow over testdata/feed before shapes had a fingerprint and before
// the ShapeUpdate (three triggers, three drains, then cancelled);
// shape-update.json from one over the project of the shape tests, given
// its graph (ShapeUpdate: a stale look), drained, edited (the report
// reads the tally, an audit is added), given the edited graph (the shape
// taken again, an edit drain) and woken. Replaying them with today's
// workflow must issue the same commands in the same order: a workflow in
// flight when its workers are upgraded goes on.
func TestReplayServeHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	if err != nil || len(files) < 2 {
		t.Fatalf("recorded histories: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Error(err)
			}
		})
	}
}
