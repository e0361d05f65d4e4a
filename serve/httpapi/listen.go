package httpapi

import (
	"crypto/subtle"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Listening safely: what every prose command that listens (serve, mcp
// --http) shares.
//
// Decided: whether a server is reachable from other machines is read from
// the address it bound, not from the name it was given: "localhost" may
// resolve to any address (an /etc/hosts entry, a resolver), so
// ListenLoopback listens first and then looks at the listener's address.
// A bearer token's scheme is matched without regard to case (RFC 9110
// 11.1: "Bearer", "bearer" and "BEARER" are one scheme); the token itself
// exactly, in constant time. A request's body must arrive within a
// deadline of its own (BodyDeadline): a client that sends its headers and
// then drips its body cannot hold a connection for ever.

// Timeouts of the servers prose runs.
const (
	// HeaderTimeout bounds the reading of a request's headers.
	HeaderTimeout = 10 * time.Second
	// BodyTimeout bounds the reading of a request's body (BodyDeadline).
	BodyTimeout = 60 * time.Second
	// IdleTimeout closes a kept-alive connection with no request.
	IdleTimeout = 2 * time.Minute
)

// Server is an http.Server for h with prose's timeouts: headers within
// HeaderTimeout, each body within BodyTimeout (BodyDeadline; not
// http.Server.ReadTimeout, which would also end a long response: a
// stream of events, a wait for a run), idle connections closed after
// IdleTimeout.
func Server(h http.Handler) *http.Server {
	return &http.Server{Handler: BodyDeadline(BodyTimeout, h), ReadHeaderTimeout: HeaderTimeout, IdleTimeout: IdleTimeout}
}

// ListenLoopback listens on addr and reports whether the address it bound
// is a loopback address (what "only this machine" means). A host name is
// resolved by the listen itself; an empty host (every interface) is not
// loopback.
func ListenLoopback(addr string) (net.Listener, bool, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, false, err
	}
	return ln, BoundLoopback(ln.Addr()), nil
}

// BoundLoopback reports whether a bound address is a loopback one.
func BoundLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP != nil && tcp.IP.IsLoopback()
}

// BearerOK reports whether an Authorization header value carries token
// under the Bearer scheme, its name in any case.
func BearerOK(header, token string) bool {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(cred)), []byte(token)) == 1
}

// BodyDeadline gives each request d to deliver its body: the
// connection's read deadline is set when the handler starts and cleared
// once the body has been read to its end (or closed), so a long response
// is not cut by it.
func BodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(d)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody clears the read deadline once the body is read or closed.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	once sync.Once
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.clear()
	}
	return n, err
}

func (b *deadlineBody) Close() error {
	b.clear()
	return b.ReadCloser.Close()
}

func (b *deadlineBody) clear() {
	b.once.Do(func() { b.rc.SetReadDeadline(time.Time{}) })
}
