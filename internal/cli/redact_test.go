package cli

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proselang/prose/llm/llmtest"
)

const echoSpec = `---
name: echo
kind: pattern
---

# Echo

Ask one worker and return its answer.

### Slots

- ` + "`worker`" + ` (primary)
  - requires: task
  - ensures: an answer

### Requires

- Pattern instance receives:
    task: string -- what to do

### Ensures

- answer: the worker's answer

### Delegation

` + "```prose" + `
let answer = call worker
  task: task
return { answer: answer }
` + "```" + `
`

// TestSecretsNeverPrinted: a model that echoes the API key, and a server
// that echoes the Authorization header (Bearer key, or Basic auth made of
// the base URL's user and password), print [redacted] on stdout, stderr
// and in the trace.
func TestSecretsNeverPrinted(t *testing.T) {
	const key, user, pass = "key-7d1e9a0b55", "alice", "pw-3f8c21aa"
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	dir := t.TempDir()
	spec := filepath.Join(dir, "echo.prose.md")
	if err := os.WriteFile(spec, []byte(echoSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, withKey := range []bool{true, false} {
		said := "your login " + user + ":" + pass + " (" + basic + ")"
		if withKey {
			said = "your key is " + key + ", " + said
		}
		srv := llmtest.NewServer(t, llmtest.Reply{Content: said + "; header: ", Echo: "Authorization", Times: -1})
		t.Setenv("OPENAI_API_KEY", "")
		if withKey {
			t.Setenv("OPENAI_API_KEY", key)
		}
		t.Setenv("OPENAI_BASE_URL", "")
		t.Setenv("PROSE_MODEL", "m")
		base := strings.Replace(srv.URL, "http://", "http://"+user+":"+pass+"@", 1)
		trace := filepath.Join(dir, "trace.jsonl")
		code, out, errs := runMain(t, "run", spec, "--slot", "worker=llm", "--input", "task=t",
			"--base-url", base, "--trace", trace, "--run-dir", filepath.Join(dir, "runs"))
		tr, _ := os.ReadFile(trace)
		if code != 0 || !strings.Contains(out, "your login [redacted] ([redacted])") ||
			(withKey && !strings.Contains(out, "your key is [redacted]")) {
			t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		auth := srv.Requests()[0].Header.Get("Authorization")
		for name, text := range map[string]string{"stdout": out, "stderr": errs, "trace": string(tr)} {
			for _, sec := range []string{key, pass, basic} {
				if strings.Contains(text, sec) {
					t.Errorf("key %v: %s shows %q:\n%s", withKey, name, sec, text)
				}
			}
			if len(auth) > 12 && strings.Contains(text, auth) {
				t.Errorf("key %v: %s shows the Authorization header %q", withKey, name, auth)
			}
		}
	}
}

// TestEveryStreamRedacted: the redaction sits on the streams themselves,
// so a known secret is withheld whatever command prints it.
func TestEveryStreamRedacted(t *testing.T) {
	const key = "key-0c4b77e2d1"
	t.Setenv("OPENAI_API_KEY", key)
	spec := filepath.Join(t.TempDir(), "echo.prose.md")
	if err := os.WriteFile(spec, []byte(strings.Replace(echoSpec, "Ask one worker", "Ask one worker ("+key+")", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runMain(t, "show", spec)
	if code != 0 || strings.Contains(out, key) || !strings.Contains(out, "Ask one worker ([redacted])") {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// TestStreamsKnowTheJournalsSecrets: stdout, stderr and the trace use one
// redactor, so an environment secret the journal knows by its name
// (SERVICE_AUTH) is withheld on stdout too, and a secret with a quote is
// withheld in the JSON-escaped form the result is printed in.
func TestStreamsKnowTheJournalsSecrets(t *testing.T) {
	const auth, quoted = "auth-5f1c9e77d2", `pa"ss-4b7e0c19`
	t.Setenv("SERVICE_AUTH", auth)
	t.Setenv("DB_PASSWORD", quoted)
	dir := t.TempDir()
	spec := filepath.Join(dir, "echo.prose.md")
	if err := os.WriteFile(spec, []byte(echoSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "trace.jsonl")
	code, out, errs := runMain(t, "run", spec, "--slot", `worker=exec:echo "$SERVICE_AUTH and $DB_PASSWORD"`,
		"--input", "task=t", "--trace", trace, "--run-dir", filepath.Join(dir, "runs"))
	if code != 0 || !strings.Contains(out, "[redacted] and [redacted]") {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	tr, _ := os.ReadFile(trace)
	for name, text := range map[string]string{"stdout": out, "stderr": errs, "trace": string(tr)} {
		for _, sec := range []string{auth, quoted, `pa\"ss-4b7e0c19`} {
			if strings.Contains(text, sec) {
				t.Errorf("%s shows %q:\n%s", name, sec, text)
			}
		}
	}
}

// TestInlineBindingSecretRedacted: a secret written inline in an exec:
// binding (env API_TOKEN=... CMD) is withheld wherever the environment's
// secrets are when the program prints it: stdout, stderr, the trace, the
// journal's records and runs show.
func TestInlineBindingSecretRedacted(t *testing.T) {
	const token = "tok-7c1d93aa5e0b"
	dir := t.TempDir()
	spec := filepath.Join(dir, "echo.prose.md")
	if err := os.WriteFile(spec, []byte(echoSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "trace.jsonl")
	runDir := filepath.Join(dir, "runs")
	code, out, errs := runMain(t, "run", spec, "--slot", `worker=exec:env API_TOKEN=`+token+` sh -c 'echo "token $API_TOKEN"'`,
		"--input", "task=t", "--trace", trace, "--run-dir", runDir)
	if code != 0 || !strings.Contains(out, "token [redacted]") {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	texts := map[string]string{"stdout": out, "stderr": errs}
	tr, _ := os.ReadFile(trace)
	texts["trace"] = string(tr)
	journals, _ := filepath.Glob(filepath.Join(runDir, "*", "journal.jsonl"))
	if len(journals) != 1 {
		t.Fatalf("%d journals", len(journals))
	}
	jb, _ := os.ReadFile(journals[0])
	texts["journal"] = string(jb)
	id := filepath.Base(filepath.Dir(journals[0]))
	code, show, showErr := runMain(t, "runs", "show", "--run-dir", runDir, id)
	if code != 0 {
		t.Fatalf("runs show: exit %d\n%s", code, showErr)
	}
	texts["runs show"] = show
	for name, text := range texts {
		if strings.Contains(text, token) {
			t.Errorf("%s shows the inline secret:\n%s", name, text)
		}
	}
}
