package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/proselang/prose/redact"
)

// Secrets of the environment in results and errors.
//
// A call result or error message that holds the value of a secret-looking
// environment variable of the run (a service that prints $API_TOKEN in
// its error) is journaled with the value replaced by "[secret $NAME]". A
// resume or a replay puts the value back from its own environment, so it
// answers with exactly what the run saw; it refuses to start when such a
// variable is not set.

// envVault knows the secret-looking environment variables of the process.
type envVault struct {
	names, values []string // longest value first
	byName        map[string]string
}

var secretRef = regexp.MustCompile(`\[secret \$([A-Za-z_][A-Za-z0-9_]*)\]`)

func newEnvVault(env []string) *envVault {
	if env == nil {
		env = os.Environ()
	}
	v := &envVault{byName: map[string]string{}}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if ok && redact.EnvSecret(name, val) {
			v.byName[name] = val
			v.names = append(v.names, name)
		}
	}
	sort.Slice(v.names, func(i, j int) bool { return len(v.byName[v.names[i]]) > len(v.byName[v.names[j]]) })
	for _, n := range v.names {
		v.values = append(v.values, v.byName[n])
	}
	return v
}

// hide replaces the secret values in s by references.
func (v *envVault) hide(s string) string {
	for i, val := range v.values {
		if strings.Contains(s, val) {
			s = strings.ReplaceAll(s, val, "[secret $"+v.names[i]+"]")
		}
	}
	return s
}

// reveal puts the values back; a reference to a variable that is not set
// is left as it is.
func (v *envVault) reveal(s string) string {
	if !strings.Contains(s, "[secret $") {
		return s
	}
	return secretRef.ReplaceAllStringFunc(s, func(m string) string {
		if val, ok := v.byName[secretRef.FindStringSubmatch(m)[1]]; ok {
			return val
		}
		return m
	})
}

// hideRecord returns rec with the environment's secrets withheld from
// what it says a service, a judge or the run returned.
func (v *envVault) hideRecord(rec *Record) *Record {
	if len(v.values) == 0 {
		return rec
	}
	if len(rec.long) == 0 {
		return mapText(rec, v.hide)
	}
	// The long strings stood in for hold none of the secrets, and no
	// secret holds a quote or is found in a stub (encodeResult): the
	// secrets are withheld from the text between the stubs, and the
	// stubs moved as the text before them changed.
	res, long := hideBetween(rec.Result, rec.long, v.hide)
	c := *rec
	c.Result, c.long = nil, nil
	out := mapText(&c, v.hide)
	out.Result, out.long = res, long
	out.resultJSON = rec.resultJSON && bytes.Equal(res, rec.Result)
	return out
}

// hideBetween is raw with hide applied to the text between its stubs
// (long), and where the stubs are then.
func hideBetween(raw []byte, long []longRef, hide func(string) string) ([]byte, []longRef) {
	out := make([]byte, 0, len(raw))
	refs := make([]longRef, len(long))
	from := 0
	for i, l := range long {
		out = append(out, hide(string(raw[from:l.off]))...)
		refs[i] = l
		refs[i].off = len(out)
		out = append(out, blobStub...)
		from = l.off + len(blobStub)
	}
	return append(out, hide(string(raw[from:]))...), refs
}

// revealRecord returns rec with the secrets put back: rec itself when it
// refers to none (the common case: no copy is made).
func (v *envVault) revealRecord(rec *Record) *Record {
	if !refersToSecret(rec) {
		return rec
	}
	return mapText(rec, v.reveal)
}

// refersToSecret reports whether a text of rec that mapText maps holds a
// reference to a withheld secret.
// secretMark begins what a withheld secret is journaled as: "[secret
// $NAME]".
const secretMark = "[secret $"

func refersToSecret(rec *Record) bool {
	const ref = secretMark
	if strings.Contains(rec.Err, ref) || strings.Contains(rec.Reasoning, ref) || bytes.Contains(rec.Result, []byte(ref)) {
		return true
	}
	if n := rec.Nested; n != nil {
		if strings.Contains(n.Msg, ref) {
			return true
		}
		for _, c := range n.Chain {
			if strings.Contains(c, ref) {
				return true
			}
		}
	}
	return false
}

// mapText returns a copy of rec with f applied to every text that a
// service, a judge or the run returned: the fields hide, reveal and
// missing look at.
func mapText(rec *Record, f func(string) string) *Record {
	if len(rec.long) > 0 {
		rec = rec.expanded() // f sees every text
	}
	c := *rec
	c.Err, c.Reasoning = f(c.Err), f(c.Reasoning)
	if c.Result != nil {
		if res := f(string(c.Result)); res != string(c.Result) {
			c.Result, c.resultJSON = json.RawMessage(res), false
		}
	}
	if n := c.Nested; n != nil {
		nc := *n
		nc.Msg = f(nc.Msg)
		nc.Chain = append([]string(nil), nc.Chain...)
		for i := range nc.Chain {
			nc.Chain[i] = f(nc.Chain[i])
		}
		c.Nested = &nc
	}
	return &c
}

// missing lists the variables that the records of l refer to and that
// are not set now.
func (v *envVault) missing(l *Log) []string {
	seen := map[string]bool{}
	var out []string
	look := func(s string) string {
		for _, m := range secretRef.FindAllStringSubmatch(s, -1) {
			if _, ok := v.byName[m[1]]; !ok && !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
		return s
	}
	for _, r := range l.Records {
		if refersToSecret(r) {
			mapText(r, look)
		}
	}
	return out
}

// MissingSecretsError reports environment variables whose values the
// journal withheld and that are not set for a resume or a replay.
type MissingSecretsError struct{ Names []string }

func (e *MissingSecretsError) Error() string {
	return fmt.Sprintf("the journal withheld the value of $%s (a secret in the run's environment that a service returned or printed); set it as when the run started",
		strings.Join(e.Names, ", $"))
}
