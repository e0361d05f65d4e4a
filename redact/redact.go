// Package redact is prose's one redactor: it removes secrets from text
// bound for any output: the result on stdout, progress and errors on
// stderr, traces, journals, and the errors and replies of models.
//
// A Redactor removes the secrets prose was given: an API key in the
// environment (any variable whose name says key, token, secret or
// password, see SecretName), credentials written in a URL (user,
// password, key-like query values), a model's key. Each is also matched
// in the forms it travels in: percent encoded, JSON escaped (a result is
// printed as JSON), and, for URL credentials, as the base64
// "user:password" of a Basic Authorization header, since a server that
// echoes request headers puts that form into a reply.
//
// A known secret shorter than 20 bytes (a password, a user name) is
// removed as a whole token only (not from inside a longer word: the
// password "pass" leaves "passed" alone); a longer one (an API key, a
// token) is removed wherever it stands, also inside a longer word, since
// no ordinary text holds it by chance and a server that echoes a key with
// a byte appended must not show the key. A URL's user name or password
// alone is removed only when it is 8 bytes or longer; the
// "user:password" pair is removed whatever its length.
//
// A Redactor made WithShapes also removes text shaped like a credential,
// whoever wrote it: well-known key formats (sk-..., ghp_..., AKIA...,
// JWTs, "Bearer ..."), the password of a URL's user information, and the
// value of a NAME=VALUE assignment whose NAME says secret. Journals and
// traces use it, as they are files that outlive the run and are shared;
// stdout, stderr and a model's replies do not, because what a program
// returns is its user's data and a service may rightly answer with a
// token (a password a program prints in no known form stays too).
//
// Entry points: New (a Redactor over a list of secrets), ForEnv (over an
// environment's secrets), Redactor.WithShapes, EnvSecrets, URLSecrets,
// InputSecrets and CommandSecrets (where the secrets come from), Redactor.String and Redactor.Text, Redactor.Value (a
// key=value pair: withheld whole when the key says secret), and
// Redactor.Writer (an io.Writer that redacts whole lines on their way to
// another writer).
package redact

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Mark replaces a secret.
const Mark = "[redacted]"

// minLen is the shortest secret replaced: shorter strings would match
// ordinary text.
const minLen = 4

// anywhereLen is the length from which a secret is replaced also inside a
// longer word (see the package doc).
const anywhereLen = 20

// Redactor replaces known secrets (and, made WithShapes, credential-shaped
// text) by Mark. The zero value and nil know none. It is safe for
// concurrent use.
type Redactor struct {
	secrets []string // longest first
	shapes  bool
}

// WithShapes returns a copy of r that also removes credential-shaped text.
func (r *Redactor) WithShapes() *Redactor {
	c := &Redactor{shapes: true}
	if r != nil {
		c.secrets = r.secrets
	}
	return c
}

// New returns a Redactor for secrets and their percent-encoded and JSON
// escaped forms. Empty strings and strings shorter than 4 bytes are
// ignored.
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
		if q, err := json.Marshal(s); err == nil {
			add(string(q[1 : len(q)-1])) // as written in a JSON string
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return &Redactor{secrets: out}
}

// ForEnv returns a Redactor for the secrets of environ (see EnvSecrets;
// nil means this process's environment) and the further secrets more.
func ForEnv(environ []string, more ...string) *Redactor {
	return New(append(EnvSecrets(environ), more...)...)
}

// String returns s with every known secret (and, WithShapes, every
// credential-shaped text) replaced by Mark.
func (r *Redactor) String(s string) string {
	out, _ := r.Text(s)
	return out
}

// Text is String that also says whether anything was replaced.
func (r *Redactor) Text(s string) (string, bool) {
	if r == nil {
		return s, false
	}
	out := s
	for _, sec := range r.secrets {
		if strings.Contains(out, sec) {
			out = replaceTokens(out, sec)
		}
	}
	if !r.shapes {
		return out, out != s
	}
	// Each pattern runs only where one of its matches could begin (a long
	// text costs a scan for its literal beginnings, not the regexps').
	out = replaceShapes(out)
	if strings.Contains(out, "://") {
		out = replaceURLPasswords(out)
	}
	if mayAssignSecret(out) {
		out = envAssign().ReplaceAllStringFunc(out, func(m string) string {
			name, _, _ := strings.Cut(m, "=")
			if SecretName(name) {
				return name + "=" + Mark
			}
			return m
		})
	}
	return out, out != s
}

// replaceShapes is secretValue().ReplaceAllString(s, Mark), the
// regexp run only where a match can begin. Each of secretValue's
// alternatives begins with a literal (sk-, gh?_, github_pat_, glpat-,
// xox?-, AKIA, AIza, bearer in any case, eyJ) and none looks behind it,
// so the leftmost match from a place is the anchored match at the first
// beginning after it that has one: the same matches, found without
// running the automaton over every byte of a text that has a beginning
// somewhere (a large base64 input has some).
func replaceShapes(s string) string {
	var b strings.Builder
	from := 0
	for _, i := range shapeBeginnings(s) {
		if i < from {
			continue
		}
		loc := secretValueAnchored().FindStringIndex(s[i:])
		if loc == nil {
			continue
		}
		b.WriteString(s[from:i])
		b.WriteString(Mark)
		from = i + loc[1]
	}
	if from == 0 {
		return s
	}
	b.WriteString(s[from:])
	return b.String()
}

// shapeBeginnings is where in s one of secretValue's literal beginnings
// is, in order: each found from the rarer byte it holds by
// strings.IndexByte (a vectorised scan), as the byte loop over every
// byte of a long text would cost more than all the rest.
func shapeBeginnings(s string) []int {
	var at []int
	each := func(c byte, f func(i int)) {
		for i := 0; i < len(s); i++ {
			j := strings.IndexByte(s[i:], c)
			if j < 0 {
				return
			}
			i += j
			f(i)
		}
	}
	before := func(i int, p string) bool { return i >= len(p) && s[i-len(p):i] == p }
	each('-', func(i int) {
		switch {
		case before(i, "sk"):
			at = append(at, i-2)
		case before(i, "glpat"):
			at = append(at, i-5)
		case i >= 4 && s[i-4:i-1] == "xox" && strings.IndexByte("abeprs", s[i-1]) >= 0:
			at = append(at, i-4)
		}
	})
	each('_', func(i int) {
		switch {
		case i >= 3 && s[i-3:i-1] == "gh" && strings.IndexByte("pousr", s[i-1]) >= 0:
			at = append(at, i-3)
		case before(i, "github_pat"):
			at = append(at, i-10)
		}
	})
	each('J', func(i int) {
		if before(i, "ey") {
			at = append(at, i-2)
		}
	})
	each('A', func(i int) {
		if strings.HasPrefix(s[i:], "AKIA") || strings.HasPrefix(s[i:], "AIza") {
			at = append(at, i)
		}
	})
	for _, c := range []byte{'b', 'B'} {
		each(c, func(i int) {
			if len(s)-i >= 6 && strings.EqualFold(s[i:i+6], "bearer") {
				at = append(at, i)
			}
		})
	}
	slices.Sort(at)
	return at
}

// replaceURLPasswords is urlPassword().ReplaceAllString(s,
// "${1}"+Mark+"@"), the regexp run only where a match can begin: a
// match holds "://" right after its scheme, and the scheme's characters
// are neither ':' nor '/', so a match through a "://" begins at the
// first letter of the run of scheme characters before it (not before
// where the search is): the leftmost start the regexp would try.
func replaceURLPasswords(s string) string {
	var b strings.Builder
	from, search := 0, 0
	for search < len(s) {
		k := strings.Index(s[search:], "://")
		if k < 0 {
			break
		}
		k += search
		run := k
		for run > search && isSchemeByte(s[run-1]) {
			run--
		}
		p := run
		for p < k && !isLetter(s[p]) {
			p++
		}
		if p == k {
			search = k + 1
			continue
		}
		m := urlPasswordAnchored().FindStringSubmatchIndex(s[p:])
		if m == nil {
			search = k + 1
			continue
		}
		b.WriteString(s[from:p])
		b.WriteString(s[p : p+m[3]])
		b.WriteString(Mark)
		b.WriteByte('@')
		from = p + m[1]
		search = from
	}
	if from == 0 {
		return s
	}
	b.WriteString(s[from:])
	return b.String()
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isSchemeByte(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}

// mayAssignSecret reports whether s holds an = whose name before it (the
// word characters up to it, what envAssign's name is) says secret: only
// then can envAssign's replacement change s.
func mayAssignSecret(s string) bool {
	for i := 0; i < len(s); i++ {
		j := strings.IndexByte(s[i:], '=')
		if j < 0 {
			return false
		}
		i += j
		k := i
		for k > 0 && isASCIIWord(s[k-1]) {
			k--
		}
		if k < i && SecretName(s[k:i]) {
			return true
		}
	}
	return false
}

func isASCIIWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// Value is the form of key=value that may be shown: Mark when the key
// says it holds a secret or when the value holds one (see Text) (a value part
// withheld would still tell too much), else value; withheld reports the
// first two cases.
func (r *Redactor) Value(key, value string) (shown string, withheld bool) {
	if SecretName(key) {
		return Mark, true
	}
	if _, changed := r.Text(value); changed {
		return Mark, true
	}
	return value, false
}

// replaceTokens replaces the occurrences of sec in s that are whole
// tokens: where sec starts (ends) with a letter or digit, the byte before
// (after) it is none, so the secret "pass" is removed from "user:pass@"
// but not from "passed". A secret of anywhereLen bytes or more is replaced
// wherever it occurs.
func replaceTokens(s, sec string) string {
	if len(sec) >= anywhereLen {
		return strings.ReplaceAll(s, sec, Mark)
	}
	var b strings.Builder
	wordStart, wordEnd := isWordByte(sec[0]), isWordByte(sec[len(sec)-1])
	from := 0
	for i := 0; i <= len(s)-len(sec); {
		j := strings.Index(s[i:], sec)
		if j < 0 {
			break
		}
		at, end := i+j, i+j+len(sec)
		if wordStart && at > 0 && isWordByte(s[at-1]) || wordEnd && end < len(s) && isWordByte(s[end]) {
			i = at + 1
			continue
		}
		b.WriteString(s[from:at])
		b.WriteString(Mark)
		from, i = end, end
	}
	if from == 0 {
		return s
	}
	b.WriteString(s[from:])
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// secretValueExpr matches well-known credential formats anywhere in a
// text.
const secretValueExpr = `sk-[A-Za-z0-9_\-]{16,}` +
	`|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}` +
	`|glpat-[A-Za-z0-9_\-]{20,}|xox[abeprs]-[A-Za-z0-9\-]{10,}` +
	`|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35}` +
	`|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{8,}` +
	`|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`

// secretValue is secretValueExpr, and secretValueAnchored the same at
// the start of a text (replaceShapes).
var (
	secretValue         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(secretValueExpr) })
	secretValueAnchored = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:` + secretValueExpr + `)`) })
)

// urlPasswordExpr matches the password of a URL's user info
// (https://user:PASSWORD@host), the part before it its first group.
const urlPasswordExpr = `([A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]+:)[^/\s@]+@`

// urlPassword is urlPasswordExpr, and urlPasswordAnchored the same at the
// start of a text (replaceURLPasswords).
var (
	urlPassword         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(urlPasswordExpr) })
	urlPasswordAnchored = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:` + urlPasswordExpr + `)`) })
)

// envAssign matches NAME=VALUE (an environment assignment in a command):
// a value quoted, quoted with escaped quotes (as inside a JSON string), or
// up to a space, quote or backslash, so that the assignment inside a JSON
// string ends with the string and the JSON stays JSON.
var envAssign = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\\"[^"\\]*\\"|[^\s"'\\]+)`)
})

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
		if EnvSecret(name, val) {
			out = append(out, val)
		}
		if strings.Contains(val, "://") {
			out = append(out, URLSecrets(val)...)
		}
	}
	return out
}

// EnvSecret reports whether the environment variable name=value holds a
// secret: its name says so (SecretName, which leaves out the shell's PWD)
// and its value is 8 bytes or longer.
func EnvSecret(name, value string) bool {
	return len(value) >= minEnvLen && SecretName(name)
}

// SecretName reports whether a key or variable name says it holds a
// secret: api_key, OPENAI_API_KEY, apiKey, GITHUB_TOKEN, clientSecret,
// db_password, DB_PASS, GH_PAT, auth, ... The name is read as words (split
// at _ - . and at lower-to-upper case changes): a word that names a secret
// on its own (token, secret, password, credentials, ...), or ends in one
// (ghtoken, dbpassword), or KEY after a qualifier (API, ACCESS, PRIVATE,
// ...), or a last word PASS or PAT. A secret word followed by one that
// makes the name about the secret (token_limit, auth_url) does not count,
// so max_tokens, token_limit, author and KEYBOARD are not secrets.
func SecretName(name string) bool {
	if shellNames[name] {
		return false
	}
	words := nameWords(name)
	for i, w := range words {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		switch {
		case w == "key" && i > 0 && keyQualifiers[words[i-1]]:
			return true
		case (w == "pass" || w == "pat") && i == len(words)-1:
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

// shellNames are variables the shell sets whose names read like secrets
// but are not: PWD is the working directory ("pwd" alone names a password
// in DB_PWD), and redacting it would hide every path under the directory
// prose runs in.
var shellNames = map[string]bool{"PWD": true}

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

// URLSecrets returns the credentials written in a URL: the user name and
// password, the base64 "user:password" that Go's HTTP client sends as
// Basic auth for them, and the values of query parameters whose names
// say key, token, secret, sig, password or auth. The user information is
// read by hand, so a URL that does not parse gives it too.
func URLSecrets(raw string) []string {
	raw = strings.TrimSpace(raw)
	var out []string
	if user, pass, ok := userinfo(raw); ok {
		// A user name or password is withheld alone only when it is long
		// enough to be a secret (minEnvLen, as for the environment): a
		// "user:pass" of four letters each would otherwise take every
		// "user" and "pass" out of ordinary text. The pair as written in
		// the URL, and as Basic auth sends it, is withheld whatever its
		// length.
		long := func(v string) {
			if len(v) >= minEnvLen {
				out = append(out, v)
			}
		}
		long(user)
		long(pass)
		if pass != "" {
			out = append(out, user+":"+pass)
		}
		if u, err := url.PathUnescape(user); err == nil {
			long(u)
			user = u
		}
		if p, err := url.PathUnescape(pass); err == nil {
			long(p)
			pass = p
		}
		if pass != "" {
			out = append(out, user+":"+pass)
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

// InputSecrets returns NAME=VALUE for each run input whose name says it
// holds a secret (SecretName: api_token, db_password): each of inputs,
// written NAME=VALUE as --input takes them, and, at any depth, the string
// values of secret-named keys of the JSON object inputJSON
// (--input-json). Decided: such a value is as secret as an environment
// variable of that name, so the journal withholds it from the results it
// records (as a pseudo-variable of its vault), and stdout, stderr and
// traces redact it (Values gives the values for New).
func InputSecrets(inputs []string, inputJSON string) []string {
	var out []string
	for _, kv := range inputs {
		if name, val, ok := strings.Cut(kv, "="); ok && val != "" && SecretName(name) {
			out = append(out, name+"="+val)
		}
	}
	if strings.TrimSpace(inputJSON) == "" {
		return out
	}
	var v any
	if json.Unmarshal([]byte(inputJSON), &v) != nil {
		return out
	}
	var walk func(name string, v any)
	walk = func(name string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(k, e)
			}
		case []any:
			for _, e := range v {
				walk(name, e)
			}
		case string:
			if v != "" && SecretName(name) {
				out = append(out, name+"="+v)
			}
		}
	}
	walk("", v)
	sort.Strings(out)
	return out
}

// Values returns the VALUE of each NAME=VALUE of kvs.
func Values(kvs []string) []string {
	out := make([]string, 0, len(kvs))
	for _, kv := range kvs {
		_, v, _ := strings.Cut(kv, "=")
		out = append(out, v)
	}
	return out
}

// FlagInputSecrets is InputSecrets of the --input and --input-json values
// of a command line (--name=VALUE or --name VALUE).
func FlagInputSecrets(args []string) []string {
	var inputs []string
	var inputJSON string
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "--input="):
			inputs = append(inputs, a[len("--input="):])
		case a == "--input" && i+1 < len(args):
			inputs = append(inputs, args[i+1])
		case strings.HasPrefix(a, "--input-json="):
			inputJSON = a[len("--input-json="):]
		case a == "--input-json" && i+1 < len(args):
			inputJSON = args[i+1]
		}
	}
	return InputSecrets(inputs, inputJSON)
}

// CommandSecrets returns NAME=VALUE for each assignment written in a
// command (an exec: binding: `env API_TOKEN=tok-... svc.sh`,
// `DB_PASSWORD='...' ./run`) whose NAME and VALUE make it a secret as an
// environment variable would be (EnvSecret: the name says secret, the
// value is 8 bytes or longer), the value's quotes removed. Decided: such
// a value is as secret as the variable it sets, so the journal withholds
// it from the results it records and stdout, stderr and traces redact it,
// as InputSecrets' values are. A binding's "exec:" prefix is skipped.
func CommandSecrets(command string) []string {
	var out []string
	command = strings.TrimPrefix(strings.TrimSpace(command), "exec:")
	for _, m := range envAssign().FindAllStringSubmatch(command, -1) {
		name, val := m[1], unquote(m[2])
		if EnvSecret(name, val) {
			out = append(out, name+"="+val)
		}
	}
	return out
}

// unquote removes the quotes of a value envAssign matched.
func unquote(v string) string {
	switch {
	case len(v) >= 4 && strings.HasPrefix(v, `\"`) && strings.HasSuffix(v, `\"`):
		return v[2 : len(v)-2]
	case len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0]:
		return v[1 : len(v)-1]
	}
	return v
}

// FlagSlotSecrets is CommandSecrets of the bindings of the --slot values
// of a command line (--slot=NAME=BINDING or --slot NAME=BINDING).
func FlagSlotSecrets(args []string) []string {
	var out []string
	binding := func(slot string) []string {
		_, b, _ := strings.Cut(slot, "=")
		return CommandSecrets(b)
	}
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "--slot="):
			out = append(out, binding(a[len("--slot="):])...)
		case a == "--slot" && i+1 < len(args):
			out = append(out, binding(args[i+1])...)
		}
	}
	return out
}
