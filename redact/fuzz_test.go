package redact

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzRedactor: any secrets and any text, with and without shapes, never
// panic; a secret of word characters never survives as a whole token; and
// the line Writer, fed the text in two pieces, prints what String gives.
func FuzzRedactor(f *testing.F) {
	f.Add("hunter2-long", "user passed hunter2-long; http://u:hunter2-long@h/x", 3)
	f.Add("pass", "the user passed the pass test\nBearer abcdefgh1234\n", 7)
	f.Add("sk-abcdefghijklmnop1234", `{"k":"sk-abcdefghijklmnop1234"}`, 0)
	f.Add("p@ss word", "p%40ss+word p@ss word\r\n", 5)
	f.Fuzz(func(t *testing.T, secret, text string, cut int) {
		r := New(secret, "https://"+secret+"@h/v1?api_key="+secret)
		r.WithShapes().String(text)
		out := r.String(text)
		if len(secret) >= minLen && strings.IndexFunc(secret, func(c rune) bool { return c >= 0x80 || !isWordByte(byte(c)) }) < 0 {
			for i := 0; ; {
				j := strings.Index(out[i:], secret)
				if j < 0 {
					break
				}
				at, end := i+j, i+j+len(secret)
				if (at == 0 || !isWordByte(out[at-1])) && (end == len(out) || !isWordByte(out[end])) {
					t.Fatalf("secret %q survives as a token in %q (from %q)", secret, out, text)
				}
				i = at + 1
			}
		}
		if strings.ContainsAny(secret, "\r\n") {
			return
		}
		if cut < 0 {
			cut = -cut
		}
		cut %= len(text) + 1
		var b bytes.Buffer
		w := r.Writer(&b)
		w.Write([]byte(text[:cut]))
		w.Write([]byte(text[cut:]))
		w.Flush()
		if want := perLine(r, text); b.String() != want {
			t.Fatalf("Writer gave %q, String per line %q", b.String(), want)
		}
	})
}

// perLine is String applied to each line of s (a line ends after \n or \r).
func perLine(r *Redactor, s string) string {
	var out strings.Builder
	for s != "" {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out.WriteString(r.String(s))
			break
		}
		out.WriteString(r.String(s[:i+1]))
		s = s[i+1:]
	}
	return out.String()
}

// FuzzCommandSecrets: any command text never panics; every value found is
// secret-named, long enough, and redacted from the command itself.
func FuzzCommandSecrets(f *testing.F) {
	f.Add(`env API_TOKEN=tok-5f2a9c1e7b svc.sh`)
	f.Add(`exec:DB_PASSWORD='pw with space' X="y" ./run`)
	f.Add(`A_TOKEN=\"quoted-json-1\" B=1`)
	f.Fuzz(func(t *testing.T, command string) {
		for _, kv := range CommandSecrets(command) {
			name, val, ok := strings.Cut(kv, "=")
			if !ok || !EnvSecret(name, val) {
				t.Fatalf("%q from %q: not a secret assignment", kv, command)
			}
			if out := New(val).String(command); strings.Contains(out, val) && len(val) >= anywhereLen {
				t.Fatalf("secret %q survives in %q", val, out)
			}
		}
	})
}

// FuzzShapePrefilter: a text redacted with shapes comes out as the three
// patterns run over it unconditionally make it (the checks that skip a
// pattern skip only texts it cannot change).
func FuzzShapePrefilter(f *testing.F) {
	f.Add("token=abcdefgh and Bearer abcdefgh1234 sk-abcdefghijklmnop1234")
	f.Add("https://u:p@host/x 9api_key=1 a=b=c x_token=v é_secret=zz")
	f.Add("BeArEr 12345678 ghp_abcdefghijklmnopqrstu AKIAABCDEFGHIJKLMNOP")
	f.Add("nothing to see here = == =x")
	f.Add("9a://u:p@h .x+1://u:p@h://v:q@i ://a:b@ x1-://u:p@h https://a:b:c@d")
	f.Add("-sk-abcdefghijklmnopqr eyJaaaaaaaa.bbbbbbbbb.ccccccccc ghs_abcdefghijklmnopqrstuv xoxb-1234567890 AIza")
	f.Fuzz(func(t *testing.T, text string) {
		want := secretValue().ReplaceAllString(text, Mark)
		want = urlPassword().ReplaceAllString(want, "${1}"+Mark+"@")
		want = envAssign().ReplaceAllStringFunc(want, func(m string) string {
			name, _, _ := strings.Cut(m, "=")
			if SecretName(name) {
				return name + "=" + Mark
			}
			return m
		})
		if got := (&Redactor{shapes: true}).String(text); got != want {
			t.Fatalf("redacted %q to %q, the patterns alone to %q", text, got, want)
		}
	})
}
