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
	for _, s := range []string{"alice", "s3cr%25t", "s3cr%t", "Basic " + basic, "QWERTY123"} {
		if got := r.String("<" + s + ">"); strings.Contains(got, strings.TrimPrefix(s, "Basic ")) {
			t.Errorf("%q is not redacted: %q", s, got)
		}
	}
	if got := r.String("model=x"); got != "model=x" {
		t.Errorf("a plain parameter is redacted: %q", got)
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
