package telemetry

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The GenAI client metrics, as the semantic conventions define them:
// histograms with their advised bucket boundaries, cumulative from the
// start of the process's telemetry.
const (
	metricDuration = "gen_ai.client.operation.duration"
	metricTokens   = "gen_ai.client.token.usage"
)

var (
	durationBounds = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	tokenBounds    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
)

// histogram is one data point: the counts of one attribute set.
type histogram struct {
	attrs    []attribute
	count    uint64
	sum      float64
	min, max float64
	buckets  []uint64 // len(bounds)+1
}

func (h *histogram) record(v float64, bounds []float64) {
	if h.count == 0 || v < h.min {
		h.min = v
	}
	if h.count == 0 || v > h.max {
		h.max = v
	}
	h.count++
	h.sum += v
	i, _ := slices.BinarySearch(bounds, v) // a bucket holds (bound[i-1], bound[i]]
	h.buckets[i]++
}

// meter holds the two histograms' points.
type meter struct {
	mu     sync.Mutex
	start  time.Time
	points map[string]map[string]*histogram // metric → attribute set → point
}

func newMeter(start time.Time) *meter {
	return &meter{start: start, points: map[string]map[string]*histogram{}}
}

func (m *meter) record(metric string, v float64, attrs ...attribute) {
	bounds := boundsOf(metric)
	set, key := attributeSet(attrs)
	m.mu.Lock()
	defer m.mu.Unlock()
	byAttrs := m.points[metric]
	if byAttrs == nil {
		byAttrs = map[string]*histogram{}
		m.points[metric] = byAttrs
	}
	h := byAttrs[key]
	if h == nil {
		h = &histogram{attrs: set, buckets: make([]uint64, len(bounds)+1)}
		byAttrs[key] = h
	}
	h.record(v, bounds)
}

func boundsOf(metric string) []float64 {
	if metric == metricDuration {
		return durationBounds
	}
	return tokenBounds
}

// metricPoint is a histogram point as exported.
type metricPoint struct {
	name, unit, description string
	bounds                  []float64
	h                       histogram
}

// snapshot copies the points, in a stable order (metric, attributes).
func (m *meter) snapshot() []metricPoint {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []metricPoint
	for _, name := range []string{metricDuration, metricTokens} {
		byAttrs := m.points[name]
		keys := make([]string, 0, len(byAttrs))
		for k := range byAttrs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			h := *byAttrs[k]
			h.buckets = slices.Clone(h.buckets)
			p := metricPoint{name: name, bounds: boundsOf(name), h: h}
			if name == metricDuration {
				p.unit, p.description = "s", "GenAI operation duration"
			} else {
				p.unit, p.description = "{token}", "Number of input and output tokens used"
			}
			out = append(out, p)
		}
	}
	return out
}

// metricsRequest is one ExportMetricsServiceRequest.
type metricsRequest struct {
	resource    []attribute
	scope       string
	version     string
	start, now  time.Time
	points      []metricPoint
	scrubString func(string) string
}

func (r *metricsRequest) protobuf() []byte {
	enc := &request{scrub: r.scrubString}
	var p pb
	p.msg(1, func(rm *pb) { // ExportMetricsServiceRequest.resource_metrics
		rm.msg(1, func(res *pb) { // ResourceMetrics.resource
			for _, kv := range r.resource {
				res.msg(1, func(a *pb) { enc.pbKV(a, kv) })
			}
		})
		rm.msg(2, func(sm *pb) { // ResourceMetrics.scope_metrics
			sm.msg(1, func(sc *pb) {
				sc.str(1, r.scope)
				if r.version != "" {
					sc.str(2, r.version)
				}
			})
			for _, pt := range r.points {
				sm.msg(2, func(m *pb) { // ScopeMetrics.metrics
					m.str(1, pt.name)
					m.str(2, pt.description)
					m.str(3, pt.unit)
					m.msg(9, func(h *pb) { // Metric.histogram
						h.msg(1, func(dp *pb) { // Histogram.data_points
							for _, kv := range pt.h.attrs {
								dp.msg(9, func(a *pb) { enc.pbKV(a, kv) })
							}
							dp.fixed64(2, uint64(r.start.UnixNano()))
							dp.fixed64(3, uint64(r.now.UnixNano()))
							dp.fixed64(4, pt.h.count)
							dp.fixed64(5, math.Float64bits(pt.h.sum))
							var counts pb
							for _, c := range pt.h.buckets {
								counts.b = appendFixed64(counts.b, c)
							}
							dp.bytes(6, counts.b) // packed
							var bounds pb
							for _, b := range pt.bounds {
								bounds.b = appendFixed64(bounds.b, math.Float64bits(b))
							}
							dp.bytes(7, bounds.b) // packed
							dp.fixed64(11, math.Float64bits(pt.h.min))
							dp.fixed64(12, math.Float64bits(pt.h.max))
						})
						h.varint(2, 2) // AGGREGATION_TEMPORALITY_CUMULATIVE
					})
				})
			}
		})
	})
	return p.b
}

func appendFixed64(b []byte, v uint64) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56))
}

func (r *metricsRequest) json() []byte {
	enc := &request{scrub: r.scrubString}
	metrics := make([]any, 0, len(r.points))
	for _, pt := range r.points {
		counts := make([]string, len(pt.h.buckets))
		for i, c := range pt.h.buckets {
			counts[i] = strconv.FormatUint(c, 10)
		}
		metrics = append(metrics, map[string]any{"name": pt.name, "description": pt.description, "unit": pt.unit,
			"histogram": map[string]any{"aggregationTemporality": 2, "dataPoints": []any{map[string]any{
				"attributes":        enc.jsonKVs(pt.h.attrs),
				"startTimeUnixNano": strconv.FormatInt(r.start.UnixNano(), 10),
				"timeUnixNano":      strconv.FormatInt(r.now.UnixNano(), 10),
				"count":             strconv.FormatUint(pt.h.count, 10),
				"sum":               pt.h.sum, "bucketCounts": counts, "explicitBounds": pt.bounds,
				"min": pt.h.min, "max": pt.h.max,
			}}}})
	}
	scope := map[string]string{"name": r.scope}
	if r.version != "" {
		scope["version"] = r.version
	}
	b, _ := json.Marshal(map[string]any{"resourceMetrics": []any{map[string]any{
		"resource":     map[string]any{"attributes": enc.jsonKVs(r.resource)},
		"scopeMetrics": []any{map[string]any{"scope": scope, "metrics": metrics}},
	}}})
	return b
}

// metricsEndpoint is where metrics go: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT,
// or the base endpoint's /v1/metrics; "" sends none.
func metricsEndpoint(base, explicit string) string {
	if explicit != "" {
		return explicit
	}
	if base == "" {
		return ""
	}
	return strings.TrimRight(base, "/") + "/v1/metrics"
}
