// Package redact removes known secrets from text bound for any output:
// the result on stdout, progress and errors on stderr, traces, journals.
//
// A secret is known when prose was given it: an API key in the
// environment (any variable whose name says key, token, secret or
// password), or credentials written in a URL (user, password, key-like
// query values). Each is also matched in the forms it travels in: percent
// encoded, and, for URL credentials, as the base64 "user:password" of a
// Basic Authorization header, since a server that echoes request headers
// puts that form into a reply. Secrets prose was never given (a password
// a program prints) are not known and not removed.
//
// Entry points: New (a Redactor over a list of secrets), EnvSecrets and
// URLSecrets (where the secrets come from), Redactor.String, and
// Redactor.Writer (an io.Writer that redacts whole lines on their way
// to another writer).
package redact

import (
	"encoding/base64"
	"io"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
)

// Mark replaces a secret.
const Mark = "[redacted]"

// minLen is the shortest secret replaced: shorter strings would match
// ordinary text.
const minLen = 4

// Redactor replaces known secrets by Mark. The zero value and nil know
// none. It is safe for concurrent use.
type Redactor struct {
	secrets []string // longest first
}

// New returns a Redactor for secrets and their percent-encoded forms.
// Empty strings and strings shorter than 4 bytes are ignored.
func New(secrets ...string) *Redactor {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if len(s) >= minLen && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range secrets {
		add(s)
		add(url.QueryEscape(s))
		add(url.PathEscape(s))
		add(url.UserPassword("u", s).String()[len("u:"):]) // as written in a URL's user information
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return &Redactor{secrets: out}
}

// String returns s with every known secret replaced by Mark.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Mark)
		}
	}
	return s
}

// Len is the number of strings r replaces (encoded forms included).
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return len(r.secrets)
}

// minEnvLen is the shortest environment value taken as a secret: a
// variable such as SKIP_TOKEN=true must not withhold every "true".
const minEnvLen = 8

// EnvSecrets returns the values, 8 bytes or longer, of the variables of
// environ (as os.Environ gives it; nil means this process's) whose names
// say they hold a secret (OPENAI_API_KEY, GITHUB_TOKEN, DB_PASSWORD, ...), and the
// credentials of those whose values are URLs (OPENAI_BASE_URL with a
// user and password).
func EnvSecrets(environ []string) []string {
	if environ == nil {
		environ = os.Environ()
	}
	var out []string
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || val == "" {
			continue
		}
		if SecretName(name) && len(val) >= minEnvLen {
			out = append(out, val)
		}
		if strings.Contains(val, "://") {
			out = append(out, URLSecrets(val)...)
		}
	}
	return out
}

// SecretName reports whether an environment variable's name says it
// holds a secret: a last word of KEY (after API, ACCESS, SECRET, PRIVATE,
// AUTH or as APIKEY), TOKEN, SECRET, PASSWORD, PASSWD, PASS or
// CREDENTIALS. MAX_TOKENS, TOKEN_LIMIT and KEYBOARD are not.
func SecretName(name string) bool {
	words := strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	switch last {
	case "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "CREDENTIALS", "APIKEY", "PAT":
		return true
	case "KEY":
		if len(words) < 2 {
			return false
		}
		switch words[len(words)-2] {
		case "API", "ACCESS", "SECRET", "PRIVATE", "AUTH", "CLIENT", "SIGNING", "ENCRYPTION", "MASTER", "LICENSE":
			return true
		}
	}
	return false
}

// URLSecrets returns the credentials written in a URL: the user name and
// password, the base64 "user:password" that Go's HTTP client sends as
// Basic auth for them, and the values of query parameters whose names
// say key, token, secret, sig, password or auth. The user information is
// read by hand, so a URL that does not parse gives it too.
func URLSecrets(raw string) []string {
	raw = strings.TrimSpace(raw)
	var out []string
	if user, pass, ok := userinfo(raw); ok {
		out = append(out, user, pass)
		if u, err := url.PathUnescape(user); err == nil {
			out = append(out, u)
			user = u
		}
		if p, err := url.PathUnescape(pass); err == nil {
			out = append(out, p)
			pass = p
		}
		out = append(out, base64.StdEncoding.EncodeToString([]byte(user+":"+pass)))
	}
	if u, err := url.Parse(raw); err == nil {
		for k, vs := range u.Query() {
			if secretParam(k) {
				out = append(out, vs...)
			}
		}
	}
	return out
}

func userinfo(raw string) (user, pass string, ok bool) {
	rest := raw
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return "", "", false
	}
	user, pass, _ = strings.Cut(rest[:at], ":")
	return user, pass, true
}

func secretParam(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"key", "token", "secret", "sig", "password", "auth"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// Writer returns an io.Writer that redacts what it passes on to w. It
// holds back an unfinished line (text after the last newline or carriage
// return) until the line ends or Flush is called, so a secret written in
// two pieces is still whole when it is matched.
func (r *Redactor) Writer(w io.Writer) *Writer {
	return &Writer{r: r, w: w}
}

// Writer is the io.Writer of Redactor.Writer.
type Writer struct {
	mu      sync.Mutex
	r       *Redactor
	w       io.Writer
	pending []byte
}

// Write implements io.Writer.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, p...)
	end := lastLineEnd(w.pending)
	if end < 0 {
		return len(p), nil
	}
	out := w.r.String(string(w.pending[:end+1]))
	w.pending = append(w.pending[:0], w.pending[end+1:]...)
	if _, err := io.WriteString(w.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held back.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	out := w.r.String(string(w.pending))
	w.pending = w.pending[:0]
	_, err := io.WriteString(w.w, out)
	return err
}

// Unwrap is the writer w writes to (to ask it whether it is a terminal).
func (w *Writer) Unwrap() io.Writer { return w.w }

func lastLineEnd(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' || b[i] == '\r' {
			return i
		}
	}
	return -1
}

// FlagURLSecrets returns the URL credentials (see URLSecrets) of the
// values that args give to the named flags, written --name=VALUE or
// --name VALUE: prose run --base-url http://user:pass@host/v1.
func FlagURLSecrets(args []string, names ...string) []string {
	var out []string
	for i, a := range args {
		for _, n := range names {
			switch {
			case strings.HasPrefix(a, "--"+n+"="):
				out = append(out, URLSecrets(a[len(n)+3:])...)
			case a == "--"+n && i+1 < len(args):
				out = append(out, URLSecrets(args[i+1])...)
			}
		}
	}
	return out
}
