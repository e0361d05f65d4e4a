package temporal

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"go.temporal.io/sdk/converter"
)

// The codec server: what operators read a run with.
//
// The payloads of a run are encrypted (codec.go), so the Temporal UI and
// CLI show ciphertext. A codec server, in Temporal's remote codec protocol
// (POST /encode and /decode with {"payloads": [...]}, the SDK's
// converter.NewPayloadCodecHTTPHandler), decrypts them for an operator who
// holds the key, and only for them:
//
//   - it reads the key file the workers use, and refuses to start
//     without one (it never makes a key, which could open nothing);
//   - every request carries the bearer token of its token file
//     (Authorization: Bearer TOKEN, the scheme in any case): the Temporal
//     CLI sends it with --codec-auth "Bearer TOKEN", the UI when told to
//     pass credentials; there is no codec server without a token;
//   - a browser reaches it only from the origin named (the Temporal UI's,
//     e.g. http://localhost:8233): that origin gets the CORS headers, and
//     its preflight (OPTIONS, which carries no token) is answered; other
//     origins get none, so their pages cannot read what it answers;
//   - a request body is at most MaxCodecBody bytes.

// MaxCodecBody bounds the body of one codec request.
const MaxCodecBody = 16 << 20

// CodecServerOptions configure NewCodecHandler.
type CodecServerOptions struct {
	// KeyFile is the payload key ("": KeyFile()); it must exist.
	KeyFile string
	// Token is the bearer token every request must carry; it may not be
	// empty.
	Token string
	// AllowOrigin is the one origin (scheme://host[:port]) whose pages
	// may call the server ("": none, for the CLI alone).
	AllowOrigin string
}

// NewCodecHandler is the codec server's handler: the remote codec
// protocol of the run's payload codec, behind the token and the origin
// of o.
func NewCodecHandler(o CodecServerOptions) (http.Handler, error) {
	if o.Token == "" {
		return nil, errors.New("the codec server needs a bearer token: it decrypts every run's payloads for whoever calls it")
	}
	if o.AllowOrigin != "" && (!strings.Contains(o.AllowOrigin, "://") || strings.HasSuffix(o.AllowOrigin, "/")) {
		return nil, fmt.Errorf("allowed origin %q: want scheme://host[:port], as a browser sends it (e.g. http://localhost:8233)", o.AllowOrigin)
	}
	file := o.KeyFile
	if file == "" {
		var err error
		if file, err = KeyFile(); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(file); err != nil {
		return nil, fmt.Errorf("no payload key at %s (%v): the codec server decrypts with the key the workers use; copy their key file there, or name it with %s", file, err, KeyFileEnv)
	}
	key, err := loadKey(file)
	if err != nil {
		return nil, err
	}
	c, err := newCodec(key, file)
	if err != nil {
		return nil, err
	}
	return &codecServer{o: o, next: converter.NewPayloadCodecHTTPHandler(c)}, nil
}

type codecServer struct {
	o    CodecServerOptions
	next http.Handler
}

func (s *codecServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	allowed := origin != "" && origin == s.o.AllowOrigin
	if allowed {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Add("Vary", "Origin")
	}
	if r.Method == http.MethodOptions {
		if !allowed {
			http.Error(w, "origin not allowed", http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Namespace")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if origin != "" && !allowed {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	if !bearerOK(r.Header.Get("Authorization"), s.o.Token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="prose codec"`)
		http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxCodecBody)
	s.next.ServeHTTP(w, r)
}

// bearerOK reports whether header is "Bearer TOKEN" with token (the
// scheme in any case, RFC 9110), compared in constant time.
func bearerOK(header, token string) bool {
	scheme, got, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}
