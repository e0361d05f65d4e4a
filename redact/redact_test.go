package redact

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	r := New("sk-test-1234567890", "p@ss word", "abc", "")
	in := "key sk-test-1234567890, query p%40ss+word, path p%40ss%20word, raw p@ss word, short abc"
	got := r.String(in)
	want := "key [redacted], query [redacted], path [redacted], raw [redacted], short abc"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	var nilR *Redactor
	if nilR.String("x") != "x" {
		t.Error("a nil Redactor changes text")
	}
}

func TestURLSecrets(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("alice:s3cr%t"))
	r := New(URLSecrets("https://alice:s3cr%25t@llm.example/v1?api-key=QWERTY123&model=x")...)
	for _, s := range []string{"alice:s3cr%25t", "alice:s3cr%t", "Basic " + basic, "QWERTY123"} {
		if got := r.String("<" + s + ">"); strings.Contains(got, strings.TrimPrefix(s, "Basic ")) {
			t.Errorf("%q is not redacted: %q", s, got)
		}
	}
	if got := r.String("model=x"); got != "model=x" {
		t.Errorf("a plain parameter is redacted: %q", got)
	}
	// A user name or password long enough to be a secret is withheld
	// alone too, as a whole token.
	long := New(URLSecrets("https://service-account:hunter2-long@llm.example/v1")...)
	if got := long.String("as service-account, hunter2-long; hunter2-longer"); got != "as [redacted], [redacted]; hunter2-longer" {
		t.Errorf("long credentials: %q", got)
	}
}

// TestShortURLCredentialsAreNotWords: user:pass in a base URL takes
// neither "user" nor "pass" out of ordinary text, and a secret is removed
// shorter than 20 bytes only as a whole token, never from inside a longer
// word; a longer one wherever it stands (a server echoing a key with a
// byte appended shows no key).
func TestShortURLCredentialsAreNotWords(t *testing.T) {
	r := New(URLSecrets("http://user:pass@127.0.0.1:8080/v1")...)
	if got := r.String("the user passed the pass test"); got != "the user passed the pass test" {
		t.Errorf("ordinary text redacted: %q", got)
	}
	if got := r.String("GET http://user:pass@127.0.0.1:8080/v1"); got != "GET http://[redacted]@127.0.0.1:8080/v1" {
		t.Errorf("the URL keeps its credentials: %q", got)
	}
	k := New("abcdefgh12345678")
	if got := k.String("xabcdefgh12345678 abcdefgh12345678y (abcdefgh12345678)"); got != "xabcdefgh12345678 abcdefgh12345678y ([redacted])" {
		t.Errorf("whole tokens: %q", got)
	}
	key := New("sk-test-abcdefgh12345678")
	if got := key.String("xsk-test-abcdefgh12345678 sk-test-abcdefgh123456780 (sk-test-abcdefgh12345678)"); got != "x[redacted] [redacted]0 ([redacted])" {
		t.Errorf("a key inside words: %q", got)
	}
}

func TestEnvSecrets(t *testing.T) {
	env := []string{"OPENAI_API_KEY=key-one-1234", "GITHUB_TOKEN=ghtok-5678", "PROSE_MAX_TOKENS=4096",
		"HOME=/root", "OPENAI_BASE_URL=http://bob:hunter22@localhost:8080/v1", "KEYBOARD=us", "DB_PASSWORD=pw-99999", "SKIP_TOKEN=true"}
	r := New(EnvSecrets(env)...)
	got := r.String("key-one-1234 ghtok-5678 4096 /root hunter22 us pw-99999 true")
	if got != "[redacted] [redacted] 4096 /root [redacted] us [redacted] true" {
		t.Errorf("got %q", got)
	}
}

// TestEnvSecretsNotTheWorkingDirectory: the shell's PWD and OLDPWD hold
// directories, not passwords, although "pwd" names a password elsewhere
// (DB_PWD): a path under the current directory is printed as it is.
func TestEnvSecretsNotTheWorkingDirectory(t *testing.T) {
	env := []string{"PWD=/home/alice/project", "OLDPWD=/home/alice/elsewhere", "DB_PWD=s3cret-pwd-1"}
	got := New(EnvSecrets(env)...).String("/home/alice/project/.prose/runs /home/alice/elsewhere s3cret-pwd-1")
	if got != "/home/alice/project/.prose/runs /home/alice/elsewhere [redacted]" {
		t.Errorf("got %q", got)
	}
}

// TestWriterJoinsPieces: a secret written in two pieces is still
// redacted; text is held back only until its line ends.
func TestWriterJoinsPieces(t *testing.T) {
	var out bytes.Buffer
	w := New("topsecret-value").Writer(&out)
	w.Write([]byte("a: topsec"))
	if out.Len() != 0 {
		t.Fatalf("an unfinished line was written: %q", out.String())
	}
	w.Write([]byte("ret-value\nstatus 12s\r"))
	if out.String() != "a: [redacted]\nstatus 12s\r" {
		t.Fatalf("got %q", out.String())
	}
	w.Write([]byte("tail topsecret-value"))
	w.Flush()
	if !strings.HasSuffix(out.String(), "tail [redacted]") {
		t.Fatalf("got %q", out.String())
	}
}

// TestText: credential shapes are removed whoever wrote them, the known
// secrets of an environment wherever they appear, and Text says whether
// it changed anything.
func TestText(t *testing.T) {
	r := ForEnv([]string{"OPENAI_API_KEY=abcdefgh12345678", "HOME=/home/u", "SHORT_TOKEN=abc"}).WithShapes()
	cases := []struct {
		in      string
		out     string
		changed bool
	}{
		{"exec:./svc.sh --fast", "exec:./svc.sh --fast", false},
		{"exec:API_TOKEN=hunter22 ./svc.sh", "exec:API_TOKEN=[redacted] ./svc.sh", true},
		{"exec:MODE=fast ./svc.sh", "exec:MODE=fast ./svc.sh", false},
		{"llm:gpt-4o", "llm:gpt-4o", false},
		{"exec:curl -H 'Authorization: Bearer abcdef123456789' x", "exec:curl -H 'Authorization: [redacted]' x", true},
		{"key sk-proj-ABCDEFGHIJKLMNOPQRSTUV", "key [redacted]", true},
		{"exec:./svc abcdefgh12345678", "exec:./svc [redacted]", true},
		{"/home/u/abc", "/home/u/abc", false},
		{"https://me:hunter2@llm.example/v1", "https://me:[redacted]@llm.example/v1", true},
		{"https://llm.example:8443/v1", "https://llm.example:8443/v1", false},
		{"exec:curl http://u@h/x", "exec:curl http://u@h/x", false},
		{`{"r":"DB_PASSWORD=hunter22","n":1}`, `{"r":"DB_PASSWORD=[redacted]","n":1}`, true},
		{`{"r":"exec:DB_PASSWORD=\"hunter 22\" ./x"}`, `{"r":"exec:DB_PASSWORD=[redacted] ./x"}`, true},
	}
	for _, c := range cases {
		got, changed := r.Text(c.in)
		if got != c.out || changed != c.changed {
			t.Errorf("Text(%q) = %q, %v; want %q, %v", c.in, got, changed, c.out, c.changed)
		}
	}
	// Without shapes only the known secrets go.
	if got := ForEnv([]string{"OPENAI_API_KEY=abcdefgh12345678"}).String("sk-proj-ABCDEFGHIJKLMNOPQRSTUV abcdefgh12345678"); got != "sk-proj-ABCDEFGHIJKLMNOPQRSTUV [redacted]" {
		t.Errorf("without shapes: %q", got)
	}
	// A secret with a quote is known in its JSON-escaped form too.
	if got := New(`pa"ss-word-1`).String(`{"v":"pa\"ss-word-1"}`); got != `{"v":"[redacted]"}` {
		t.Errorf("JSON-escaped secret: %q", got)
	}
	for _, c := range []struct {
		key, value, shown string
		withheld          bool
	}{
		{"api_key", "x", Mark, true},
		{"task_brief", "write a poem", "write a poem", false},
		{"notes", "use ghp_abcdefghijklmnopqrstuvwxyz0123", Mark, true},
		{"notes", "key abcdefgh12345678 inside", Mark, true},
	} {
		if shown, w := r.Value(c.key, c.value); shown != c.shown || w != c.withheld {
			t.Errorf("Value(%q, %q) = %q, %v", c.key, c.value, shown, w)
		}
	}
}

func TestSecretName(t *testing.T) {
	secret := []string{"api_key", "API_KEY", "OPENAI_API_KEY", "apiKey", "apikey", "x-api-key",
		"GITHUB_TOKEN", "token", "accessToken", "access_token", "client_secret", "clientSecret",
		"AWS_SECRET_ACCESS_KEY", "db_password", "PASSWORD", "passwd", "passphrase",
		"credentials", "auth", "AUTH_HEADER", "authorization", "private_key", "ghtoken", "dbpassword",
		"DB_PASS", "DB_PWD", "GH_PAT", "SIGNING_KEY", "LICENSE_KEY", "MY.APIKEY", "GOOGLE_CREDENTIALS"}
	plain := []string{"max_tokens", "maxTokens", "token_limit", "tokens", "author", "authors",
		"auth_url", "task_brief", "key", "keys", "monkey", "sort_key", "HOME", "PATH",
		"secretary_name", "passage", "max_steps", "certified_progress",
		"PROSE_MAX_TOKENS", "TOKEN_LIMIT", "KEYBOARD", "PASSAGE_ID", "PATH_KEY",
		// the shell's working directories: redacting them would hide every
		// path under the directory prose runs in
		"PWD", "OLDPWD"}
	for _, n := range secret {
		if !SecretName(n) {
			t.Errorf("SecretName(%q) = false, want true", n)
		}
	}
	for _, n := range plain {
		if SecretName(n) {
			t.Errorf("SecretName(%q) = true, want false", n)
		}
	}
}

// TestInputSecrets: inputs named like secrets, given with --input or
// inside --input-json at any depth, are secrets; others are not.
func TestInputSecrets(t *testing.T) {
	args := []string{"run", "x.prose.md", "--input", "api_token=tok-1", "--input=what=plain", "--input-json", `{"db_password": "pw-2", "opts": {"auth": {"token": "tok-3"}}, "task": "t"}`}
	got := strings.Join(FlagInputSecrets(args), " ")
	if got != "api_token=tok-1 db_password=pw-2 token=tok-3" {
		t.Errorf("FlagInputSecrets = %q", got)
	}
	if v := strings.Join(Values(FlagInputSecrets(args)), " "); v != "tok-1 pw-2 tok-3" {
		t.Errorf("Values = %q", v)
	}
}

// A secret written inline in a command (an exec: binding) is known by
// its value, quoted or not; a short or ordinary assignment is not.
func TestCommandSecrets(t *testing.T) {
	got := FlagSlotSecrets([]string{"run", "x.prose.md",
		"--slot", `svc=exec:env API_TOKEN=tok-5f2a9c1e7b DB_PASSWORD='pw with space' MODE=fast SKIP_TOKEN=true svc.sh`,
		"--slot=other=exec:GH_TOKEN=\"ghp-1234567890\" ./x", "--input", "API_KEY=notaslot99"})
	want := []string{"API_TOKEN=tok-5f2a9c1e7b", "DB_PASSWORD=pw with space", "GH_TOKEN=ghp-1234567890"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("FlagSlotSecrets = %q, want %q", got, want)
	}
	r := New(Values(got)...)
	if out := r.String(`{"token":"tok-5f2a9c1e7b","pw":"pw with space","ok":true}`); strings.Contains(out, "tok-5f2a9c1e7b") || strings.Contains(out, "pw with space") || !strings.Contains(out, "true") {
		t.Errorf("redacted %s", out)
	}
}

// BenchmarkShapesLongText: credential shapes looked for in 4 MB of
// base64, which holds some of their literal beginnings (eyJ, AKIA...)
// but no credential.
func BenchmarkShapesLongText(b *testing.B) {
	raw := make([]byte, 3<<20)
	var x uint64 = 88172645463325252
	for i := range raw {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		raw[i] = byte(x)
	}
	text := base64.StdEncoding.EncodeToString(raw) + " see https://example.com/a and token: none"
	r := &Redactor{shapes: true}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if out := r.String(text); len(out) != len(text) {
			b.Fatalf("changed %d bytes of a text without a credential", len(text)-len(out))
		}
	}
}
