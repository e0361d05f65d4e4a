package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/proselang/prose/run"
	"github.com/proselang/prose/telemetry"
)

// otelFlags are the OpenTelemetry flags of run, resume and replay.
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
	if ctx == nil {
		ctx = context.Background()
	}
	x, err := telemetry.Open(ctx, telemetry.Config{File: o.file, Content: o.content, Getenv: os.Getenv})
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if x == nil {
		if o.content {
			return nil, usageErrorf("--otel-content: no spans are exported (give --otel-file or set OTEL_EXPORTER_OTLP_ENDPOINT)")
		}
		return func() {}, nil
	}
	ro.Telemetry = x.Tracer()
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), otelShutdown)
		defer cancel()
		if err := x.Shutdown(ctx); err != nil {
			fmt.Fprintf(stderr, "prose: warning: %v\n", err)
		}
	}, nil
}
