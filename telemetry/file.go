package telemetry

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// FileSpan is one line of a span file (--otel-file): a span as JSON, with
// ids in hex as OTLP/JSON writes them, and the attributes as an object.
type FileSpan struct {
	Name         string         `json:"name"`
	TraceID      string         `json:"trace_id"`
	SpanID       string         `json:"span_id"`
	ParentSpanID string         `json:"parent_span_id"` // "" for a root span
	Kind         string         `json:"kind"`
	Start        time.Time      `json:"start_time"`
	End          time.Time      `json:"end_time"`
	Status       string         `json:"status"` // Unset, Ok, Error
	StatusMsg    string         `json:"status_message,omitempty"`
	Attributes   map[string]any `json:"attributes"`
}

// FileExporter is an sdktrace.SpanExporter that writes each span as one
// FileSpan line.
type FileExporter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewFileExporter returns a FileExporter writing to w.
func NewFileExporter(w io.Writer) *FileExporter { return &FileExporter{w: w} }

// ExportSpans implements sdktrace.SpanExporter.
func (x *FileExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	enc := json.NewEncoder(x.w)
	for _, s := range spans {
		if err := enc.Encode(fileSpan(s)); err != nil {
			return err
		}
	}
	return nil
}

// Shutdown implements sdktrace.SpanExporter.
func (x *FileExporter) Shutdown(context.Context) error { return nil }

func fileSpan(s sdktrace.ReadOnlySpan) FileSpan {
	fs := FileSpan{Name: s.Name(), TraceID: s.SpanContext().TraceID().String(), SpanID: s.SpanContext().SpanID().String(),
		Kind: s.SpanKind().String(), Start: s.StartTime().UTC(), End: s.EndTime().UTC(),
		Status: s.Status().Code.String(), StatusMsg: s.Status().Description, Attributes: map[string]any{}}
	if p := s.Parent(); p.IsValid() {
		fs.ParentSpanID = p.SpanID().String()
	}
	for _, kv := range s.Attributes() {
		fs.Attributes[string(kv.Key)] = kv.Value.AsInterface()
	}
	return fs
}
