package journal

import (
	"strings"
	"testing"
)

func TestRedactor(t *testing.T) {
	r := NewRedactor([]string{"OPENAI_API_KEY=abcdefgh12345678", "HOME=/home/u", "SHORT_TOKEN=abc"})
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
	}
	for _, c := range cases {
		got, changed := r.Text(c.in)
		if got != c.out || changed != c.changed {
			t.Errorf("Text(%q) = %q, %v; want %q, %v", c.in, got, changed, c.out, c.changed)
		}
	}
	if kv := r.KV("api_key", "x"); !kv.Redacted || kv.Value != Redacted {
		t.Errorf("KV(api_key) = %+v", kv)
	}
	if kv := r.KV("task_brief", "write a poem"); kv.Redacted || kv.Value != "write a poem" {
		t.Errorf("KV(task_brief) = %+v", kv)
	}
	if kv := r.KV("notes", "use ghp_abcdefghijklmnopqrstuvwxyz0123"); !kv.Redacted || strings.Contains(kv.Value, "ghp_") {
		t.Errorf("KV with a token inside = %+v", kv)
	}
}

func TestIsSecretName(t *testing.T) {
	secret := []string{"api_key", "API_KEY", "OPENAI_API_KEY", "apiKey", "apikey", "x-api-key",
		"GITHUB_TOKEN", "token", "accessToken", "access_token", "client_secret", "clientSecret",
		"AWS_SECRET_ACCESS_KEY", "db_password", "PASSWORD", "passwd", "passphrase",
		"credentials", "auth", "AUTH_HEADER", "authorization", "private_key", "ghtoken", "dbpassword"}
	plain := []string{"max_tokens", "maxTokens", "token_limit", "tokens", "author", "authors",
		"auth_url", "task_brief", "key", "keys", "monkey", "sort_key", "HOME", "PATH",
		"secretary_name", "passage", "max_steps", "certified_progress"}
	for _, n := range secret {
		if !IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = false, want true", n)
		}
	}
	for _, n := range plain {
		if IsSecretName(n) {
			t.Errorf("IsSecretName(%q) = true, want false", n)
		}
	}
}
