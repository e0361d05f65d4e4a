package temporalserve

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// testdata/histories/before-shape-fingerprint.json is the history of a
// serve workflow over testdata/feed recorded before shapes had a
// fingerprint and before the ShapeUpdate (three triggers, three drains,
// then cancelled), against a real server with plain payloads. Replaying
// it with today's workflow must issue the same commands in the same
// order: a workflow in flight when its workers are upgraded goes on.
func TestReplayServeHistoryRecordedBefore(t *testing.T) {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	if err := r.ReplayWorkflowHistoryFromJSONFile(nil, filepath.Join("testdata", "histories", "before-shape-fingerprint.json")); err != nil {
		t.Fatal(err)
	}
}
