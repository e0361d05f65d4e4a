package lint_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
	"github.com/proselang/prose/version"
)

func sample() *lint.Result {
	return &lint.Result{Files: 2, Diags: diag.List{
		{Position: diag.Position{File: "dir/a.prose.md", Line: 3, Col: 5}, Severity: diag.Error,
			Code: "check/undefined-name", Message: "undefined name 'x'; did you mean 'y'?"},
		{Position: diag.Position{File: "dir/a.prose.md", Line: 9, Col: 1}, Severity: diag.Warning,
			Code: "spec/type-mismatch", Message: "100% odd: a, b\nsecond line"},
		{Position: diag.Position{File: "b c.prose.md"}, Severity: diag.Warning,
			Code: "spec/empty-delegation", Message: "no code"},
	}}
}

func TestParseFormat(t *testing.T) {
	for _, f := range lint.Formats() {
		if got, err := lint.ParseFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	if _, err := lint.ParseFormat("xml"); err == nil || !strings.Contains(err.Error(), "sarif") {
		t.Errorf("ParseFormat(xml): want an error listing the formats, got %v", err)
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := lint.Write(&b, lint.Text, sample()); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(b.String(), "\n", 2)[0]
	if want := "dir/a.prose.md:3:5: error: undefined name 'x'; did you mean 'y'? [check/undefined-name]"; first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := lint.Write(&b, lint.JSON, sample()); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if len(got) != 3 {
		t.Fatalf("got %d objects, want 3", len(got))
	}
	for _, k := range []string{"file", "line", "col", "severity", "code", "message"} {
		if _, ok := got[0][k]; !ok {
			t.Errorf("object lacks %q: %v", k, got[0])
		}
	}
	if got[0]["severity"] != "error" || got[0]["line"] != 3.0 || got[1]["severity"] != "warning" {
		t.Errorf("unexpected values: %v", got[:2])
	}
	b.Reset()
	if err := lint.Write(&b, lint.JSON, &lint.Result{}); err != nil || strings.TrimSpace(b.String()) != "[]" {
		t.Errorf("no findings: got %q, %v; want []", b.String(), err)
	}
}

func TestWriteGitHub(t *testing.T) {
	var b bytes.Buffer
	if err := lint.Write(&b, lint.GitHub, sample()); err != nil {
		t.Fatal(err)
	}
	want := "::error file=dir/a.prose.md,line=3,col=5::undefined name 'x'; did you mean 'y'? [check/undefined-name]\n" +
		"::warning file=dir/a.prose.md,line=9,col=1::100%25 odd: a, b%0Asecond line [spec/type-mismatch]\n" +
		"::warning file=b c.prose.md::no code [spec/empty-delegation]\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// sarifLog is the part of a SARIF log the tests read.
type sarifLog struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		ColumnKind string `json:"columnKind"`
		Tool       struct {
			Driver struct {
				Name           string `json:"name"`
				Version        string `json:"version"`
				InformationURI string `json:"informationUri"`
				Rules          []struct {
					ID               string `json:"id"`
					ShortDescription struct {
						Text string `json:"text"`
					} `json:"shortDescription"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

// decodeSARIF decodes a SARIF log, failing the test when it is not JSON of
// that shape or has no run.
func decodeSARIF(t *testing.T, b []byte) sarifLog {
	t.Helper()
	var log sarifLog
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) == 0 {
		t.Fatalf("no run in\n%s", b)
	}
	return log
}

// TestWriteSARIF checks the structure GitHub code scanning requires.
func TestWriteSARIF(t *testing.T) {
	var b bytes.Buffer
	if err := lint.Write(&b, lint.SARIF, sample()); err != nil {
		t.Fatal(err)
	}
	log := decodeSARIF(t, b.Bytes())
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 {
		t.Fatalf("bad header: %q %q, %d runs", log.Version, log.Schema, len(log.Runs))
	}
	run := log.Runs[0]
	d := run.Tool.Driver
	if d.Name != "prose" || !strings.HasPrefix(d.InformationURI, "https://") || d.Version == "" || d.Version != version.Get().Version {
		t.Errorf("driver %q %q version %q", d.Name, d.InformationURI, d.Version)
	}
	if len(d.Rules) != 3 || len(run.Results) != 3 {
		t.Fatalf("%d rules, %d results; want 3 and 3", len(d.Rules), len(run.Results))
	}
	for i, r := range run.Results {
		rule := d.Rules[r.RuleIndex]
		if rule.ID != r.RuleID || rule.ShortDescription.Text == "" {
			t.Errorf("result %d: ruleIndex %d points at %q, want %q with a description", i, r.RuleIndex, rule.ID, r.RuleID)
		}
		if r.Level != "error" && r.Level != "warning" || r.Message.Text == "" || len(r.Locations) != 1 {
			t.Errorf("result %d: level %q, message %q, %d locations", i, r.Level, r.Message.Text, len(r.Locations))
		}
	}
	first := run.Results[0].Locations[0].PhysicalLocation
	if first.ArtifactLocation.URI != "dir/a.prose.md" || first.Region == nil || first.Region.StartLine != 3 || first.Region.StartColumn != 5 {
		t.Errorf("first location %+v", first)
	}
	last := run.Results[2].Locations[0].PhysicalLocation
	if last.ArtifactLocation.URI != "b%20c.prose.md" || last.Region != nil {
		t.Errorf("a file-level finding: got uri %q region %v", last.ArtifactLocation.URI, last.Region)
	}
	if run.Results[0].Level != "error" {
		t.Errorf("level %q, want error", run.Results[0].Level)
	}
}
