package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/proselang/prose/version"
)

// Config chooses where spans go.
type Config struct {
	// File, when set, receives one JSON object per span and line
	// (FileExporter); the file is created or truncated, mode 0600.
	File string
	// Content puts model messages into spans (Options.Content).
	Content bool
	// Getenv reads OTEL_SDK_DISABLED and the OTLP exporter's settings,
	// OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, _TIMEOUT... (nil:
	// os.Getenv; see otlp.go).
	Getenv func(string) string
}

// OTLP reports whether getenv asks for OTLP export.
func OTLP(getenv func(string) string) bool {
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("OTEL_SDK_DISABLED") == "true" {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Exporter is a configured span pipeline: a tracer provider with its
// exporters.
type Exporter struct {
	tp   *sdktrace.TracerProvider
	file *os.File
	opt  Options
}

// Open builds the pipeline cfg asks for, or returns nil when it asks for
// none (no file and no OTLP endpoint).
func Open(ctx context.Context, cfg Config) (*Exporter, error) {
	otlp := OTLP(cfg.Getenv)
	if cfg.File == "" && !otlp {
		return nil, nil
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "prose"), attribute.String("service.version", version.String())),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("opentelemetry: %w", err)
	}
	e := &Exporter{opt: Options{Content: cfg.Content}}
	popts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithIDGenerator(IDGenerator())}
	if cfg.File != "" {
		// Spans carry the run's data (prompts, with --otel-content): the
		// file is its owner's alone, also when it was there before.
		f, err := os.OpenFile(cfg.File, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
		if err == nil {
			if fi, serr := f.Stat(); serr == nil && fi.Mode().IsRegular() && fi.Mode().Perm() != 0o600 {
				err = f.Chmod(0o600)
			}
		}
		if err != nil {
			if f != nil {
				f.Close()
			}
			return nil, fmt.Errorf("--otel-file: %w", err)
		}
		e.file = f
		popts = append(popts, sdktrace.WithSyncer(NewFileExporter(f)))
	}
	if otlp {
		getenv := cfg.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		x, err := newOTLPExporter(getenv)
		if err != nil {
			if e.file != nil {
				e.file.Close()
			}
			return nil, fmt.Errorf("opentelemetry: OTLP exporter: %w", err)
		}
		popts = append(popts, sdktrace.WithBatcher(x))
	}
	e.tp = sdktrace.NewTracerProvider(popts...)
	return e, nil
}

// Tracer is the Tracer whose spans this pipeline exports.
func (e *Exporter) Tracer() *Tracer { return New(e.tp, e.opt) }

// Shutdown exports what is left, within ctx, and closes the file.
func (e *Exporter) Shutdown(ctx context.Context) error {
	err := e.tp.Shutdown(ctx)
	if e.file != nil {
		err = errors.Join(err, e.file.Close())
	}
	if err != nil {
		return fmt.Errorf("opentelemetry: %w", err)
	}
	return nil
}
