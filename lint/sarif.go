package lint

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/proselang/prose/diag"
	"github.com/proselang/prose/version"
)

// SARIF 2.1.0 constants.
const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	toolName     = "prose"
	toolURI      = "https://github.com/proselang/prose"
)

// The subset of SARIF 2.1.0 that GitHub code scanning reads.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool sarifTool `json:"tool"`
		// ColumnKind says columns count code points, as diag.Position
		// does; SARIF's default would be UTF-16 code units.
		ColumnKind string        `json:"columnKind"`
		Results    []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version"` // prose's version (its module's, or "(devel)")
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID               string       `json:"id"`
		ShortDescription sarifMessage `json:"shortDescription"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
)

// writeSARIF prints one SARIF run: a rule per code that has a finding and
// a result per finding.
func writeSARIF(w io.Writer, l diag.List) error {
	desc := ruleDescriptions(l)
	codes := sortedCodes(l)
	index := make(map[string]int, len(codes))
	rules := make([]sarifRule, len(codes))
	for i, c := range codes {
		index[c] = i
		rules[i] = sarifRule{ID: c, ShortDescription: sarifMessage{Text: desc[c]}}
	}
	results := make([]sarifResult, 0, len(l))
	for _, d := range l {
		results = append(results, sarifResult{
			RuleID:    d.Code,
			RuleIndex: index[d.Code],
			Level:     d.Severity.String(),
			Message:   sarifMessage{Text: d.Message},
			Locations: []sarifLocation{{PhysicalLocation: physical(d.Position)}},
		})
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs: []sarifRun{{
			Tool:       sarifTool{Driver: sarifDriver{Name: toolName, Version: version.Get().Version, InformationURI: toolURI, Rules: rules}},
			ColumnKind: "unicodeCodePoints",
			Results:    results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// physical is a finding's location: a relative URI with forward slashes
// (file:// for an absolute path) and a region when the line is known.
func physical(p diag.Position) sarifPhysical {
	u := &url.URL{Path: slashPath(p.File)}
	if filepath.IsAbs(p.File) {
		u.Scheme = "file"
		if !strings.HasPrefix(u.Path, "/") {
			u.Path = "/" + u.Path
		}
	}
	uri := u.String()
	ph := sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}}
	if p.Line > 0 {
		ph.Region = &sarifRegion{StartLine: p.Line, StartColumn: p.Col}
	}
	return ph
}
