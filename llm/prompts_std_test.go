package llm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/llm/llmtest"
	"github.com/proselang/prose/spec"
)

// stdSlotInfos loads the std pattern specs and builds, for every slot, the
// SlotInfo a runner gives a model acting in it (as `prose run` does).
func stdSlotInfos(t *testing.T) []SlotInfo {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "std", "patterns", "*.prose.md"))
	if len(files) == 0 {
		t.Fatal("no std pattern in ../std/patterns: the folder moved?")
	}
	var infos []SlotInfo
	for _, f := range files {
		sp, _, err := spec.Load(f)
		if err != nil || sp == nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, s := range sp.Slots {
			info := SlotInfo{Pattern: sp.Name, Description: strings.TrimSpace(sp.Description), Slot: s.Name,
				Requires: s.Requires, Ensures: s.Ensures, Maintains: s.Maintains}
			if info.Description == "" {
				info.Description = sp.Summary
			}
			if sp.Shape != nil {
				for _, d := range sp.Shape.Delegates {
					if d.Name == s.Name || d.Slot == s.Name {
						info.Role = d.Role
					}
				}
			}
			infos = append(infos, info)
		}
	}
	return infos
}

// TestStdSlotPrompts builds the system prompt of every slot of every std
// pattern. PROSE_PRINT_PROMPTS=1 prints them for reading.
func TestStdSlotPrompts(t *testing.T) {
	print := os.Getenv("PROSE_PRINT_PROMPTS") != ""
	for _, info := range stdSlotInfos(t) {
		p := SlotSystemPrompt(info)
		if print {
			t.Logf("==== %s / %s\n%s\n", info.Pattern, info.Slot, p)
		}
		checkSlotPrompt(t, info, p)
	}
}

// checkSlotPrompt asserts what a slot's system prompt must say: the slot,
// the pattern, what it receives and delivers; the verdict form only where
// the spec leaves a decision's form open; how to fail only where failing
// is allowed.
func checkSlotPrompt(t *testing.T, info SlotInfo, p string) {
	t.Helper()
	where := info.Pattern + "/" + info.Slot
	for _, want := range []string{`"` + info.Slot + `"`, `"` + info.Pattern + `"`, strings.TrimSpace(info.Ensures),
		strings.TrimSpace(info.Requires), strings.TrimSpace(info.Role)} {
		if !strings.Contains(p, want) {
			t.Errorf("%s: the prompt lacks %q", where, want)
		}
	}
	hint := strings.Contains(p, `"verdict" field`)
	if strings.Contains(info.Ensures, "{") && hint {
		t.Errorf("%s: the verdict hint contradicts the form the spec gives: %s", where, info.Ensures)
	}
	// A doer whose role mentions approval (guard's "do the task once
	// approved") gives no verdict.
	if hint && !strings.Contains(strings.ToLower(info.Slot+" "+info.Ensures), "verdict") &&
		!strings.Contains(strings.ToLower(info.Slot+" "+info.Ensures), "decision") {
		t.Errorf("%s: a verdict hint for a slot that gives no decision (ensures %q)", where, info.Ensures)
	}
	if fails := strings.Contains(p, `{"error"`); fails != strings.Contains(info.Ensures, "error") {
		t.Errorf("%s: error instructions %v for ensures %q", where, fails, info.Ensures)
	}
	if len(p) > 4000 {
		t.Errorf("%s: prompt of %d bytes", where, len(p))
	}
}

// A model in a slot that may fail reports it with {"error": ...}, which
// is thrown; elsewhere such a reply is a value like any other.
func TestSlotReportedError(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{Content: `{"error": "the brief is empty"}`, Times: -1})
	c, _ := newTestClient(t, srv, nil)
	req := &delegation.CallRequest{Args: delegation.NewObject()}
	mayFail := NewSlotService(c, SlotInfo{Slot: "candidates", Ensures: "a result for the task, or a thrown error"})
	if _, err := mayFail.Call(context.Background(), req); err == nil || !strings.Contains(err.Error(), "the brief is empty") {
		t.Errorf("err %v", err)
	}
	v, err := NewSlotService(c, SlotInfo{Slot: "mapper", Ensures: "the processed chunk"}).Call(context.Background(), req)
	if _, ok := v.(*delegation.Object); err != nil || !ok {
		t.Errorf("value %v, err %v", v, err)
	}
}
