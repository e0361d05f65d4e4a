package ui

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/proselang/prose/serve/httpapi"
)

// tokenCookie holds the token a browser was given with ?token=.
const tokenCookie = "prose_ui_token"

// csrfField is the form field that carries the CSRF token.
const csrfField = "csrf"

// guard checks every request: the token (or a loopback Host without
// one), and for a POST that it comes from the page itself.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		w.Header().Set("Referrer-Policy", "same-origin")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if s.o.Token == "" {
			if !loopbackHost(r.Host) {
				http.Error(w, "ui: refused: the Host "+r.Host+" is not a loopback name (without a token the page answers only 127.0.0.1, ::1 and localhost)", http.StatusForbidden)
				return
			}
		} else if !s.authorized(w, r) {
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if msg := s.crossSite(r); msg != "" {
				http.Error(w, "ui: refused: "+msg, http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// authorized checks the token: a bearer header or the cookie, or
// ?token= on a GET, which sets the cookie and redirects to the URL
// without it (so the token stays out of the history and of links).
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if httpapi.BearerOK(r.Header.Get("Authorization"), s.o.Token) {
		return true
	}
	if c, err := r.Cookie(tokenCookie); err == nil && same(c.Value, s.o.Token) {
		return true
	}
	q := r.URL.Query()
	if t := q.Get("token"); t != "" && same(t, s.o.Token) && r.Method == http.MethodGet {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.o.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return false
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="prose ui"`)
	http.Error(w, "ui: a token is required: open the page's URL with ?token=TOKEN once (the token in --token-file), or send Authorization: Bearer TOKEN", http.StatusUnauthorized)
	return false
}

// crossSite says why a state-changing request is refused as cross-site
// ("" when it is not).
func (s *Server) crossSite(r *http.Request) string {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return "a cross-site request (Sec-Fetch-Site: " + r.Header.Get("Sec-Fetch-Site") + ") changes nothing"
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			return "a request from another origin (" + o + ") changes nothing"
		}
	}
	if err := r.ParseForm(); err != nil {
		return "the form cannot be read: " + err.Error()
	}
	if !same(r.PostForm.Get(csrfField), s.csrf) {
		return "the form's CSRF token is missing or stale: load the page again and send it from there"
	}
	return ""
}

// same compares secrets in constant time.
func same(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// loopbackHost reports whether a Host header names this machine:
// localhost, or a loopback address, with or without a port.
func loopbackHost(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
