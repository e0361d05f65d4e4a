package journal

import (
	"os"
	"regexp"
	"strings"
	"unicode"
)

// Redacted replaces a withheld secret in journal text.
const Redacted = "[redacted]"

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
// a secret: api_key, GITHUB_TOKEN, clientSecret, db_password, auth, ...
// The name is read as words (split at _ - . and lower-to-upper case
// changes), so max_tokens, token_limit and author are not secrets.
func IsSecretName(name string) bool {
	words := nameWords(name)
	for i, w := range words {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		switch {
		case w == "key" && i > 0 && keyQualifiers[words[i-1]]:
			return true
		case w == "auth" || w == "authorization":
			if !notSecretAfter[next] {
				return true
			}
		case secretWords[w] || hasSecretSuffix(w):
			if !notSecretAfter[next] {
				return true
			}
		}
	}
	return false
}

// secretWords are words that name a secret on their own.
var secretWords = map[string]bool{
	"secret": true, "secrets": true, "token": true, "password": true, "passwd": true,
	"pwd": true, "passphrase": true, "credential": true, "credentials": true,
	"creds": true, "apikey": true, "bearer": true, "cookie": true,
}

// keyQualifiers make "key" a secret: api_key, private_key, ...
var keyQualifiers = map[string]bool{
	"api": true, "private": true, "access": true, "secret": true, "signing": true,
	"encryption": true, "license": true, "master": true, "auth": true, "client": true,
}

// notSecretAfter are words that, after a secret word, make the name about
// the secret rather than the secret itself: token_limit, auth_url.
var notSecretAfter = map[string]bool{
	"limit": true, "limits": true, "count": true, "counts": true, "budget": true,
	"usage": true, "length": true, "len": true, "max": true, "min": true, "cap": true,
	"url": true, "uri": true, "endpoint": true, "method": true, "type": true,
	"mode": true, "kind": true, "scheme": true, "provider": true, "required": true,
	"enabled": true,
}

// hasSecretSuffix reports a compound word ending in a secret word:
// ghtoken, dbpassword, clientsecret.
func hasSecretSuffix(w string) bool {
	for _, suf := range []string{"token", "secret", "password", "passwd", "apikey", "passphrase"} {
		if strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}

// nameWords splits name into lower-case words at non-alphanumerics and at
// lower-to-upper case changes (apiKey: api, key).
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}

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
