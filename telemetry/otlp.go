package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The OTLP/HTTP exporter.
//
// Decided: prose sends spans with an exporter of its own rather than the
// OpenTelemetry Go exporter (otlptracehttp). That one links gRPC, the
// gRPC gateway and the protobuf runtime with its generated OTLP types,
// whose package initialisation every prose command paid at start (about a
// millisecond and five megabytes), for the few runs that export. This one
// writes the same ExportTraceServiceRequest (OTLP 1.x, binary protobuf,
// POST to /v1/traces), encoded here, and reads the same environment
// variables of the OpenTelemetry specification, the traces-specific ones
// first: OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, _TIMEOUT
// (milliseconds, default 10 s), _COMPRESSION (gzip or none),
// _CERTIFICATE, _CLIENT_CERTIFICATE and _CLIENT_KEY. A request the
// receiver answers 429, 502, 503 or 504 is sent again, after its
// Retry-After or a growing pause, while the timeout allows; any other
// failure is the export's error (the SDK reports it; the run goes on).
// Export is http/protobuf: OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL may say
// http/protobuf or http/json (a receiver of OTLP/HTTP takes protobuf
// either way); grpc, or anything else, is refused when the exporter is
// made, since spans sent by HTTP to a gRPC receiver would each fail.

// otlpExporter is an sdktrace.SpanExporter sending to an OTLP/HTTP
// receiver.
type otlpExporter struct {
	url     string
	headers map[string]string
	timeout time.Duration
	gzip    bool
	client  *http.Client

	mu      sync.Mutex
	stopped bool
}

// otlpEnv reads the traces-specific variable NAME, else the general one.
func otlpEnv(getenv func(string) string, name string) string {
	if v := getenv("OTEL_EXPORTER_OTLP_TRACES_" + name); v != "" {
		return v
	}
	return getenv("OTEL_EXPORTER_OTLP_" + name)
}

// newOTLPExporter configures an exporter from getenv.
func newOTLPExporter(getenv func(string) string) (*otlpExporter, error) {
	e := &otlpExporter{timeout: 10 * time.Second, headers: map[string]string{}}
	if u := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); u != "" {
		e.url = u // the whole URL, as given
	} else if u := getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); u != "" {
		e.url = strings.TrimSuffix(u, "/") + "/v1/traces"
	} else {
		return nil, errors.New("no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	}
	pu, err := url.Parse(e.url)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return nil, fmt.Errorf("endpoint %q: want an http:// or https:// URL", e.url)
	}
	protoVar := "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	if getenv(protoVar) == "" {
		protoVar = "OTEL_EXPORTER_OTLP_PROTOCOL"
	}
	switch p := getenv(protoVar); p {
	case "", "http/protobuf", "http/json":
	case "grpc":
		return nil, errors.New(protoVar + " grpc: prose exports OTLP over HTTP only; set it to http/protobuf (or unset it) and point OTEL_EXPORTER_OTLP_ENDPOINT at the receiver's OTLP/HTTP port (a Collector's is 4318, its gRPC port 4317)")
	default:
		return nil, fmt.Errorf("%s %q: want http/protobuf (prose exports OTLP over HTTP)", protoVar, p)
	}
	if h := otlpEnv(getenv, "HEADERS"); h != "" {
		for _, kv := range strings.Split(h, ",") {
			k, v, ok := strings.Cut(kv, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_HEADERS: %q is not KEY=VALUE", kv)
			}
			if dv, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
				v = dv
			}
			e.headers[k] = strings.TrimSpace(v)
		}
	}
	if t := otlpEnv(getenv, "TIMEOUT"); t != "" {
		ms, err := strconv.ParseInt(t, 10, 64)
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT %q: want milliseconds", t)
		}
		e.timeout = time.Duration(ms) * time.Millisecond
	}
	switch c := otlpEnv(getenv, "COMPRESSION"); c {
	case "", "none":
	case "gzip":
		e.gzip = true
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_COMPRESSION %q: want gzip or none", c)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if ca := otlpEnv(getenv, "CERTIFICATE"); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE %s: no PEM certificate", ca)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	cert, key := otlpEnv(getenv, "CLIENT_CERTIFICATE"), otlpEnv(getenv, "CLIENT_KEY")
	if cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY: %w", err)
		}
		if tr.TLSClientConfig == nil {
			tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		tr.TLSClientConfig.Certificates = []tls.Certificate{pair}
	}
	e.client = &http.Client{Transport: tr}
	return e, nil
}

// ExportSpans sends spans in one request (sent again while the receiver
// asks for it and the timeout allows).
func (e *otlpExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	stopped := e.stopped
	e.mu.Unlock()
	if stopped || len(spans) == 0 {
		return nil
	}
	body := encodeExport(spans)
	if e.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(body)
		zw.Close()
		body = b.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	pause := 500 * time.Millisecond
	for {
		retry, wait, err := e.send(ctx, body)
		if !retry {
			return err
		}
		if wait <= 0 {
			wait, pause = pause, min(2*pause, 5*time.Second)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("OTLP export to %s: %w (last: %v)", e.url, ctx.Err(), err)
		case <-time.After(wait):
		}
	}
}

// send posts one request; retry says whether the receiver asked for it
// again, after wait when it said how long.
func (e *otlpExporter) send(ctx context.Context, body []byte) (retry bool, wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return false, 0, err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if e.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	for k, v := range e.headers {
		req.Header.Set(k, v)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return false, 0, fmt.Errorf("OTLP export to %s: %w", e.url, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return false, 0, nil
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusBadGateway,
		resp.StatusCode == http.StatusServiceUnavailable, resp.StatusCode == http.StatusGatewayTimeout:
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		}
		return true, wait, fmt.Errorf("OTLP export to %s: %s", e.url, resp.Status)
	}
	return false, 0, fmt.Errorf("OTLP export to %s: %s", e.url, resp.Status)
}

// Shutdown stops exporting: later exports send nothing.
func (e *otlpExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	e.stopped = true
	e.mu.Unlock()
	e.client.CloseIdleConnections()
	return nil
}

// encodeExport is the ExportTraceServiceRequest of spans: one
// ResourceSpans a resource, one ScopeSpans a scope of it, in the order
// the spans came.
func encodeExport(spans []sdktrace.ReadOnlySpan) []byte {
	type scoped struct {
		scope instrumentation.Scope
		spans []byte
	}
	type resourced struct {
		span   sdktrace.ReadOnlySpan // the first of the resource
		scopes []*scoped
	}
	var order []*resourced
	byRes := map[attribute.Distinct]*resourced{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		k := s.Resource().Equivalent()
		r := byRes[k]
		if r == nil {
			r = &resourced{span: s}
			byRes[k] = r
			order = append(order, r)
		}
		var sc *scoped
		for _, x := range r.scopes {
			if x.scope == s.InstrumentationScope() {
				sc = x
				break
			}
		}
		if sc == nil {
			sc = &scoped{scope: s.InstrumentationScope()}
			r.scopes = append(r.scopes, sc)
		}
		sc.spans = appendMessage(sc.spans, 2, encodeSpan(s))
	}
	var out []byte
	for _, r := range order {
		var rs []byte
		var res []byte
		for _, kv := range r.span.Resource().Attributes() {
			res = appendMessage(res, 1, encodeKeyValue(kv))
		}
		rs = appendMessage(rs, 1, res)
		for _, sc := range r.scopes {
			var b, scope []byte
			scope = appendString(scope, 1, sc.scope.Name)
			scope = appendString(scope, 2, sc.scope.Version)
			for _, kv := range sc.scope.Attributes.ToSlice() {
				scope = appendMessage(scope, 3, encodeKeyValue(kv))
			}
			b = appendMessage(b, 1, scope)
			b = append(b, sc.spans...)
			b = appendString(b, 3, sc.scope.SchemaURL)
			rs = appendMessage(rs, 2, b)
		}
		rs = appendString(rs, 3, r.span.Resource().SchemaURL())
		out = appendMessage(out, 1, rs)
	}
	return out
}

// encodeSpan is the Span message of s.
func encodeSpan(s sdktrace.ReadOnlySpan) []byte {
	var b []byte
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = appendBytes(b, 1, tid[:])
	b = appendBytes(b, 2, sid[:])
	b = appendString(b, 3, sc.TraceState().String())
	if p := s.Parent().SpanID(); p.IsValid() {
		b = appendBytes(b, 4, p[:])
	}
	b = appendString(b, 5, s.Name())
	b = appendVarint(b, 6, uint64(s.SpanKind()))
	b = appendFixed64(b, 7, unixNano(s.StartTime()))
	b = appendFixed64(b, 8, unixNano(s.EndTime()))
	for _, kv := range s.Attributes() {
		b = appendMessage(b, 9, encodeKeyValue(kv))
	}
	b = appendVarint(b, 10, clampUint32(s.DroppedAttributes()))
	for _, ev := range s.Events() {
		var e []byte
		e = appendFixed64(e, 1, unixNano(ev.Time))
		e = appendString(e, 2, ev.Name)
		for _, kv := range ev.Attributes {
			e = appendMessage(e, 3, encodeKeyValue(kv))
		}
		e = appendVarint(e, 4, clampUint32(ev.DroppedAttributeCount))
		b = appendMessage(b, 11, e)
	}
	b = appendVarint(b, 12, clampUint32(s.DroppedEvents()))
	for _, l := range s.Links() {
		var e []byte
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		e = appendBytes(e, 1, ltid[:])
		e = appendBytes(e, 2, lsid[:])
		e = appendString(e, 3, l.SpanContext.TraceState().String())
		for _, kv := range l.Attributes {
			e = appendMessage(e, 4, encodeKeyValue(kv))
		}
		e = appendVarint(e, 5, clampUint32(l.DroppedAttributeCount))
		e = appendFixed32(e, 6, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		b = appendMessage(b, 13, e)
	}
	b = appendVarint(b, 14, clampUint32(s.DroppedLinks()))
	var st []byte
	st = appendString(st, 2, s.Status().Description)
	switch s.Status().Code {
	case codes.Ok:
		st = appendVarint(st, 3, 1) // STATUS_CODE_OK
	case codes.Error:
		st = appendVarint(st, 3, 2) // STATUS_CODE_ERROR
	}
	b = appendMessage(b, 15, st)
	b = appendFixed32(b, 16, spanFlags(sc.TraceFlags(), s.Parent()))
	return b
}

// spanFlags are OTLP's span flags: the W3C trace flags, and whether the
// parent is remote (known: bit 8; remote: bit 9).
func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint64 {
	f := uint64(tf) | 0x100
	if parent.IsRemote() {
		f |= 0x200
	}
	return f
}

// encodeKeyValue is the KeyValue message of kv.
func encodeKeyValue(kv attribute.KeyValue) []byte {
	var b []byte
	b = appendString(b, 1, string(kv.Key))
	return appendMessage(b, 2, encodeValue(kv.Value))
}

// encodeValue is the AnyValue message of v.
func encodeValue(v attribute.Value) []byte {
	var b []byte
	array := func(n int, each func(i int) []byte) []byte {
		var arr []byte
		for i := range n {
			arr = appendMessage(arr, 1, each(i))
		}
		return appendMessage(b, 5, arr)
	}
	switch v.Type() {
	case attribute.BOOL:
		x := uint64(0)
		if v.AsBool() {
			x = 1
		}
		b = appendTag(b, 2, wireVarint)
		b = binary.AppendUvarint(b, x)
	case attribute.INT64:
		b = appendTag(b, 3, wireVarint)
		b = binary.AppendUvarint(b, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		b = appendTag(b, 4, wireFixed64)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.AsFloat64()))
	case attribute.STRING:
		b = appendTag(b, 1, wireBytes)
		b = append(appendLen(b, len(v.AsString())), v.AsString()...)
	case attribute.BOOLSLICE:
		xs := v.AsBoolSlice()
		b = array(len(xs), func(i int) []byte { return encodeValue(attribute.BoolValue(xs[i])) })
	case attribute.INT64SLICE:
		xs := v.AsInt64Slice()
		b = array(len(xs), func(i int) []byte { return encodeValue(attribute.Int64Value(xs[i])) })
	case attribute.FLOAT64SLICE:
		xs := v.AsFloat64Slice()
		b = array(len(xs), func(i int) []byte { return encodeValue(attribute.Float64Value(xs[i])) })
	case attribute.STRINGSLICE:
		xs := v.AsStringSlice()
		b = array(len(xs), func(i int) []byte { return encodeValue(attribute.StringValue(xs[i])) })
	default:
		b = appendTag(b, 1, wireBytes)
		b = append(appendLen(b, len(v.String())), v.String()...)
	}
	return b
}

func unixNano(t time.Time) uint64 { return uint64(max(0, t.UnixNano())) }

func clampUint32(n int) uint64 { return min(uint64(max(n, 0)), math.MaxUint32) }

// The protobuf wire format, written here: the protobuf module's encoder
// (protowire) links an initialisation that hashes prose's own executable
// at every start.

type wireNumber uint64

type wireType uint64

const (
	wireVarint  wireType = 0
	wireFixed64 wireType = 1
	wireBytes   wireType = 2
	wireFixed32 wireType = 5
)

func appendTag(b []byte, n wireNumber, t wireType) []byte {
	return binary.AppendUvarint(b, uint64(n)<<3|uint64(t))
}

func appendLen(b []byte, n int) []byte { return binary.AppendUvarint(b, uint64(n)) }

// The append helpers leave out a field holding its type's zero value, as
// proto3 encoders do.

func appendMessage(b []byte, num wireNumber, m []byte) []byte {
	b = appendTag(b, num, wireBytes)
	return append(appendLen(b, len(m)), m...)
}

func appendBytes(b []byte, num wireNumber, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	return appendMessage(b, num, v)
}

func appendString(b []byte, num wireNumber, s string) []byte {
	if s == "" {
		return b
	}
	b = appendTag(b, num, wireBytes)
	return append(appendLen(b, len(s)), s...)
}

func appendVarint(b []byte, num wireNumber, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, wireVarint)
	return binary.AppendUvarint(b, v)
}

func appendFixed64(b []byte, num wireNumber, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, wireFixed64)
	return binary.LittleEndian.AppendUint64(b, v)
}

func appendFixed32(b []byte, num wireNumber, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = appendTag(b, num, wireFixed32)
	return binary.LittleEndian.AppendUint32(b, uint32(v))
}
