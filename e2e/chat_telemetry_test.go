package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// otlpSpan is what the test reads of an exported span (OTLP/HTTP JSON).
type otlpSpan struct {
	TraceID      string `json:"traceId"`
	SpanID       string `json:"spanId"`
	ParentSpanID string `json:"parentSpanId"`
	Name         string `json:"name"`
	Attributes   []struct {
		Key   string `json:"key"`
		Value struct {
			StringValue string `json:"stringValue"`
		} `json:"value"`
	} `json:"attributes"`
}

func (s otlpSpan) attr(key string) string {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value.StringValue
		}
	}
	return ""
}

// gopi chat traces each prompt as gopi rpc and acp do: one trace per
// prompt with an invoke_agent root, its model requests beneath it, the
// session's id tying the prompts together.
func TestChatPromptsAreTraced(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var spans []otlpSpan
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/traces" {
			return
		}
		var body struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []otlpSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(b, &body); err != nil {
			t.Errorf("an export that is not OTLP JSON: %v: %s", err, b)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, rs := range body.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}))
	defer srv.Close()
	e := newChatEnv(t)
	e.extra = []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/json"}
	sc := e.script(t, `[{"text": "first answer"}, {"text": "second answer"}]`)
	p := startPty(t, e, "chat", "--provider", "faux", "--model", sc)
	p.expect("/help")
	p.send("hello there\r")
	p.expect("first answer")
	p.expect("ctx ")
	p.send("and again\r")
	p.expect("second answer")
	p.expect("ctx ")
	p.send("\x04")
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
	file, _ := sessionEntries(t, e)
	head, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var header struct {
		ID string `json:"id"`
	}
	line, _, _ := strings.Cut(string(head), "\n")
	if err := json.Unmarshal([]byte(line), &header); err != nil || header.ID == "" {
		t.Fatalf("session header %q: %v", line, err)
	}

	mu.Lock()
	defer mu.Unlock()
	roots := map[string]otlpSpan{} // by trace
	for _, s := range spans {
		if s.Name == "invoke_agent gopi" {
			if s.ParentSpanID != "" {
				t.Errorf("invoke_agent has a parent %s", s.ParentSpanID)
			}
			if got := s.attr("gen_ai.conversation.id"); got != header.ID {
				t.Errorf("invoke_agent's conversation %q, want the session's id %q", got, header.ID)
			}
			roots[s.TraceID] = s
		}
	}
	if len(roots) != 2 {
		t.Fatalf("%d traces with an invoke_agent root, want one per prompt (2): %+v", len(roots), spans)
	}
	chats := 0
	for _, s := range spans {
		if !strings.HasPrefix(s.Name, "chat ") {
			continue
		}
		chats++
		if root, ok := roots[s.TraceID]; !ok || s.ParentSpanID != root.SpanID {
			t.Errorf("%s is not beneath its prompt's invoke_agent: %+v", s.Name, s)
		}
	}
	if chats != 2 {
		t.Errorf("%d chat spans, want one per model request (2)", chats)
	}
}
