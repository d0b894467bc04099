// Package telemetry exports a run as OpenTelemetry traces shaped by the
// GenAI semantic conventions: one invoke_agent span per run, a chat span
// per model request, an execute_tool span per tool call, a span per
// compaction. Spans are recorded by its own small recorder (span.go: W3C
// trace context, the standard samplers and the SDK's limits) and sent by
// its own exporter on net/http (OTLP/HTTP, http/protobuf or http/json),
// once, at the end of a run, within a bound. It links nothing beyond the
// standard library, so a run without telemetry pays nothing for it at
// start-up.
//
// It is off unless the standard OTEL_* variables turn it on; nothing here
// reads the process's environment: Load takes a lookup function.
package telemetry

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Protocols the exporter speaks.
const (
	ProtoProtobuf = "http/protobuf"
	ProtoJSON     = "http/json"
)

// DefaultFlushTimeout bounds the one export at the end of a run.
const DefaultFlushTimeout = time.Second

// Config is what the environment asks for. The zero Config is off.
type Config struct {
	// Enabled is true when an endpoint is set and the SDK is not disabled.
	Enabled bool
	// Endpoint is the traces URL the spans are posted to.
	Endpoint string
	// MetricsEndpoint is the metrics URL ("" sends no metrics): the base
	// endpoint's /v1/metrics or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT.
	MetricsEndpoint string
	// Protocol is ProtoProtobuf or ProtoJSON.
	Protocol string
	// Headers are sent with every export (OTEL_EXPORTER_OTLP_HEADERS, then
	// OTEL_EXPORTER_OTLP_TRACES_HEADERS over them).
	Headers map[string]string
	// ServiceName is service.name (OTEL_SERVICE_NAME, default gopi).
	ServiceName string
	// Resource are OTEL_RESOURCE_ATTRIBUTES, in order.
	Resource []KeyValue
	// Sampler and SamplerArg are OTEL_TRACES_SAMPLER and its argument.
	Sampler    string
	SamplerArg float64
	// TraceParent and TraceState make the run a child of the caller's span.
	TraceParent, TraceState string
	// CaptureContent exports prompts, answers and tool arguments
	// (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true).
	CaptureContent bool
	// FlushTimeout bounds the export at the end of a run.
	FlushTimeout time.Duration
}

// KeyValue is one resource attribute.
type KeyValue struct{ Key, Value string }

var samplers = []string{"always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"}

// Load reads the configuration through lookup (os.LookupEnv's shape).
// A setting it cannot use is an error naming the variable and what to
// set instead; the caller runs without telemetry then.
func Load(lookup func(string) (string, bool)) (Config, error) {
	get := func(k string) string {
		v, _ := lookup(k)
		return strings.TrimSpace(v)
	}
	if strings.EqualFold(get("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(get("OTEL_TRACES_EXPORTER"), "none") {
		return Config{}, nil
	}
	traces, base := get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), get("OTEL_EXPORTER_OTLP_ENDPOINT")
	if traces == "" && base == "" {
		return Config{}, nil // no collector to send to
	}
	c := Config{Protocol: ProtoProtobuf, ServiceName: "gopi", Sampler: "parentbased_always_on", SamplerArg: 1, FlushTimeout: DefaultFlushTimeout}
	if err := c.readEndpoints(get, traces, base); err != nil {
		return Config{}, err
	}
	for _, read := range []func(*Config, func(string) string) error{
		(*Config).readProtocol, (*Config).readHeaders, (*Config).readResource, (*Config).readSampler,
	} {
		if err := read(&c, get); err != nil {
			return Config{}, err
		}
	}
	c.TraceParent, c.TraceState = get("TRACEPARENT"), get("TRACESTATE")
	c.CaptureContent = strings.EqualFold(get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"), "true")
	if v := get("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"); v != "" {
		if ms, err := strconv.Atoi(v); err == nil && ms > 0 && ms < int(DefaultFlushTimeout/time.Millisecond) {
			c.FlushTimeout = time.Duration(ms) * time.Millisecond
		}
	}
	c.Enabled = true
	return c, nil
}

// readEndpoints sets the traces endpoint (the traces variable's, else
// the base's with /v1/traces) and the metrics endpoint unless metrics
// are off.
func (c *Config) readEndpoints(get func(string) string, traces, base string) error {
	endpoint, name := traces, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	if traces == "" {
		endpoint, name = strings.TrimRight(base, "/")+"/v1/traces", "OTEL_EXPORTER_OTLP_ENDPOINT"
	}
	c.Endpoint = endpoint
	if !isHTTPAddress(c.Endpoint) {
		return fmt.Errorf("%s %q is not an http:// or https:// address; set it to the collector's, e.g. http://localhost:4318", name, c.Endpoint)
	}
	if strings.EqualFold(get("OTEL_METRICS_EXPORTER"), "none") {
		return nil
	}
	c.MetricsEndpoint = metricsEndpoint(base, get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"))
	if c.MetricsEndpoint != "" && !isHTTPAddress(c.MetricsEndpoint) {
		return fmt.Errorf("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT %q is not an http:// or https:// address; set it to the collector's, e.g. http://localhost:4318/v1/metrics", c.MetricsEndpoint)
	}
	return nil
}

// isHTTPAddress says whether s is an http:// or https:// URL with a host.
func isHTTPAddress(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// readProtocol sets the protocol; the traces variable wins over the
// general one.
func (c *Config) readProtocol(get func(string) string) error {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		switch v := get(k); v {
		case "":
		case ProtoProtobuf, ProtoJSON:
			c.Protocol = v
		default:
			return fmt.Errorf("%s %q is not a protocol gopi sends; set it to http/protobuf or http/json", k, v)
		}
	}
	return nil
}

// readHeaders sets the export's headers; the traces variable's win over
// the general one's.
func (c *Config) readHeaders(get func(string) string) error {
	c.Headers = map[string]string{}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		kv, err := parseList(get(k))
		if err != nil {
			// The value may hold a credential: name the variable only.
			return fmt.Errorf("%s is not a list of key=value pairs separated by commas (%v)", k, err)
		}
		for _, p := range kv {
			c.Headers[p.Key] = p.Value
		}
	}
	return nil
}

// readResource sets the service name (OTEL_SERVICE_NAME, else the
// resource's service.name) and the other resource attributes.
func (c *Config) readResource(get func(string) string) error {
	if v := get("OTEL_SERVICE_NAME"); v != "" {
		c.ServiceName = v
	}
	res, err := parseList(get("OTEL_RESOURCE_ATTRIBUTES"))
	if err != nil {
		return fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES is not a list of key=value pairs separated by commas (%v)", err)
	}
	for _, p := range res {
		if p.Key == "service.name" && get("OTEL_SERVICE_NAME") == "" {
			c.ServiceName = p.Value
			continue
		}
		if p.Key != "service.name" {
			c.Resource = append(c.Resource, p)
		}
	}
	return nil
}

// readSampler sets the sampler and, for a ratio sampler, its ratio.
func (c *Config) readSampler(get func(string) string) error {
	if v := strings.ToLower(get("OTEL_TRACES_SAMPLER")); v != "" {
		if !slices.Contains(samplers, v) {
			return fmt.Errorf("OTEL_TRACES_SAMPLER %q is not a sampler gopi knows; use one of %s", v, strings.Join(samplers, ", "))
		}
		c.Sampler = v
	}
	if v := get("OTEL_TRACES_SAMPLER_ARG"); v != "" && strings.HasSuffix(c.Sampler, "traceidratio") {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 1 {
			return fmt.Errorf("OTEL_TRACES_SAMPLER_ARG %q is not a ratio; set a number from 0 to 1", v)
		}
		c.SamplerArg = f
	}
	return nil
}

// parseList reads the W3C Baggage-like list OTEL_* variables use:
// key=value pairs separated by commas, both percent-decoded.
func parseList(s string) ([]KeyValue, error) {
	var out []KeyValue
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("an item has no key=value")
		}
		dk, err1 := url.PathUnescape(k)
		dv, err2 := url.PathUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("an item has a bad %%-escape")
		}
		out = append(out, KeyValue{dk, dv})
	}
	return out, nil
}
