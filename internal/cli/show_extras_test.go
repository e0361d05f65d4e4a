package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// show prints a test's fixtures and expectations, and a responsibility's
// id and Maintains text, with the rest of the spec's JSON as before.
func TestShowTestItemsAndResponsibilityID(t *testing.T) {
	dir := t.TempDir()
	resp := "---\nname: risk\nkind: responsibility\nid: 067NC4KG0XVMH2AA9D64TKJFA0\n---\n\n# Risk\n\n### Goal\n\nKeep the risk current.\n\n" +
		"### Requires\n\n- `signals`: account signals\n\n### Maintains\n\n- `risk`: the live risk <level>, with evidence\n"
	test := "---\nname: risk-test\nkind: test\nsubject: risk\n---\n\n# Risk test\n\n### Fixtures\n\n- `signals`: {\"a\": [1, 2]}\n- `risk`: exec:echo high\n\n" +
		"### Expects\n\n- `risk`: contains \"high\"\n\n### Expects Not\n\n- `risk.level`: is null\n"
	for name, text := range map[string]string{"risk.prose.md": resp, "risk.test.prose.md": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var r struct {
		Name          string `json:"name"`
		ID            string `json:"id"`
		MaintainsText string `json:"maintains_text"`
	}
	_, out, stderr := runMain(t, "show", filepath.Join(dir, "risk.prose.md"))
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s %s", err, out, stderr)
	}
	if r.Name != "risk" || r.ID != "067NC4KG0XVMH2AA9D64TKJFA0" || r.MaintainsText != "- `risk`: the live risk <level>, with evidence" {
		t.Errorf("responsibility: %+v", r)
	}
	var tv struct {
		Subject  string `json:"subject"`
		Fixtures []struct {
			Name  string `json:"name"`
			Value any    `json:"value"`
			Line  int    `json:"line"`
		} `json:"fixtures"`
		Expects []struct {
			Output  string `json:"output"`
			Path    string `json:"path"`
			Claim   string `json:"claim"`
			Negated bool   `json:"negated"`
			Line    int    `json:"line"`
		} `json:"expects"`
	}
	_, out, stderr = runMain(t, "show", filepath.Join(dir, "risk.test.prose.md"))
	if err := json.Unmarshal([]byte(out), &tv); err != nil {
		t.Fatalf("%v: %s %s", err, out, stderr)
	}
	if tv.Subject != "risk" || len(tv.Fixtures) != 2 || tv.Fixtures[0].Name != "signals" || tv.Fixtures[0].Line != 11 ||
		tv.Fixtures[1].Value != "exec:echo high" {
		t.Errorf("fixtures: %+v", tv.Fixtures)
	}
	if m, ok := tv.Fixtures[0].Value.(map[string]any); !ok || len(m["a"].([]any)) != 2 {
		t.Errorf("a JSON fixture is not shown as JSON: %#v", tv.Fixtures[0].Value)
	}
	if len(tv.Expects) != 2 || tv.Expects[0].Output != "risk" || tv.Expects[0].Claim != `contains "high"` || tv.Expects[0].Negated ||
		!tv.Expects[1].Negated || tv.Expects[1].Path != "risk.level" || tv.Expects[1].Line != 20 {
		t.Errorf("expects: %+v", tv.Expects)
	}
}
