package telemetry

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Decided: a run is one trace, however many times it is resumed. The
// trace id of a run without a parent span is derived from its run id
// (RunTraceID), so the live run, each resume and each replay put their
// invoke_workflow span into the same trace, one root span per session,
// marked by prose.run.mode; nothing needs to be stored to continue it. A
// run under a parent span (a server's request) stays in its parent's
// trace. The derivation needs the tracer provider's ids to come from
// IDGenerator (Open's provider does); with another generator a session
// is a trace of its own.

// runTraceKey carries the trace id a root span should get.
type runTraceKey struct{}

// withRunTrace asks IDGenerator for the trace id of runID for the root
// span started with ctx.
func withRunTrace(ctx context.Context, runID string) context.Context {
	return context.WithValue(ctx, runTraceKey{}, RunTraceID(runID))
}

// RunTraceID is the trace id of the run runID: the first 16 bytes of the
// SHA-256 of "prose run " and the id.
func RunTraceID(runID string) trace.TraceID {
	sum := sha256.Sum256([]byte("prose run " + runID))
	var id trace.TraceID
	copy(id[:], sum[:16])
	return id
}

// IDGenerator returns the sdktrace.IDGenerator of prose's tracer
// providers: random ids, except the trace id of a run's root span, which
// is RunTraceID of its run.
func IDGenerator() sdktrace.IDGenerator { return &idGenerator{} }

type idGenerator struct {
	mu  sync.Mutex
	rng *rand.ChaCha8
}

func (g *idGenerator) random(b []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.rng == nil {
		var seed [32]byte
		binary.LittleEndian.PutUint64(seed[:], rand.Uint64())
		binary.LittleEndian.PutUint64(seed[8:], rand.Uint64())
		binary.LittleEndian.PutUint64(seed[16:], rand.Uint64())
		binary.LittleEndian.PutUint64(seed[24:], rand.Uint64())
		g.rng = rand.NewChaCha8(seed)
	}
	for {
		g.rng.Read(b)
		for _, x := range b {
			if x != 0 {
				return // an all-zero id is invalid
			}
		}
	}
}

// NewIDs implements sdktrace.IDGenerator.
func (g *idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	var tid trace.TraceID
	if id, ok := ctx.Value(runTraceKey{}).(trace.TraceID); ok && id.IsValid() {
		tid = id
	} else {
		g.random(tid[:])
	}
	return tid, g.NewSpanID(ctx, tid)
}

// NewSpanID implements sdktrace.IDGenerator.
func (g *idGenerator) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	var sid trace.SpanID
	g.random(sid[:])
	return sid
}
