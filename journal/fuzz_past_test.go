package journal

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzPastDigests feeds what reads a journal after its digest chain has
// accepted it: the records are sealed by the harness, so every input
// gets past the digests (a fuzzer could not forge them), and reach the
// consumers of their content: each attempt's outcome as a resume or a
// replay rebuilds it (value, replayed error, nested error), the vault of
// the environment's secrets (hide, reveal, what is missing), and the
// request a resume rebuilds. None may panic; reveal undoes hide on a text
// that referred to no secret; an error record rebuilds an error, never a
// value; a rebuilt request is a JSON value.
func FuzzPastDigests(f *testing.F) {
	f.Add(`{"t":"header","v":2,"run":"x","request":{"spec":"s.prose.md","bindings":{"slots":[{"name":"a","value":"exec:true"}]}}}`,
		`{"t":"end","id":"L3","attempt":1,"result":{"a":[1,"tok-0123456789abcdef",null]}}`+"\n"+
			`{"t":"end","id":"L4","attempt":1,"err":"401 for [secret $MY_SERVICE_TOKEN]","kind":"call","catchable":true}`+"\n"+
			`{"t":"session","mode":"resume","request":{"spec":"s.prose.md","dir":"/x"}}`)
	f.Add(`{"t":"header","v":2}`,
		`{"t":"end","id":"L5/1","attempt":2,"kind":"runtime","nested":{"pos":{"file":"n.prose.md","line":3,"col":1},"msg":"[secret $NOPE] x","kind":"throw","chain":["[secret $MY_SERVICE_TOKEN]","b"],"catchable":true}}`+"\n"+
			`{"t":"final","status":"ok","result":"[secret $MY_SERVICE_TOKEN]"}`)
	f.Add(`{"t":"header","v":2,"request":null}`, `{"t":"end","id":"L1","attempt":1,"result":"not json`+"\n"+`{"t":"session","request":[1,2]}`)
	f.Add(`{"t":"header","v":2}`, `{"t":"end","id":"L1","attempt":1,"result":1e999}`+"\n"+`{"t":"end","id":"L1","attempt":1,"result":{"a":1,"a":2}}`)
	const secret = "tok-0123456789abcdef"
	env := []string{"MY_SERVICE_TOKEN=" + secret, "API_KEY=sk-abcdefghijklmnop0123", "HOME=/nowhere"}
	f.Fuzz(func(t *testing.T, header, body string) {
		lines := []string{strings.TrimSpace(header)}
		for _, l := range strings.Split(body, "\n") {
			lines = append(lines, strings.TrimSpace(l))
		}
		for _, l := range lines {
			if len(l) < 2 || l[0] != '{' || l[len(l)-1] != '}' {
				return // a line the writer could not have sealed
			}
		}
		l, err := Read(bytes.NewReader(sealedJournal(lines...)))
		if err != nil {
			return
		}
		v := newEnvVault(env)
		r := &Run{id: "fuzz", dir: t.TempDir(), vault: v}
		for _, rec := range l.Records {
			hidden := v.hideRecord(rec)
			if !refersToSecret(rec) {
				if back := v.revealRecord(hidden); back.Err != rec.Err || !bytes.Equal(back.Result, rec.Result) {
					t.Fatalf("reveal(hide) changed a record: %+v -> %+v", rec, back)
				}
			}
			if rec.Type == TypeEnd {
				val, err := r.decodeOutcome(rec)
				if rec.Kind != "" && (err == nil || val != nil) {
					t.Fatalf("the error record %+v gave the value %v", rec, val)
				}
			}
		}
		v.missing(l)
		newIndex(l)
		l.Final()
		if req := l.Request(); len(req) > 0 && !json.Valid(req) {
			t.Fatalf("the rebuilt request is not JSON: %q", req)
		}
	})
}
