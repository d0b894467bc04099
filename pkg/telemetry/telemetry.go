package telemetry

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

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

// Telemetry holds the runs being recorded and the spans not yet sent. It
// is safe for concurrent use.
type Telemetry struct {
	cfg    Config
	col    *collector
	exp    *exporter
	meter  *meter      // nil: no metrics endpoint
	parent spanContext // the caller's span from TRACEPARENT, if any
	stderr io.Writer
	scrub  func(string) string

	flushing sync.Mutex // one export at a time

	mu     sync.Mutex
	failed bool          // an export failed: later spans are dropped
	open   map[*run]bool // runs started and not ended
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
	var m *meter
	if cfg.MetricsEndpoint != "" {
		m = newMeter(time.Now())
	}
	return &Telemetry{meter: m, cfg: cfg, col: &collector{}, exp: newExporter(cfg, opts.Version, opts.Scrub),
		parent: parseTraceParent(cfg.TraceParent, cfg.TraceState), stderr: opts.Stderr, scrub: opts.Scrub, open: map[*run]bool{}}
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
	t.flushing.Lock()
	defer t.flushing.Unlock()
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

// Abandon ends every run still being recorded as end says (a forced
// exit: the process is about to go), with the steps and usage of the
// answers it saw, its open spans marked abandoned; then it sends what
// was recorded in one Flush, within its bound.
func (t *Telemetry) Abandon(end End) {
	if t == nil {
		return
	}
	t.mu.Lock()
	runs := make([]*run, 0, len(t.open))
	for r := range t.open {
		runs = append(runs, r)
	}
	t.mu.Unlock()
	for _, r := range runs {
		r.mu.Lock()
		e := end
		e.Steps, e.Usage = r.steps, r.usage
		r.mu.Unlock()
		r.end(e)
	}
	t.Flush()
}
