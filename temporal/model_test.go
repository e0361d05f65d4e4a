package temporal

import (
	"errors"
	"strings"
	"testing"

	"github.com/proselang/prose/run"
)

// A run's model is refused on the temporal engine, naming the engine and
// where the model is given instead, before anything is dialled; before,
// the workers' model ran instead, silently.
func TestEngineRefusesARunsModel(t *testing.T) {
	_, err := (&Engine{}).resolve(run.Request{Spec: "std/patterns/guard.prose.md", Model: "gpt-x"}, run.Options{})
	var ue *run.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "temporal engine") || !strings.Contains(err.Error(), "prose worker --model") || !strings.Contains(err.Error(), "gpt-x") {
		t.Fatalf("err %v: want a usage error naming the engine and prose worker --model", err)
	}
}
