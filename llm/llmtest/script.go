package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// RequestLog is the file, in the script's work directory, where
// ScriptServer appends each request body it receives as one JSON line.
const RequestLog = "openai-requests.jsonl"

// ScriptServer is the testscript command
//
//	openai-server [REPLIES.json]
//
// It starts a scripted Chat Completions server for the rest of the script
// and sets OPENAI_BASE_URL to it. REPLIES.json holds the replies: a JSON
// array of Reply objects, or one object a line (fields as in Reply:
// status, header, body, content, delay, tokens_in, tokens_out, finish_reason, echo, match,
// times, tool_calls: [{"name", "arguments"}]). Without a file every
// request gets a 500. Each request body is
// appended, compacted to one line, to $WORK/openai-requests.jsonl (created
// empty at start), so a script can grep what the server received, or
// check that it received nothing. Request headers are not logged.
//
// Register it with testscript.Params{Cmds: map[string]func(...){
// "openai-server": llmtest.ScriptServer}}.
func ScriptServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! openai-server")
	}
	if len(args) > 1 {
		ts.Fatalf("usage: openai-server [REPLIES.json]")
	}
	var replies []Reply
	if len(args) == 1 {
		var err error
		if replies, err = ParseReplies([]byte(ts.ReadFile(args[0]))); err != nil {
			ts.Fatalf("openai-server: %s: %v", args[0], err)
		}
	}
	logPath := filepath.Join(ts.Getenv("WORK"), RequestLog)
	if err := os.WriteFile(logPath, nil, 0o644); err != nil {
		ts.Fatalf("openai-server: %v", err)
	}
	s := Start(replies...)
	var mu sync.Mutex
	s.mu.Lock()
	s.onReq = func(r Request) {
		mu.Lock()
		defer mu.Unlock()
		appendLog(logPath, r.Body)
	}
	s.mu.Unlock()
	ts.Defer(s.Close)
	ts.Setenv("OPENAI_BASE_URL", s.URL)
}

func appendLog(path string, body []byte) {
	var line bytes.Buffer
	if json.Compact(&line, body) != nil {
		line.Reset()
		b, _ := json.Marshal(string(body))
		line.Write(b)
	}
	line.WriteByte('\n')
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(line.Bytes())
}

// ParseReplies reads replies as a JSON array of Reply objects or as one
// object a line (blank lines and lines starting with # are skipped).
func ParseReplies(data []byte) ([]Reply, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var rs []Reply
		if err := json.Unmarshal(trimmed, &rs); err != nil {
			return nil, err
		}
		return rs, nil
	}
	var rs []Reply
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r Reply
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		rs = append(rs, r)
	}
	return rs, nil
}
