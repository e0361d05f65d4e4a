package lint

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/proselang/prose/delegation/check"
	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/spec"
)

// Format is an output format of Write.
type Format string

// The output formats.
const (
	Text   Format = "text"   // FILE:LINE:COL: SEVERITY: MESSAGE [CODE], one per line
	JSON   Format = "json"   // an array of {file, line, col, severity, code, message}
	GitHub Format = "github" // GitHub Actions workflow commands (::error file=...::...)
	SARIF  Format = "sarif"  // SARIF 2.1.0, as GitHub code scanning accepts it
)

// Formats lists the formats in the order help texts show them.
func Formats() []Format { return []Format{Text, JSON, GitHub, SARIF} }

// ParseFormat returns the Format named s, or an error naming the choices.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q: want text, json, github or sarif", s)
}

// Write prints the findings of r in format f.
func Write(w io.Writer, f Format, r *Result) error {
	switch f {
	case Text, "":
		return writeText(w, r.Diags)
	case JSON:
		return writeJSON(w, r.Diags)
	case GitHub:
		return writeGitHub(w, r.Diags)
	case SARIF:
		return writeSARIF(w, r.Diags)
	}
	return fmt.Errorf("unknown format %q", f)
}

func writeText(w io.Writer, l diag.List) error {
	bw := bufio.NewWriter(w)
	for _, d := range l {
		bw.WriteString(d.String())
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func writeJSON(w io.Writer, l diag.List) error {
	if l == nil {
		l = diag.List{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(l)
}

// writeGitHub prints workflow commands: ::error file=F,line=L,col=C::MSG.
func writeGitHub(w io.Writer, l diag.List) error {
	bw := bufio.NewWriter(w)
	for _, d := range l {
		fmt.Fprintf(bw, "::%s file=%s", d.Severity, ghProperty(d.File))
		if d.Line > 0 {
			fmt.Fprintf(bw, ",line=%d,col=%d", d.Line, d.Col)
		}
		fmt.Fprintf(bw, "::%s\n", ghData(d.Message+" ["+d.Code+"]"))
	}
	return bw.Flush()
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// ruleDescriptions gives the one-line description of each known code:
// the loader's and the checks' own, else the first message seen for the
// code.
func ruleDescriptions(l diag.List) map[string]string {
	desc := map[string]string{}
	for _, r := range spec.Rules() {
		desc[r.Code] = r.Short
	}
	for _, r := range check.Rules() {
		desc[r.Code] = r.Short
	}
	for _, r := range Rules() {
		desc[r.Code] = r.Short
	}
	for _, d := range l {
		if _, ok := desc[d.Code]; !ok {
			desc[d.Code] = d.Message
		}
	}
	return desc
}
