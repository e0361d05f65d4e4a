package testrun

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/lint"
)

// Counts tallies results by status.
type Counts struct{ Passed, Failed, Errors, Skipped int }

// Count tallies rs.
func Count(rs []*Result) Counts {
	var c Counts
	for _, r := range rs {
		switch r.Status {
		case Pass:
			c.Passed++
		case Fail:
			c.Failed++
		case Error:
			c.Errors++
		case Skip:
			c.Skipped++
		}
	}
	return c
}

// String is the closing line: "N passed, N failed", then ", N errors"
// and ", N skipped" when there are any.
func (c Counts) String() string {
	s := fmt.Sprintf("%d passed, %d failed", c.Passed, c.Failed)
	if c.Errors > 0 {
		s += fmt.Sprintf(", %d errors", c.Errors)
	}
	if c.Skipped > 0 {
		s += fmt.Sprintf(", %d skipped", c.Skipped)
	}
	return s
}

// OK reports whether nothing failed or errored.
func (c Counts) OK() bool { return c.Failed == 0 && c.Errors == 0 }

// WriteResult prints one test's lines: PASS, FAIL with the unmet items
// (the item's file:line, its text, the observed value), ERROR or SKIP with
// the reason.
func WriteResult(w io.Writer, r *Result) {
	switch r.Status {
	case Pass:
		fmt.Fprintf(w, "PASS %s (%s)\n", r.Name, seconds(r.Duration))
	case Fail:
		fmt.Fprintf(w, "FAIL %s: %d/%d expectations\n", r.Name, r.Passed, len(r.Items))
		for _, it := range r.Items {
			if it.Status != Fail {
				continue
			}
			fmt.Fprintf(w, "    %s: %s %s\n", lineOf(it.Pos), expectWord(it), it.Text)
			fmt.Fprintf(w, "        observed: %s%s\n", it.Observed, detail(it))
		}
	case Error:
		fmt.Fprintf(w, "ERROR %s: %s\n", r.Name, r.Reason)
	case Skip:
		fmt.Fprintf(w, "SKIP %s: %s\n", r.Name, r.Reason)
	}
}

func expectWord(it *Item) string {
	if it.Negated {
		return "expected not:"
	}
	return "expected:"
}

func detail(it *Item) string {
	if it.Detail == "" {
		return ""
	}
	return " (" + it.Detail + ")"
}

// lineOf prints file:line.
func lineOf(p diag.Position) string {
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// seconds prints a duration as 1.2s.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// WriteText prints every result and the closing line.
func WriteText(w io.Writer, rs []*Result) {
	for _, r := range rs {
		WriteResult(w, r)
	}
	fmt.Fprintln(w, Count(rs))
}

// Annotations are the results as diagnostics: an error at each unmet item
// and at each test that errored, a warning at each skipped test.
func Annotations(rs []*Result) diag.List {
	var l diag.List
	for _, r := range rs {
		switch r.Status {
		case Fail:
			for _, it := range r.Items {
				if it.Status == Fail {
					l = append(l, diag.Diagnostic{Position: it.Pos, Severity: diag.Error, Code: "test/fail",
						Message: fmt.Sprintf("%s: %s %s; observed: %s%s", r.Name, expectWord(it), it.Text, it.Observed, detail(it))})
				}
			}
		case Error:
			l = append(l, diag.Diagnostic{Position: r.Pos, Severity: diag.Error, Code: "test/error", Message: r.Name + ": " + r.Reason})
		case Skip:
			l = append(l, diag.Diagnostic{Position: r.Pos, Severity: diag.Warning, Code: "test/skip", Message: r.Name + ": skipped: " + r.Reason})
		}
	}
	return l
}

// WriteGitHub prints the results as GitHub workflow commands, escaped as
// prose lint's github format escapes them (it is that format).
func WriteGitHub(w io.Writer, rs []*Result) error {
	return lint.Write(w, lint.GitHub, &lint.Result{Diags: Annotations(rs)})
}

// WriteJSON prints one JSON object per test, one a line.
func WriteJSON(w io.Writer, rs []*Result) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, r := range rs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// JUnit XML in the structure CI systems read (the common Ant/Jenkins
// schema): testsuites, one testsuite for the run, a testcase per test with
// at most one failure, error or skipped child.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Skipped   int         `xml:"skipped,attr"`
		Time      string      `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr,omitempty"`
		Cases     []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		File      string        `xml:"file,attr,omitempty"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		Skipped   *junitProblem `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Body    string `xml:",chardata"`
	}
)

// WriteJUnit writes the results as one JUnit XML document.
func WriteJUnit(w io.Writer, rs []*Result) error {
	c := Count(rs)
	var total time.Duration
	suite := junitSuite{Name: "prose test", Tests: len(rs), Failures: c.Failed, Errors: c.Errors, Skipped: c.Skipped}
	for _, r := range rs {
		total += r.Duration
		jc := junitCase{Name: r.Name, Classname: strings.TrimSuffix(r.File, Suffix), File: r.File, Time: secs(r.Duration)}
		switch r.Status {
		case Fail:
			var b strings.Builder
			for _, it := range r.Items {
				if it.Status == Fail {
					fmt.Fprintf(&b, "%s: %s %s\n    observed: %s%s\n", lineOf(it.Pos), expectWord(it), it.Text, it.Observed, detail(it))
				}
			}
			jc.Failure = &junitProblem{Message: fmt.Sprintf("%d/%d expectations", r.Passed, len(r.Items)), Type: "expectation", Body: b.String()}
		case Error:
			jc.Error = &junitProblem{Message: r.Reason, Type: "error"}
		case Skip:
			jc.Skipped = &junitProblem{Message: r.Reason}
		}
		if r.RunID != "" {
			jc.SystemOut = "run " + r.RunID
		}
		suite.Cases = append(suite.Cases, jc)
	}
	suite.Time = secs(total)
	doc := junitSuites{Name: "prose test", Tests: len(rs), Failures: c.Failed, Errors: c.Errors, Skipped: c.Skipped, Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
