package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// otlpReceiver is a loopback OTLP/HTTP collector for scripts: it keeps
// each export's content type, headers and (http/json) spans.
type otlpReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	status int
	bodies []otlpBody
}

type otlpBody struct {
	path, ctype, auth string
	body              []byte
}

var otlpReceivers sync.Map // *testscript.TestScript → *otlpReceiver

// cmdOTLP is the script's collector:
//
//	otlp start        start it and set $OTLP_URL (its address)
//	otlp status CODE  answer later exports with CODE
//	otlp spans        print what was received since the last call, one JSON line each:
//	                  for a span (/v1/traces) its name, parent's name ("" for a root),
//	                  trace and parent ids, attributes, event names, status, plus the
//	                  request's content type and Authorization header; for a metric's
//	                  point (/v1/metrics) its name, unit, count and attributes; for a
//	                  protobuf request its path, content type and size
func cmdOTLP(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "otlp")
	if len(args) == 0 {
		ts.Fatalf("usage: otlp start|status CODE|spans")
	}
	if args[0] == "start" {
		r := &otlpReceiver{status: http.StatusOK}
		r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			body, _ := io.ReadAll(req.Body)
			r.mu.Lock()
			r.bodies = append(r.bodies, otlpBody{req.URL.Path, req.Header.Get("Content-Type"), req.Header.Get("Authorization"), body})
			status := r.status
			r.mu.Unlock()
			w.WriteHeader(status)
		}))
		ts.Defer(r.srv.Close)
		otlpReceivers.Store(ts, r)
		ts.Setenv("OTLP_URL", r.srv.URL)
		return
	}
	v, ok := otlpReceivers.Load(ts)
	if !ok {
		ts.Fatalf("otlp: not started")
	}
	r := v.(*otlpReceiver)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch args[0] {
	case "status":
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		r.status = n
	case "spans":
		w := ts.Stdout() // replaced even when nothing was received
		for _, b := range r.bodies {
			switch {
			case b.ctype != "application/json":
				fmt.Fprintf(w, "{\"path\":%q,\"contentType\":%q,\"bytes\":%d}\n", b.path, b.ctype, len(b.body))
			case b.path == "/v1/metrics":
				ts.Check(dumpOTLPMetrics(w, b))
			default:
				ts.Check(dumpOTLPJSON(w, b))
			}
		}
		r.bodies = nil
	default:
		ts.Fatalf("otlp: unknown %q", args[0])
	}
}

func dumpOTLPJSON(w io.Writer, b otlpBody) error {
	type kv struct {
		Key   string         `json:"key"`
		Value map[string]any `json:"value"`
	}
	var req struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []kv `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Spans []struct {
					TraceID      string `json:"traceId"`
					SpanID       string `json:"spanId"`
					ParentSpanID string `json:"parentSpanId"`
					Name         string `json:"name"`
					Attributes   []kv   `json:"attributes"`
					Events       []struct {
						Name string `json:"name"`
					} `json:"events"`
					Status struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"status"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if err := json.Unmarshal(b.body, &req); err != nil {
		return fmt.Errorf("otlp: the export is not OTLP JSON: %v", err)
	}
	flat := func(kvs []kv) map[string]any {
		m := map[string]any{}
		for _, a := range kvs {
			for _, v := range a.Value {
				m[a.Key] = v
			}
		}
		return m
	}
	for _, rs := range req.ResourceSpans {
		res := flat(rs.Resource.Attributes)
		for _, ss := range rs.ScopeSpans {
			byID := map[string]string{}
			for _, s := range ss.Spans {
				byID[s.SpanID] = s.Name
			}
			for _, s := range ss.Spans {
				var events []string
				for _, e := range s.Events {
					events = append(events, e.Name)
				}
				line, err := json.Marshal(map[string]any{"name": s.Name, "parent": byID[s.ParentSpanID], "traceId": s.TraceID,
					"parentSpanId": s.ParentSpanID, "attributes": flat(s.Attributes), "events": events, "status": s.Status.Code,
					"statusMessage": s.Status.Message, "service": res["service.name"], "contentType": b.ctype, "authorization": b.auth})
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%s\n", line)
			}
		}
	}
	return nil
}

func dumpOTLPMetrics(w io.Writer, b otlpBody) error {
	type kv struct {
		Key   string         `json:"key"`
		Value map[string]any `json:"value"`
	}
	var req struct {
		ResourceMetrics []struct {
			ScopeMetrics []struct {
				Metrics []struct {
					Name      string `json:"name"`
					Unit      string `json:"unit"`
					Histogram struct {
						AggregationTemporality int `json:"aggregationTemporality"`
						DataPoints             []struct {
							Attributes []kv   `json:"attributes"`
							Count      string `json:"count"`
						} `json:"dataPoints"`
					} `json:"histogram"`
				} `json:"metrics"`
			} `json:"scopeMetrics"`
		} `json:"resourceMetrics"`
	}
	if err := json.Unmarshal(b.body, &req); err != nil {
		return fmt.Errorf("otlp: the export is not OTLP JSON metrics: %v", err)
	}
	for _, rm := range req.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				for _, dp := range m.Histogram.DataPoints {
					attrs := map[string]any{}
					for _, a := range dp.Attributes {
						for _, v := range a.Value {
							attrs[a.Key] = v
						}
					}
					line, err := json.Marshal(map[string]any{"metric": m.Name, "unit": m.Unit, "temporality": m.Histogram.AggregationTemporality,
						"count": dp.Count, "attributes": attrs})
					if err != nil {
						return err
					}
					fmt.Fprintf(w, "%s\n", line)
				}
			}
		}
	}
	return nil
}
