package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP endpoint that keeps each request's body
// (decompressed) and headers, and answers with the statuses given, then
// 200.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   [][]byte
	headers  []http.Header
	statuses []int
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	r := &receiver{statuses: statuses}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				t.Errorf("gzip: %v", err)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		r.mu.Lock()
		r.bodies = append(r.bodies, b)
		r.headers = append(r.headers, req.Header.Clone())
		status := http.StatusOK
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		r.mu.Unlock()
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "0")
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

// recordedSpans are spans of every kind of field the exporter writes:
// attributes of each type, events, links, statuses, kinds, a remote
// parent, two scopes.
func recordedSpans(t *testing.T) []sdktrace.ReadOnlySpan {
	rec := tracetest.NewSpanRecorder()
	res := resource.NewWithAttributes("https://example.test/schema", attribute.String("service.name", "prose"), attribute.Int("n", 3))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(res))
	ctx := context.Background()
	tr := tp.Tracer("prose", trace.WithInstrumentationVersion("1.2.3"))
	other := tp.Tracer("other")
	remote := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled, Remote: true,
	})
	ctx1, root := tr.Start(trace.ContextWithRemoteSpanContext(ctx, remote), "run", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(
			attribute.Bool("b", true), attribute.Bool("f", false), attribute.Int64("i", -7), attribute.Float64("x", 2.5),
			attribute.String("s", "text"), attribute.String("empty", ""),
			attribute.BoolSlice("bs", []bool{true, false}), attribute.Int64Slice("is", []int64{1, -2}),
			attribute.Float64Slice("xs", []float64{0.5}), attribute.StringSlice("ss", []string{"a", ""})))
	root.AddEvent("started", trace.WithAttributes(attribute.String("k", "v")))
	_, child := tr.Start(ctx1, "call", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithLinks(trace.Link{SpanContext: remote, Attributes: []attribute.KeyValue{attribute.String("why", "cause")}}))
	child.SetStatus(codes.Error, "it failed")
	child.End()
	_, o := other.Start(ctx1, "judge")
	o.SetStatus(codes.Ok, "")
	o.End()
	root.End()
	return rec.Ended()
}

// The exporter sends what OpenTelemetry's own OTLP/HTTP exporter sends for
// the same spans: the same ExportTraceServiceRequest, field for field.
func TestOTLPExportMatchesOpenTelemetryExporter(t *testing.T) {
	spans := recordedSpans(t)
	ctx := context.Background()

	theirs := newReceiver(t)
	official, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(theirs.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	if err := official.ExportSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	official.Shutdown(ctx)

	ours := newReceiver(t)
	e, err := newOTLPExporter(mapEnv{"OTEL_EXPORTER_OTLP_ENDPOINT": ours.URL + "/"}.get)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.ExportSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}

	var want, got coltracepb.ExportTraceServiceRequest
	if len(theirs.bodies) != 1 || len(ours.bodies) != 1 {
		t.Fatalf("%d and %d requests, want one each", len(theirs.bodies), len(ours.bodies))
	}
	if err := proto.Unmarshal(theirs.bodies[0], &want); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(ours.bodies[0], &got); err != nil {
		t.Fatalf("our request does not decode: %v", err)
	}
	if n := len(want.ResourceSpans[0].ScopeSpans); n != 2 {
		t.Fatalf("the official request has %d scopes, want 2", n)
	}
	if !proto.Equal(&want, &got) {
		t.Errorf("requests differ:\nofficial %v\nours     %v", &want, &got)
	}
	if ct := ours.headers[0].Get("Content-Type"); ct != "application/x-protobuf" {
		t.Errorf("Content-Type %q", ct)
	}
}

type mapEnv map[string]string

func (m mapEnv) get(k string) string { return m[k] }

// The environment's settings: the traces endpoint as given, headers
// (URL-decoded), gzip; a 503 is sent again, a 400 is an error.
func TestOTLPExporterSettings(t *testing.T) {
	spans := recordedSpans(t)
	ctx := context.Background()
	r := newReceiver(t, http.StatusServiceUnavailable)
	e, err := newOTLPExporter(mapEnv{
		"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://127.0.0.1:1",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": r.URL + "/custom/path",
		"OTEL_EXPORTER_OTLP_HEADERS":         "authorization=Bearer%20tok, x-team = a",
		"OTEL_EXPORTER_OTLP_COMPRESSION":     "gzip",
	}.get)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.ExportSpans(ctx, spans); err != nil {
		t.Fatal(err)
	}
	if len(r.bodies) != 2 || !bytes.Equal(r.bodies[0], r.bodies[1]) {
		t.Fatalf("%d requests, want the refused one and its retry", len(r.bodies))
	}
	h := r.headers[1]
	if h.Get("Authorization") != "Bearer tok" || h.Get("X-Team") != "a" || h.Get("Content-Encoding") != "gzip" {
		t.Errorf("headers %v", h)
	}
	var req coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(r.bodies[1], &req); err != nil || len(req.ResourceSpans) != 1 {
		t.Fatalf("%v, %d resources", err, len(req.ResourceSpans))
	}

	bad := newReceiver(t, http.StatusBadRequest)
	e, err = newOTLPExporter(mapEnv{"OTEL_EXPORTER_OTLP_ENDPOINT": bad.URL}.get)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.ExportSpans(ctx, spans); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("a 400 gave %v", err)
	}
	if len(bad.bodies) != 1 {
		t.Errorf("a 400 was sent %d times", len(bad.bodies))
	}
	e.Shutdown(ctx)
	if err := e.ExportSpans(ctx, spans); err != nil || len(bad.bodies) != 1 {
		t.Errorf("an export after Shutdown: %v, %d requests", err, len(bad.bodies))
	}

	for _, env := range []mapEnv{
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL, "OTEL_EXPORTER_OTLP_TIMEOUT": "10s"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL, "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL, "OTEL_EXPORTER_OTLP_HEADERS": "novalue"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL, "OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent/ca.pem"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL, "OTEL_EXPORTER_OTLP_PROTOCOL": "http"},
	} {
		if _, err := newOTLPExporter(env.get); err == nil {
			t.Errorf("%v accepted", env)
		}
	}
	// The HTTP protocols are what it sends (protobuf, which every OTLP/HTTP
	// receiver takes), and the traces' own variable comes first.
	for _, env := range []mapEnv{
		{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
	} {
		if _, err := newOTLPExporter(env.get); err != nil {
			t.Errorf("%v refused: %v", env, err)
		}
	}
}
