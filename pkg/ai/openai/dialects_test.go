package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

// These tests replay each server's dialect of the stream, as recorded in
// testdata from the servers' documented chunk shapes.

func TestOllamaParallelCallsAllAtIndexZero(t *testing.T) {
	info := ai.Info{ID: "qwen3:8b", Provider: "ollama", API: API, Reasoning: true}
	_, m, _ := fixture(t, info, providertest.SSE(providertest.File(t, "testdata/ollama_parallel.sse")))
	evs, msg := stream(t, m, nil)

	want := []ai.Content{
		{Type: ai.TypeThinking, Thinking: "Two files to read.", ThinkingSignature: "reasoning"},
		{Type: ai.TypeToolCall, ID: "call_7fx2kq1m", Name: "read", Arguments: json.RawMessage(`{"path":"go.mod"}`)},
		{Type: ai.TypeToolCall, ID: "call_u3b9wz0c", Name: "read", Arguments: json.RawMessage(`{"path":"README.md"}`)},
	}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if msg.StopReason != ai.StopToolUse || msg.Usage.Input != 312 || msg.Usage.Output != 58 {
		t.Errorf("stop %s usage %+v", msg.StopReason, msg.Usage)
	}
	// The first call ends as the second starts: its end event comes before
	// the second's start.
	wantTypes := []ai.EventType{ai.EventStart, ai.EventThinkingStart, ai.EventThinkingDelta, ai.EventThinkingEnd,
		ai.EventToolCallStart, ai.EventToolCallDelta, ai.EventToolCallEnd,
		ai.EventToolCallStart, ai.EventToolCallDelta, ai.EventToolCallEnd, ai.EventDone}
	if diff := cmp.Diff(wantTypes, providertest.Types(evs)); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
}

// Older Ollama sends neither index nor id: a call that begins after a
// complete one is a new call, and one whose arguments never became valid
// JSON is kept as invalid arguments, for the tool layer to report to the
// model.
func TestCallsWithoutIndexOrID(t *testing.T) {
	info := ai.Info{ID: "llama3.1:8b", Provider: "ollama", API: API}
	_, m, _ := fixture(t, info, providertest.SSE(providertest.File(t, "testdata/ollama_noindex.sse")))
	_, msg := stream(t, m, nil)

	want := []ai.Content{
		{Type: ai.TypeToolCall, ID: "call_1700000000000_0", Name: "ls", Arguments: json.RawMessage(`{"path":"."}`)},
		{Type: ai.TypeToolCall, ID: "call_1700000000000_1", Name: "grep", Arguments: json.RawMessage(`{"pattern":"TODO","path":"cmd"}`)},
		{Type: ai.TypeToolCall, ID: "call_1700000000000_2", Name: "bash", Arguments: json.RawMessage(`{"_raw":"{\"command\": \"go vet ./...\""}`)},
	}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if msg.StopReason != ai.StopToolUse {
		t.Errorf("stop %s", msg.StopReason)
	}
}

func TestCallBoundaries(t *testing.T) {
	frag := func(index int, id, name, args string) string {
		tc := map[string]any{"index": index, "function": map[string]any{"arguments": args}}
		if id != "" {
			tc["id"] = id
		}
		if name != "" {
			tc["function"].(map[string]any)["name"] = name
		}
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{tc}}}}})
		return "data: " + string(b) + "\n\n"
	}
	end := "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"
	tests := []struct {
		name   string
		stream string
		want   []string // name:arguments of each call
	}{
		{"one call in fragments whose later ones begin with {", frag(0, "", "edit", `{"edits":[`) + frag(0, "", "", `{"a":1}`) + frag(0, "", "", `,{"b":2}]}`),
			[]string{`edit:{"edits":[{"a":1},{"b":2}]}`}},
		{"a repeated id is the same call", frag(0, "c1", "ls", `{"path":`) + frag(0, "c1", "", `"."}`),
			[]string{`ls:{"path":"."}`}},
		{"a name alone after a complete call starts one", frag(0, "", "ls", `{}`) + frag(0, "", "find", "") + frag(0, "", "", `{"pattern":"*.go"}`),
			[]string{`ls:{}`, `find:{"pattern":"*.go"}`}},
		{"braces inside strings do not end a call", frag(0, "", "bash", `{"command":"echo }{"`) + frag(0, "", "", `}`) + frag(0, "", "", ""),
			[]string{`bash:{"command":"echo }{"}`}},
		{"distinct indexes interleave", frag(0, "a", "ls", `{"pa`) + frag(1, "b", "ls", `{"path":"b"}`) + frag(0, "", "", `th":"a"}`),
			[]string{`ls:{"path":"a"}`, `ls:{"path":"b"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, m, _ := fixture(t, gpt41, providertest.SSE(tt.stream+end))
			_, msg := stream(t, m, nil)
			var got []string
			for _, c := range msg.ToolCalls() {
				got = append(got, c.Name+":"+string(c.Arguments))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMagistralContentParts(t *testing.T) {
	info := ai.Info{ID: "magistral-medium-2509", Provider: "mistral", API: API, Reasoning: true}
	_, m, _ := fixture(t, info, providertest.SSE(providertest.File(t, "testdata/magistral.sse")))
	_, msg := stream(t, m, nil)
	want := []ai.Content{
		{Type: ai.TypeThinking, Thinking: "The user greets me; answer briefly."},
		{Type: ai.TypeText, Text: "Hello! How can I help?"},
	}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if msg.StopReason != ai.StopStop || msg.Usage.Output != 46 {
		t.Errorf("stop %s usage %+v", msg.StopReason, msg.Usage)
	}
}

func TestReasoningInTwoFieldsCountsOnce(t *testing.T) {
	info := ai.Info{ID: "Qwen/Qwen3-8B", Provider: "vllm", API: API, Reasoning: true}
	_, m, _ := fixture(t, info, providertest.SSE(providertest.File(t, "testdata/vllm_reasoning.sse")))
	evs, msg := stream(t, m, nil)
	want := []ai.Content{
		{Type: ai.TypeThinking, Thinking: "Okay, the user says hi.", ThinkingSignature: "reasoning_content"},
		{Type: ai.TypeText, Text: "Hi!"},
	}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	n := 0
	for _, e := range evs {
		if e.Type == ai.EventThinkingDelta {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d thinking deltas, want 2", n)
	}
}

// count is an optional token count (pi 1.6's usage.reasoning).
func count(n int64) *int64 { return &n }

func TestUsageAsBilled(t *testing.T) {
	tests := []struct {
		file  string
		info  ai.Info
		want  ai.Usage
		price float64 // cost at the info's prices
	}{
		// xAI leaves the 94 reasoning tokens out of completion_tokens and
		// bills them as output.
		{"testdata/xai_usage.sse", ai.Info{ID: "grok-3-mini", Provider: "xai", API: API, Reasoning: true, Prices: ai.Prices{Input: 0.3, Output: 0.5, CacheRead: 0.075}},
			ai.Usage{Input: 26, CacheRead: 6, Output: 103, Reasoning: count(94), TotalTokens: 135}, (26*0.3 + 6*0.075 + 103*0.5) / 1e6},
		// Moonshot puts usage inside the choice, cache hits beside it.
		{"testdata/moonshot_usage.sse", ai.Info{ID: "kimi-k2-0905-preview", Provider: "moonshotai", API: API, Prices: ai.Prices{Input: 0.6, Output: 2.5, CacheRead: 0.15}},
			ai.Usage{Input: 195, CacheRead: 1024, Output: 4, Reasoning: count(0), TotalTokens: 1223}, (195*0.6 + 1024*0.15 + 4*2.5) / 1e6},
		// OpenRouter's completion_tokens include the reasoning tokens.
		{"testdata/openrouter_reasoning.sse", ai.Info{ID: "anthropic/claude-sonnet-4", Provider: "openrouter", API: API, Reasoning: true, Prices: ai.Prices{Input: 3, Output: 15}},
			ai.Usage{Input: 1830, Output: 72, Reasoning: count(31), TotalTokens: 1902}, (1830*3 + 72*15) / 1e6},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, m, _ := fixture(t, tt.info, providertest.SSE(providertest.File(t, tt.file)))
			_, msg := stream(t, m, nil)
			got := msg.Usage
			cost := got.Cost.Total
			got.Cost = ai.Cost{}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if d := cost - tt.price; d > 1e-12 || d < -1e-12 {
				t.Errorf("cost %v, want %v", cost, tt.price)
			}
		})
	}
}

func TestUsageRule(t *testing.T) {
	details := func(r int64) *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} {
		return &struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		}{r}
	}
	tests := []struct {
		name string
		u    usage
		out  int64
	}{
		{"OpenAI: included", usage{PromptTokens: 10, CompletionTokens: 500, TotalTokens: 510, CompletionTokensDetails: details(448)}, 500},
		{"xAI: total counts them apart", usage{PromptTokens: 10, CompletionTokens: 500, TotalTokens: 958, CompletionTokensDetails: details(448)}, 948},
		{"fewer completion than reasoning tokens", usage{PromptTokens: 10, CompletionTokens: 9, CompletionTokensDetails: details(94)}, 103},
		{"no total, completion covers reasoning", usage{PromptTokens: 10, CompletionTokens: 120, CompletionTokensDetails: details(94)}, 120},
		{"no reasoning", usage{PromptTokens: 10, CompletionTokens: 9, TotalTokens: 19}, 9},
	}
	for _, tt := range tests {
		if got := tt.u.tokens(); got.Output != tt.out || got.TotalTokens != tt.u.PromptTokens+tt.out {
			t.Errorf("%s: output %d total %d, want output %d", tt.name, got.Output, got.TotalTokens, tt.out)
		}
	}
}

func TestThinkingSignatureJSONSurvivesTheSession(t *testing.T) {
	c := ai.Content{Type: ai.TypeToolCall, ID: "c", Name: "read", Arguments: json.RawMessage(`{}`),
		Extra: map[string]json.RawMessage{thoughtSignatureKey: json.RawMessage(`"sig=="`)}}
	b, err := json.Marshal(c)
	if err != nil || !strings.Contains(string(b), `"thoughtSignature":"sig=="`) {
		t.Fatalf("marshal %s %v", b, err)
	}
	var back ai.Content
	if err := json.Unmarshal(b, &back); err != nil || string(back.Extra[thoughtSignatureKey]) != `"sig=="` {
		t.Fatalf("unmarshal %+v %v", back, err)
	}
}

// Groq reports usage in x_groq on the chunk that finishes, beside timings
// of its own.
func TestGroqUsageInXGroq(t *testing.T) {
	info := ai.Info{ID: "llama-3.3-70b-versatile", Provider: "groq", API: API, Prices: ai.Prices{Input: 0.59, Output: 0.79}}
	_, m, _ := fixture(t, info, providertest.SSE(providertest.File(t, "testdata/groq_tools.sse")))
	_, msg := stream(t, m, nil)
	want := []ai.Content{{Type: ai.TypeToolCall, ID: "call_g7k2", Name: "bash", Arguments: json.RawMessage(`{"command":"echo groq > out.txt"}`)}}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if msg.StopReason != ai.StopToolUse || msg.Usage.Input != 412 || msg.Usage.Output != 23 || msg.Usage.TotalTokens != 435 || msg.Usage.Cost.Total == 0 {
		t.Errorf("stop %s usage %+v", msg.StopReason, msg.Usage)
	}
}

// Azure OpenAI starts with a chunk of prompt filter results and no
// choices, and puts content filter results in every choice; the usage
// chunk comes after the finish.
func TestAzureFilterResults(t *testing.T) {
	info := ai.Info{ID: "gpt-4.1", Provider: "azure", API: API}
	_, m, _ := fixture(t, info, providertest.SSE(providertest.File(t, "testdata/azure_text.sse")))
	_, msg := stream(t, m, nil)
	if msg.Text() != "Hello from Azure." || msg.StopReason != ai.StopStop {
		t.Fatalf("text %q stop %s error %q", msg.Text(), msg.StopReason, msg.ErrorMessage)
	}
	if msg.Usage.Input != 296 || msg.Usage.CacheRead != 1024 || msg.Usage.Output != 5 {
		t.Errorf("usage %+v", msg.Usage)
	}
}
