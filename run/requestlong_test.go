package run

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/proselang/prose/bind"
	"github.com/proselang/prose/journal"
)

// A new run's header holds stubs of its request's long values, each
// where the value's JSON is in the request as encoding/json writes it:
// with the values put back, the request is the one a header without
// stubs holds. Long values of every kind of binding are stood in for,
// shorter ones are written as they are, and the caller's request is
// left as it was.
func TestHeaderRequestStubsLongValues(t *testing.T) {
	long := strings.Repeat("\"quoted\" <tag> & \t tab\n", journal.LongStringMin/20)
	other := strings.Repeat("é", journal.LongStringMin)
	req := Request{Spec: "s.prose.md", Bindings: bind.Settings{
		Slots:     as("svc", "exec:cat"),
		Config:    as("n", "3", "text", other),
		Inputs:    as("topic", long, "short", "x"),
		InputJSON: `{"a":"` + strings.Repeat("b", journal.LongStringMin) + `"}`,
	}}
	j := &runJournal{req: req}
	whole, _ := j.header([]byte("src"), false)
	h, raw := j.header([]byte("src"), true)
	if whole.RequestLong != nil {
		t.Fatal("a header asked for without stubs holds stubs")
	}
	if len(h.RequestLong) != 3 {
		t.Fatalf("%d stubs, want 3 (config text, input topic, input_json)", len(h.RequestLong))
	}
	var back []byte
	from := 0
	for _, l := range h.RequestLong {
		if string(raw[l.Off:l.Off+len(`"$blob"`)]) != `"$blob"` {
			t.Fatalf("no stub at %d: %.40s", l.Off, raw[l.Off:])
		}
		back = append(back, raw[from:l.Off]...)
		var b bytes.Buffer
		enc := json.NewEncoder(&b) // as encoding/json writes it in the request
		enc.SetEscapeHTML(false)
		enc.Encode(l.S)
		back = append(back, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
		from = l.Off + len(`"$blob"`)
	}
	back = append(back, raw[from:]...)
	if !bytes.Equal(back, whole.Request) {
		t.Errorf("the request with its values put back:\n%.300s\nwant\n%.300s", back, whole.Request)
	}
	if req.Bindings.Inputs[0].Value != long || req.Bindings.Config[1].Value != other {
		t.Error("the caller's request was changed")
	}
}
