package cli

import (
	"encoding/json"
	"testing"
)

// FuzzExecCall: any request body never panics; a tools/call whose slots
// bind exec: is found, in a batch too, and the id given back is its own.
func FuzzExecCall(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run","arguments":{"slots":{"a":"exec:true"}}}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"arguments":{"slots":{"a":["llm"," exec:id"]}}}}]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"inputs":{"a":"exec:not a slot"}}}}`))
	f.Add([]byte(`{"method":"initialize"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		id, ok := execCall(body)
		if ok && id != nil && !json.Valid(id) {
			t.Fatalf("id %q from %q is not JSON", id, body)
		}
	})
}

func TestExecCall(t *testing.T) {
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run","arguments":{"slots":{"a":"exec:true"}}}}`:   true,
		`[{"method":"ping"},{"id":2,"method":"tools/call","params":{"arguments":{"slots":{"a":["llm"," exec:id"]}}}}]`:     true,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"inputs":{"task":"exec:not a binding"}}}}`:   false,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"slots":{"a":"llm","b":"std/x.prose.md"}}}}`: false,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"arguments":{"slots":{"a":"exec:x"}}}}`:                   false,
		`not json`: false,
	} {
		if _, got := execCall([]byte(body)); got != want {
			t.Errorf("execCall(%s) = %v, want %v", body, got, want)
		}
	}
}
