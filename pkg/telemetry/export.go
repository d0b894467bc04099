package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// maxSpans bounds what one flush holds; later spans are counted, not kept.
const maxSpans = 1 << 16

// collector keeps ended spans until the next Flush, so a run sends
// nothing while it works.
type collector struct {
	mu      sync.Mutex
	spans   []*span
	dropped int
}

func (c *collector) add(s *span) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.spans) >= maxSpans {
		c.dropped++
		return
	}
	c.spans = append(c.spans, s)
}
func (c *collector) take() []*span {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.spans
	c.spans = nil
	return s
}

// exporter posts an ExportTraceServiceRequest over OTLP/HTTP.
type exporter struct {
	cfg      Config
	client   *http.Client
	resource []attribute
	version  string
	scrub    func(string) string
}

func newExporter(cfg Config, version string, scrub func(string) string) *exporter {
	// No proxy from the environment: nothing below cmd reads it, and a
	// collector is usually near.
	tr := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: cfg.FlushTimeout}).DialContext,
		TLSHandshakeTimeout:   cfg.FlushTimeout,
		ResponseHeaderTimeout: cfg.FlushTimeout,
		ForceAttemptHTTP2:     true,
	}
	// Spans are recorded by gopi's own code, not the OpenTelemetry SDK: the
	// SDK's name is this package's, as the resource conventions ask.
	res := []attribute{str("service.name", cfg.ServiceName),
		str("telemetry.sdk.name", "gopi/pkg/telemetry"), str("telemetry.sdk.language", "go")}
	if version != "" {
		res = append(res, str("service.version", version))
	}
	for _, kv := range cfg.Resource {
		res = append(res, str(kv.Key, kv.Value))
	}
	return &exporter{cfg: cfg, client: &http.Client{Transport: tr}, resource: res, version: version, scrub: scrub}
}

// export sends spans in one request within ctx.
func (e *exporter) export(ctx context.Context, spans []*span) error {
	r := &request{resource: e.resource, scope: "gopi", version: e.version, spans: spans, scrub: e.scrub}
	if e.cfg.Protocol == ProtoJSON {
		return e.post(ctx, e.cfg.Endpoint, r.json())
	}
	return e.post(ctx, e.cfg.Endpoint, r.protobuf())
}

// exportMetrics sends the metrics' points in one request within ctx.
func (e *exporter) exportMetrics(ctx context.Context, start, now time.Time, points []metricPoint) error {
	r := &metricsRequest{resource: e.resource, scope: "gopi", version: e.version, start: start, now: now, points: points, scrubString: e.scrub}
	if e.cfg.Protocol == ProtoJSON {
		return e.post(ctx, e.cfg.MetricsEndpoint, r.json())
	}
	return e.post(ctx, e.cfg.MetricsEndpoint, r.protobuf())
}

func (e *exporter) post(ctx context.Context, url string, body []byte) error {
	defer e.client.CloseIdleConnections()
	ctype := "application/x-protobuf"
	if e.cfg.Protocol == ProtoJSON {
		ctype = "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range e.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("User-Agent", "gopi")
	resp, err := e.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the collector answered %s", resp.Status)
	}
	return nil
}

// describe says why an export failed, in the user's words; the address
// is shown without credentials.
func describe(err error, cfg Config) string {
	var ue *url.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ue) && ue.Timeout()):
		return fmt.Sprintf("no answer within %s", cfg.FlushTimeout)
	case errors.As(err, &ue):
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return "nothing accepts connections there"
		}
		return "the connection failed"
	}
	return err.Error()
}

func redacted(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "the endpoint"
	}
	u.User = nil
	u.RawQuery = ""
	return u.String()
}
