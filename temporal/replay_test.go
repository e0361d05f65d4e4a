package temporal

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// The histories in testdata/histories were recorded from runs of the std
// table and of the contract table (contract-*.json) against a real server
// (TestE2EStdSameAsLocal, TestE2EContractSameAsLocal with
// PROSE_TEMPORAL_RECORD_HISTORIES=testdata/histories). Replaying them
// with today's workflow code must issue the same commands in the same
// order: a change that breaks this breaks every run in flight when the
// workers are upgraded.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded histories in testdata/histories")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			replayFile(t, f)
		})
	}
}

func replayFile(t *testing.T, path string) {
	t.Helper()
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger{}, path); err != nil {
		t.Errorf("replay of %s: %v", path, err)
	}
}

// A history replays only against the workflow that made it: one whose
// recorded call results no longer fit what the workflow does is refused.
func TestReplayRefusesAnAlteredHistory(t *testing.T) {
	path := filepath.Join("testdata", "histories", "ratchet.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The ratchet's first call is the advancer's (activity id L…); make
	// the history claim that the workflow scheduled a different call.
	altered := bytes.Replace(data, []byte(`"activityType":{"name":"prose.Call"}`), []byte(`"activityType":{"name":"prose.Other"}`), 1)
	if bytes.Equal(altered, data) {
		t.Fatal("the history has no activity to alter")
	}
	bad := filepath.Join(t.TempDir(), "altered.json")
	if err := os.WriteFile(bad, altered, 0o644); err != nil {
		t.Fatal(err)
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	if err := r.ReplayWorkflowHistoryFromJSONFile(quietLogger{}, bad); err == nil {
		t.Error("the replayer accepted a history whose activity the workflow never scheduled")
	}
}

// historyJSON is a workflow's history in the JSON form the replayer reads
// ({"events": [...]}, each event in protobuf JSON).
func historyJSON(ctx context.Context, cl client.Client, id string) ([]byte, error) {
	it := cl.GetWorkflowHistory(ctx, id, "", false, 0)
	pc := converter.NewProtoJSONPayloadConverter()
	var b bytes.Buffer
	b.WriteString("{\"events\": [\n")
	first := true
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, err
		}
		p, err := pc.ToPayload(ev)
		if err != nil {
			return nil, err
		}
		if !first {
			b.WriteString(",\n")
		}
		first = false
		b.Write(p.GetData())
	}
	b.WriteString("\n]}\n")
	return b.Bytes(), nil
}
