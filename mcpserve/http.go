package mcpserve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// DropCancelled wraps a streamable HTTP handler (mcp.NewStreamableHTTPHandler)
// so that a request the client cancelled (notifications/cancelled) gets no
// response, as over Stdio: the SDK cancels the handler's context, but
// writes what the handler then returns on the request's stream.
//
// It reads each POST's JSON-RPC messages before passing them on: the
// requests it carries are tracked, by session (Mcp-Session-Id) and id,
// until that POST is answered; a cancellation marks its request. On the
// request's server-sent event stream, the event carrying the response to
// a marked request is left out, and the stream ends as it would have.
// A response sent before the cancellation arrived is sent (the protocol
// allows for that race). A POST answered as one application/json body
// (the handler's JSONResponse option) is passed on as it is: prose's
// handler answers with event streams.
func DropCancelled(h http.Handler) http.Handler {
	return &cancelFilter{next: h, live: map[liveKey]*liveRequest{}}
}

// maxInspected is the largest POST body DropCancelled reads: the SDK
// refuses larger ones (DefaultMaxRequestBodyBytes) whatever it is given.
const maxInspected = 4 << 20

type cancelFilter struct {
	next http.Handler
	mu   sync.Mutex
	live map[liveKey]*liveRequest // requests whose POST is not yet answered
}

type liveKey struct {
	session string
	id      jsonrpc.ID
}

type liveRequest struct{ cancelled bool }

// rpcMessage is what DropCancelled reads of a JSON-RPC message.
type rpcMessage struct {
	ID     any             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// messages reads a POST body: one message or a batch; nil when it is
// neither (the SDK answers that).
func messages(body []byte) []rpcMessage {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var batch []rpcMessage
		if json.Unmarshal(body, &batch) != nil {
			return nil
		}
		return batch
	}
	var m rpcMessage
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	return []rpcMessage{m}
}

func (f *cancelFilter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Body == nil {
		f.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxInspected+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > maxInspected {
		f.next.ServeHTTP(w, r)
		return
	}
	session := r.Header.Get("Mcp-Session-Id")
	var mine map[jsonrpc.ID]*liveRequest
	f.mu.Lock()
	for _, m := range messages(body) {
		switch {
		case m.Method != "" && m.ID != nil:
			id, err := jsonrpc.MakeID(m.ID)
			if err != nil {
				continue
			}
			if mine == nil {
				mine = map[jsonrpc.ID]*liveRequest{}
			}
			mine[id] = &liveRequest{}
			f.live[liveKey{session, id}] = mine[id]
		case m.Method == "notifications/cancelled":
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(m.Params, &p) != nil {
				continue
			}
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && f.live[liveKey{session, id}] != nil {
				f.live[liveKey{session, id}].cancelled = true
			}
		}
	}
	f.mu.Unlock()
	if mine == nil {
		f.next.ServeHTTP(w, r)
		return
	}
	fw := &filterWriter{ResponseWriter: w, f: f, mine: mine}
	defer func() {
		fw.finish()
		f.mu.Lock()
		for id, lr := range mine {
			if f.live[liveKey{session, id}] == lr {
				delete(f.live, liveKey{session, id})
			}
		}
		f.mu.Unlock()
	}()
	f.next.ServeHTTP(fw, r)
}

// filterWriter is the response of a POST that carries requests: on an
// event stream, it passes each complete event on but the responses to
// requests cancelled meanwhile.
type filterWriter struct {
	http.ResponseWriter
	f    *cancelFilter
	mine map[jsonrpc.ID]*liveRequest
	buf  []byte // the part of an event not yet complete
}

func (w *filterWriter) stream() bool {
	return strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream")
}

// Write implements http.ResponseWriter.
func (w *filterWriter) Write(p []byte) (int, error) {
	if !w.stream() {
		return w.ResponseWriter.Write(p)
	}
	w.buf = append(w.buf, p...)
	for {
		end := bytes.Index(w.buf, []byte("\n\n"))
		if end < 0 {
			return len(p), nil
		}
		event := w.buf[:end+2]
		if !w.dropped(event) {
			if _, err := w.ResponseWriter.Write(event); err != nil {
				w.buf = w.buf[end+2:]
				return len(p), err
			}
		}
		w.buf = w.buf[end+2:]
	}
}

// dropped reports whether event is the response to a cancelled request.
func (w *filterWriter) dropped(event []byte) bool {
	var data []string
	for _, line := range strings.Split(string(event), "\n") {
		if rest, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(rest, " "))
		}
	}
	var m rpcMessage
	if len(data) == 0 || json.Unmarshal([]byte(strings.Join(data, "\n")), &m) != nil ||
		m.Method != "" || m.ID == nil || (m.Result == nil && m.Error == nil) {
		return false
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return false
	}
	lr := w.mine[id]
	if lr == nil {
		return false
	}
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	return lr.cancelled
}

// finish passes on what is left of an incomplete event.
func (w *filterWriter) finish() {
	if len(w.buf) > 0 {
		_, _ = w.ResponseWriter.Write(w.buf)
		w.buf = nil
	}
}

// Flush implements http.Flusher.
func (w *filterWriter) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *filterWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
