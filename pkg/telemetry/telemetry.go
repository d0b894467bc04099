package telemetry

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"gopi/pkg/loop"
)

// Recorder records one run: the loop's events as they are dispatched,
// then its end, after which its spans are sent (once, within the
// configured bound). Off is the Recorder of a run without telemetry.
type Recorder interface {
	Event(runID int, e loop.Event)
	End(End)
}

// Off records nothing.
var Off Recorder = off{}

type off struct{}

func (off) Event(int, loop.Event) {}
func (off) End(End)               {}

// maxValue bounds an attribute's value in bytes (captured content).
const maxValue = 64 << 10

// Options are what the caller knows beyond the configuration.
type Options struct {
	// Version is service.version.
	Version string
	// Scrub removes secrets from every string exported (tools.Secrets'
	// Scrub); nil exports strings as they are.
	Scrub func(string) string
	// Stderr gets one line when an export fails.
	Stderr io.Writer
}

// Telemetry holds the tracer and the spans not yet sent. It is safe for
// concurrent use.
type Telemetry struct {
	cfg    Config
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	col    *collector
	exp    *exporter
	meter  *meter          // nil: no metrics endpoint
	parent context.Context // the caller's span from TRACEPARENT, if any
	stderr io.Writer
	scrub  func(string) string

	mu     sync.Mutex
	failed bool // an export failed: later spans are dropped
}

// New returns the Telemetry cfg asks for, nil when it is off.
func New(cfg Config, opts Options) *Telemetry {
	if !cfg.Enabled {
		return nil
	}
	if opts.Scrub == nil {
		opts.Scrub = func(s string) string { return s }
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if cfg.FlushTimeout <= 0 {
		cfg.FlushTimeout = DefaultFlushTimeout
	}
	col := &collector{}
	// The resource is the exporter's own; the limits are set here, not
	// from the environment. A long captured content is cut at 64 KiB,
	// after the secrets are scrubbed from it.
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler(cfg)), sdktrace.WithSpanProcessor(col),
		sdktrace.WithResource(resource.Empty()), sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
			AttributeValueLengthLimit: maxValue, AttributeCountLimit: 128, EventCountLimit: 256, LinkCountLimit: 16,
			AttributePerEventCountLimit: 32, AttributePerLinkCountLimit: 32}))
	parent := context.Background()
	if cfg.TraceParent != "" {
		parent = propagation.TraceContext{}.Extract(parent, propagation.MapCarrier{"traceparent": cfg.TraceParent, "tracestate": cfg.TraceState})
	}
	var m *meter
	if cfg.MetricsEndpoint != "" {
		m = newMeter(time.Now())
	}
	return &Telemetry{meter: m, cfg: cfg, tp: tp, tracer: tp.Tracer("gopi", trace.WithInstrumentationVersion(opts.Version)), col: col,
		exp: newExporter(cfg, opts.Version, opts.Scrub), parent: parent, stderr: opts.Stderr, scrub: opts.Scrub}
}

func sampler(cfg Config) sdktrace.Sampler {
	switch cfg.Sampler {
	case "always_on":
		return sdktrace.AlwaysSample()
	case "always_off":
		return sdktrace.NeverSample()
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(cfg.SamplerArg)
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample())
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(cfg.SamplerArg))
	}
	return sdktrace.ParentBased(sdktrace.AlwaysSample())
}

// Flush sends the spans ended so far in one request, within the
// configured bound. A failure is written to Stderr and otherwise
// ignored: export never changes a run. After a failure nothing more is
// sent, so a chat whose collector is gone waits for it once, not at
// every prompt.
func (t *Telemetry) Flush() {
	if t == nil {
		return
	}
	spans := t.col.take()
	t.mu.Lock()
	failed := t.failed
	t.mu.Unlock()
	if len(spans) == 0 || failed {
		return
	}
	// Spans, then the metrics, within one bound.
	ctx, cancel := context.WithTimeout(context.Background(), t.cfg.FlushTimeout)
	defer cancel()
	err := t.exp.export(ctx, spans)
	if err == nil && t.meter != nil {
		if points := t.meter.snapshot(); len(points) > 0 {
			err = t.exp.exportMetrics(ctx, t.meter.start, time.Now(), points)
		}
	}
	if err != nil {
		t.mu.Lock()
		defer t.mu.Unlock()
		if !t.failed {
			t.failed = true
			fmt.Fprintf(t.stderr, "gopi: telemetry: %d spans not sent to %s: %s; the run is not affected\n", len(spans), redacted(t.cfg.Endpoint), describe(err, t.cfg))
		}
	}
}
