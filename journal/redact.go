package journal

import (
	"os"
	"regexp"
	"strings"
)

// Redacted replaces a withheld secret in journal text.
const Redacted = "[redacted]"

// secretName matches names of things that hold secrets: api_key, TOKEN,
// client_secret, PASSWORD, ...
var secretName = regexp.MustCompile(`(?i)(api[_-]?key|apikey|secret|token|passw(or)?d|passphrase|credential|private[_-]?key|access[_-]?key|auth)`)

// secretValue matches well-known credential formats anywhere in a text.
var secretValue = regexp.MustCompile(`sk-[A-Za-z0-9_\-]{16,}` +
	`|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}` +
	`|glpat-[A-Za-z0-9_\-]{20,}|xox[abeprs]-[A-Za-z0-9\-]{10,}` +
	`|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35}` +
	`|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{8,}` +
	`|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`)

// urlPassword matches the password of a URL's user info
// (https://user:PASSWORD@host).
var urlPassword = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]+:)[^/\s@]+@`)

// envAssign matches NAME=VALUE (an environment assignment in a command).
var envAssign = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S+)`)

// IsSecretName reports whether a key or variable name looks like it holds
// a secret.
func IsSecretName(name string) bool { return secretName.MatchString(name) }

// Redactor strips secrets from text before it is journaled: known
// credential formats, passwords in URLs, the values of NAME=VALUE
// assignments whose NAME looks secret, and the values of secret-looking environment variables of this
// process wherever they appear.
type Redactor struct {
	envSecrets []string
}

// NewRedactor returns a Redactor that knows the secret-looking variables
// of env (as os.Environ returns it; nil means the process environment).
func NewRedactor(env []string) *Redactor {
	if env == nil {
		env = os.Environ()
	}
	r := &Redactor{}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if ok && len(val) >= 8 && IsSecretName(name) {
			r.envSecrets = append(r.envSecrets, val)
		}
	}
	return r
}

// Text returns s with secrets replaced by Redacted, and whether anything
// was replaced.
func (r *Redactor) Text(s string) (string, bool) {
	out := secretValue.ReplaceAllString(s, Redacted)
	out = urlPassword.ReplaceAllString(out, "${1}"+Redacted+"@")
	out = envAssign.ReplaceAllStringFunc(out, func(m string) string {
		name, _, _ := strings.Cut(m, "=")
		if IsSecretName(name) {
			return name + "=" + Redacted
		}
		return m
	})
	for _, v := range r.envSecrets {
		out = strings.ReplaceAll(out, v, Redacted)
	}
	return out, out != s
}

// KV returns the journaled form of key=value: the whole value is withheld
// when the key looks secret, else only the secrets inside it.
func (r *Redactor) KV(key, value string) KV {
	if IsSecretName(key) {
		return KV{Key: key, Value: Redacted, Redacted: true}
	}
	v, red := r.Text(value)
	if red {
		return KV{Key: key, Value: Redacted, Redacted: true}
	}
	return KV{Key: key, Value: v}
}
