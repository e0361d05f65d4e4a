package judge

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"

	"github.com/proselang/prose/internal/testenv"
)

// corpusPatterns finds ../shared/corpus/openprose-0.11/patterns beside the
// module root, skipping the test when it is absent.
func corpusPatterns(t *testing.T) string { return testenv.Corpus(t) }

var proseFence = regexp.MustCompile("(?s)```prose\n(.*?)\n```")

// corpusConds parses every corpus Delegation block and returns its
// natural-language conditions by text.
func corpusConds(t *testing.T) map[string]*syntax.NaturalCond {
	dir := corpusPatterns(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.prose.md"))
	conds := map[string]*syntax.NaturalCond{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := proseFence.FindSubmatch(src)
		if m == nil {
			continue
		}
		prog, errs := syntax.ParseString(filepath.Base(f), string(m[1]))
		if errs.HasErrors() {
			t.Fatalf("%s: %v", f, errs)
		}
		syntax.Walk(prog, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.NaturalCond); ok {
				conds[c.Text] = c
			}
			return true
		})
	}
	return conds
}

// TestCorpusConditions judges every natural-language condition of the
// corpus, as the parser builds it, against each kind of structured
// verdict and a null criterion.
func TestCorpusConditions(t *testing.T) {
	// For each condition: the answer for a subject saying accept, reject,
	// adjust, and for a null criterion ("-" where not a says form).
	want := map[string][4]string{
		"verdict certifies the proposal":                        {"true", "false", "false", "-"},
		"verdict accepts result":                                {"true", "false", "false", "-"},
		"decision says abort":                                   {"false", "true", "false", "-"},
		"decision says adjust":                                  {"false", "false", "true", "-"},
		"decision does not explicitly proceed":                  {"false", "true", "true", "-"},
		"failure_criteria says result is a failure":             {"false", "true", "false", "false"},
		"failure_criteria says candidate_result is a failure":   {"false", "true", "false", "false"},
		"acceptance_criteria says attempt.result is acceptable": {"true", "false", "false", "true"},
	}
	conds := corpusConds(t)
	var texts []string
	for text := range conds {
		texts = append(texts, text)
	}
	sort.Strings(texts)
	for _, text := range texts {
		c := conds[text]
		w, ok := want[text]
		if !ok {
			t.Errorf("corpus condition %q has no expectation here", text)
			continue
		}
		if NeedsModel(c, nil) == NeedAlways {
			t.Errorf("%q: no rule understands it", text)
		}
		for i, decision := range []string{`"accept"`, `{"verdict": "rejected"}`, `{"decision": "adjust"}`} {
			if got := judgeWith(t, c, decision, `"a rubric"`); got != w[i] {
				t.Errorf("%q with %s: %s, want %s", text, decision, got, w[i])
			}
		}
		if w[3] != "-" {
			if got := judgeWith(t, c, `"any result"`, "null"); got != w[3] {
				t.Errorf("%q with a null criterion: %s, want %s", text, got, w[3])
			}
		}
	}
	for text := range want {
		if _, ok := conds[text]; !ok {
			t.Errorf("expected corpus condition %q not found", text)
		}
	}
}

// judgeWith decides c with its subject bound to subjectJSON (and a says
// form's criterion to criterionJSON): "true", "false" or "model".
func judgeWith(t *testing.T, c *syntax.NaturalCond, subjectJSON, criterionJSON string) string {
	vals := delegation.NewObject()
	subj, _ := delegation.FromJSON([]byte(subjectJSON))
	if c.Says != nil {
		crit, _ := delegation.FromJSON([]byte(criterionJSON))
		vals.Set(c.Says.Criterion, crit)
		vals.Set(c.Says.Subject, subj)
	} else {
		vals.Set(leadingPath(c), subj)
	}
	v, ok := Decide(&delegation.Judgment{Cond: c, Values: vals})
	if !ok {
		return "model"
	}
	return strings.ToLower(map[bool]string{true: "true", false: "false"}[v.Holds])
}
