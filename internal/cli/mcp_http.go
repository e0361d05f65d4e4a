package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxMCPBody bounds the JSON-RPC body refuseExec reads to look at.
const maxMCPBody = 16 << 20

// execRefusal is the tool error a client gets for an exec: binding over
// HTTP without a token.
const execRefusal = "prose mcp: this server was started without --token-file, so a run over HTTP may not bind a slot to exec: (any local user could run any program as the server's user); restart it with --token-file FILE, or with --allow-exec to allow it anyway"

// refuseExec answers, in the server's stead, a tools/call whose
// arguments bind a slot to an exec: program (the "slots" of run), with a
// tool error that says why, when on is set. Other requests pass through
// with their body unchanged.
func refuseExec(on bool, next http.Handler) http.Handler {
	if !on {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxMCPBody+1))
		r.Body.Close()
		if err != nil {
			http.Error(w, "prose mcp: reading the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if len(body) > maxMCPBody {
			http.Error(w, fmt.Sprintf("prose mcp: a request body over %d bytes", maxMCPBody), http.StatusRequestEntityTooLarge)
			return
		}
		if id, ok := execCall(body); ok {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
				"content": []any{map[string]any{"type": "text", "text": execRefusal}}, "isError": true}})
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// execCall reports whether body is a tools/call (or a batch holding one)
// whose arguments bind a slot to exec:, with the id to answer it by.
func execCall(body []byte) (json.RawMessage, bool) {
	type call struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Arguments struct {
				Slots map[string]any `json:"slots"`
			} `json:"arguments"`
		} `json:"params"`
	}
	var msgs []call
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &msgs) != nil {
			return nil, false
		}
	} else {
		var one call
		if json.Unmarshal(trimmed, &one) != nil {
			return nil, false
		}
		msgs = []call{one}
	}
	for _, m := range msgs {
		if m.Method != "tools/call" {
			continue
		}
		for _, b := range m.Params.Arguments.Slots {
			if bindsExec(b) {
				return m.ID, true
			}
		}
	}
	return nil, false
}

// bindsExec reports whether a slot's binding (text, or a list of them)
// is an exec: program.
func bindsExec(b any) bool {
	switch b := b.(type) {
	case string:
		return strings.HasPrefix(strings.TrimSpace(b), "exec:")
	case []any:
		for _, e := range b {
			if bindsExec(e) {
				return true
			}
		}
	}
	return false
}
