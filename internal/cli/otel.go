package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/llm"
	"github.com/proselang/prose/run"
	"github.com/proselang/prose/telemetry"
)

// otelFlags are the OpenTelemetry flags of run (of a file or a drain),
// resume, replay and serve.
type otelFlags struct {
	file    string
	content bool
}

// otelShutdown bounds the export of the spans left when a run ends, so a
// collector that does not answer cannot hold the command.
const otelShutdown = 5 * time.Second

func addOtelFlags(cmd *cobra.Command, o *otelFlags) {
	fl := cmd.Flags()
	fl.StringVar(&o.file, "otel-file", "", "write the run's OpenTelemetry spans to `FILE`, one JSON object a line (OTLP over HTTP goes where $OTEL_EXPORTER_OTLP_ENDPOINT says)")
	fl.BoolVar(&o.content, "otel-content", false, "put the messages sent to and received from models into the spans (redacted)")
}

// open sets ro.Telemetry when spans are wanted (--otel-file, or
// OTEL_EXPORTER_OTLP_ENDPOINT set) and returns what ends the export. A
// span export that fails is reported on stderr; it does not change the
// run's outcome, which the journal holds.
func (o *otelFlags) open(ctx context.Context, ro *run.Options, stderr io.Writer) (func(), error) {
	tr, end, err := o.tracer(ctx, stderr)
	if err != nil {
		return nil, err
	}
	ro.Telemetry = tr
	return end, nil
}

// world returns the writer of a drain's spans for the world model at
// root (nil when no spans are wanted) and what ends the export, as open
// does for a run.
func (o *otelFlags) world(ctx context.Context, root, baseURL string, stderr io.Writer) (*telemetry.World, func(), error) {
	tr, end, err := o.tracer(ctx, stderr)
	if err != nil || tr == nil {
		return nil, end, err
	}
	base := firstNonEmptyString(baseURL, os.Getenv("OPENAI_BASE_URL"), llm.DefaultBaseURL)
	return tr.World(root, telemetry.RunInfo{ErrorCode: func(err error) string { return run.CodeOf(err).String() }, BaseURL: base}), end, nil
}

// tracer is the Tracer the flags and environment ask for (nil: none)
// and what ends its export.
func (o *otelFlags) tracer(ctx context.Context, stderr io.Writer) (*telemetry.Tracer, func(), error) {
	if ctx == nil {
		ctx = context.Background()
	}
	x, err := telemetry.Open(ctx, telemetry.Config{File: o.file, Content: o.content, Getenv: os.Getenv})
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	if x == nil {
		if o.content {
			return nil, nil, usageErrorf("--otel-content: no spans are exported (give --otel-file or set OTEL_EXPORTER_OTLP_ENDPOINT)")
		}
		return nil, func() {}, nil
	}
	return x.Tracer(), func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), otelShutdown)
		defer cancel()
		if err := x.Shutdown(ctx); err != nil {
			fmt.Fprintf(stderr, "prose: warning: %v\n", err)
		}
	}, nil
}

func firstNonEmptyString(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
