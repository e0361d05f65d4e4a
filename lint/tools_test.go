package lint_test

import (
	"strings"
	"testing"
	"testing/fstest"
)

// toolsSpec declares one tool of each kind of finding, and two that
// resolve (sh is on every PATH; mail is in .mcp.json).
const toolsSpec = `---
name: inspector
kind: function
---

# Inspector

### Parameters

- ` + "`repo`" + `: the repository

### Returns

- ` + "`report`" + `: what was found

### Tools

- gh
- ` + "`cli:`" + `: nothing named
- ` + "`http:example`" + `: a reserved namespace
- ` + "`cli:no-such-program-anywhere`" + `: not installed
- ` + "`mcp:gmail`" + `: not configured
- ` + "`cli:../bin/x`" + `: a path
- ` + "`cli:sh`" + `: on PATH
- ` + "`mcp:mail`" + `: configured

## helper

### Returns

- ` + "`x`" + `: a value

### Tools

- ` + "`ftp:server`" + `: reserved too
`

// Each malformed, reserved or unresolved declaration is an error at its
// line and column, with upstream's code; those that resolve draw none.
func TestToolFindings(t *testing.T) {
	res := lintFS(t, fstest.MapFS{
		"p/inspector.prose.md": {Data: []byte(toolsSpec)},
		".mcp.json":            {Data: []byte(`{"mcpServers": {"mail": {"command": "mail-mcp"}}}`)},
	})
	var got []string
	for _, d := range res.Diags {
		if strings.HasPrefix(d.Code, "tool_") {
			got = append(got, d.Position.String()+" "+d.Code)
		}
	}
	want := []string{
		"p/inspector.prose.md:18:3 tool_invalid",
		"p/inspector.prose.md:19:4 tool_invalid",
		"p/inspector.prose.md:20:4 tool_unsupported_kind",
		"p/inspector.prose.md:21:4 tool_unresolved",
		"p/inspector.prose.md:22:4 tool_unresolved",
		"p/inspector.prose.md:23:4 tool_invalid",
		"p/inspector.prose.md:35:4 tool_unsupported_kind",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s\n(all: %s)", strings.Join(got, "\n"), strings.Join(want, "\n"), res.Diags)
	}
	for _, d := range res.Diags {
		if d.Code == "tool_unresolved" && strings.Contains(d.Message, "gmail") && !strings.Contains(d.Message, `.mcp.json has no server "gmail" (it has mail)`) {
			t.Errorf("the unresolved server's message does not say where it looked: %s", d.Message)
		}
	}
}

// Without an MCP configuration, an mcp: declaration says what to write.
func TestToolUnresolvedWithoutConfig(t *testing.T) {
	res := lintFS(t, fstest.MapFS{"p/inspector.prose.md": {Data: []byte(toolsSpec)}})
	found := false
	for _, d := range res.Diags {
		if d.Code == "tool_unresolved" && strings.Contains(d.Message, `"mcp:mail"`) {
			found = strings.Contains(d.Message, "--mcp-config FILE")
		}
	}
	if !found {
		t.Errorf("no finding for mcp:mail naming what to do: %s", res.Diags)
	}
}
