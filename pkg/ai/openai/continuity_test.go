package openai

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

// What a server asks to have sent back with the assistant turn comes
// back, from the session as pi stores it.

func TestOpenRouterReasoningDetailsGoBack(t *testing.T) {
	info := ai.Info{ID: "anthropic/claude-sonnet-4", Provider: "openrouter", API: API, Reasoning: true}
	srv, m, _ := fixture(t, info,
		providertest.SSE(providertest.File(t, "testdata/openrouter_reasoning.sse")),
		providertest.SSE(providertest.File(t, "testdata/text.sse")))
	_, msg := stream(t, m, nil)

	details := `[{"type":"reasoning.text","text":"I should read the file.","format":"anthropic-claude-v1","index":0,"signature":"ErUBCkYIBRgCIkD3kq"}]`
	want := []ai.Content{
		{Type: ai.TypeThinking, Thinking: "I should read the file.", ThinkingSignature: details},
		{Type: ai.TypeText, Text: "Reading it."},
		{Type: ai.TypeToolCall, ID: "toolu_vrtx_01PqR7sT8uV9wX", Name: "read", Arguments: json.RawMessage(`{"path": "main.go"}`)},
	}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Fatalf("content (-want +got):\n%s", diff)
	}
	msg = sessionRoundTrip(t, msg)
	next := &ai.Request{Messages: []ai.Message{ai.UserText("hi", 1), msg,
		{Role: ai.RoleToolResult, ToolCallID: "toolu_vrtx_01PqR7sT8uV9wX", ToolName: "read", Content: []ai.Content{ai.TextContent("package main")}}}}
	stream(t, m, next)
	providertest.AssertJSON(t, `{"model":"anthropic/claude-sonnet-4","stream":true,"stream_options":{"include_usage":true},"messages":[
		{"role":"user","content":"hi"},
		{"role":"assistant","content":"Reading it.","reasoning_details":`+details+`,
		 "tool_calls":[{"id":"toolu_vrtx_01PqR7sT8uV9wX","type":"function","function":{"name":"read","arguments":"{\"path\":\"main.go\"}"}}]},
		{"role":"tool","content":"package main","tool_call_id":"toolu_vrtx_01PqR7sT8uV9wX"}]}`, srv.Requests()[1].Body)
}

// Encrypted reasoning with no text (OpenAI's models through OpenRouter)
// still gets a thinking block to carry it.
func TestReasoningDetailsWithoutText(t *testing.T) {
	s := `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Done.","reasoning_details":[{"type":"reasoning.encrypted","data":"gAAAAB","id":"rs_1","format":"openai-responses-v1","index":0}]},"finish_reason":null}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"xyz=","index":0}]},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
	info := ai.Info{ID: "openai/o4-mini", Provider: "openrouter", API: API, Reasoning: true}
	srv, m, _ := fixture(t, info, providertest.SSE(s), providertest.SSE(providertest.File(t, "testdata/text.sse")))
	_, msg := stream(t, m, nil)
	details := `[{"type":"reasoning.encrypted","data":"gAAAABxyz=","id":"rs_1","format":"openai-responses-v1","index":0}]`
	want := []ai.Content{{Type: ai.TypeText, Text: "Done."}, {Type: ai.TypeThinking, ThinkingSignature: details}}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Fatalf("content (-want +got):\n%s", diff)
	}
	stream(t, m, &ai.Request{Messages: []ai.Message{ai.UserText("hi", 1), sessionRoundTrip(t, msg), ai.UserText("again", 2)}})
	providertest.AssertJSON(t, `{"model":"openai/o4-mini","stream":true,"stream_options":{"include_usage":true},"messages":[
		{"role":"user","content":"hi"},{"role":"assistant","content":"Done.","reasoning_details":`+details+`},{"role":"user","content":"again"}]}`,
		srv.Requests()[1].Body)
}

func TestGeminiThoughtSignatureGoesBackOnItsCall(t *testing.T) {
	info := ai.Info{ID: "gemini-2.5-flash", Provider: "google", API: API, Reasoning: true}
	srv, m, _ := fixture(t, info,
		providertest.SSE(providertest.File(t, "testdata/gemini_tools.sse")),
		providertest.SSE(providertest.File(t, "testdata/text.sse")))
	_, msg := stream(t, m, nil)

	sig := "CpUCAdHtim9sQ0ZXm1v+Y0tKx2b3c4d5e6f7g8h9i0jklmnoPQRS=="
	want := []ai.Content{
		{Type: ai.TypeText, Text: "I'll look at both."},
		{Type: ai.TypeToolCall, ID: "call_1700000000000_0", Name: "read", Arguments: json.RawMessage(`{"path":"go.mod"}`),
			Extra: map[string]json.RawMessage{"thoughtSignature": json.RawMessage(`"` + sig + `"`)}},
		{Type: ai.TypeToolCall, ID: "call_1700000000000_1", Name: "read", Arguments: json.RawMessage(`{"path":"go.sum"}`)},
	}
	if diff := cmp.Diff(want, msg.Content); diff != "" {
		t.Fatalf("content (-want +got):\n%s", diff)
	}
	if msg.StopReason != ai.StopToolUse {
		t.Errorf("stop %s: a finish_reason of stop with calls is a tool turn", msg.StopReason)
	}
	msg = sessionRoundTrip(t, msg)
	results := []ai.Message{
		{Role: ai.RoleToolResult, ToolCallID: "call_1700000000000_0", ToolName: "read", Content: []ai.Content{ai.TextContent("module x")}},
		{Role: ai.RoleToolResult, ToolCallID: "call_1700000000000_1", ToolName: "read", Content: []ai.Content{ai.TextContent("")}},
	}
	stream(t, m, &ai.Request{Messages: append([]ai.Message{ai.UserText("hi", 1), msg}, results...)})
	providertest.AssertJSON(t, `{"model":"gemini-2.5-flash","stream":true,"stream_options":{"include_usage":true},"messages":[
		{"role":"user","content":"hi"},
		{"role":"assistant","content":"I'll look at both.","tool_calls":[
			{"id":"call_1700000000000_0","type":"function","function":{"name":"read","arguments":"{\"path\":\"go.mod\"}"},"extra_content":{"google":{"thought_signature":"`+sig+`"}}},
			{"id":"call_1700000000000_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"go.sum\"}"}}]},
		{"role":"tool","content":"module x","tool_call_id":"call_1700000000000_0"},
		{"role":"tool","content":"","tool_call_id":"call_1700000000000_1"}]}`, srv.Requests()[1].Body)

	// Another model gets neither the signature nor the reasoning details.
	other := ai.Info{ID: "gpt-4.1", Provider: "openai", API: API}
	body, err := buildBody(other, DefaultQuirks(""), &ai.Request{Messages: append([]ai.Message{ai.UserText("hi", 1), msg}, results...)})
	if err != nil || strings.Contains(string(body), "extra_content") || strings.Contains(string(body), sig) {
		t.Errorf("body for another model: %s %v", body, err)
	}
}

// A session written by pi versions that kept OpenRouter's encrypted
// reasoning on the tool call it belongs to, or one detail object in a
// thinking signature, sends them back as reasoning_details.
func TestPiToolCallReasoningDetailGoesBack(t *testing.T) {
	info := ai.Info{ID: "google/gemini-2.5-pro", Provider: "openrouter", API: API}
	detail := `{"type":"reasoning.encrypted","data":"CiQB","id":"tool_read_1","format":"google-gemini-v1","index":0}`
	text := `{"type":"reasoning.text","text":"plan","format":"google-gemini-v1","index":0}`
	line := `{"role":"assistant","content":[{"type":"thinking","thinking":"plan","thinkingSignature":` + string(pijson.AppendString(nil, text)) + `},{"type":"toolCall","id":"tool_read_1","name":"read","arguments":{"path":"a"},"thoughtSignature":` +
		string(pijson.AppendString(nil, detail)) + `}],"api":"openai-completions","provider":"openrouter","model":"google/gemini-2.5-pro","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1}`
	var msg ai.Message
	if err := json.Unmarshal([]byte(line), &msg); err != nil {
		t.Fatal(err)
	}
	body, err := buildBody(info, DefaultQuirks("https://openrouter.ai/api/v1"), &ai.Request{Messages: []ai.Message{ai.UserText("hi", 1), msg,
		{Role: ai.RoleToolResult, ToolCallID: "tool_read_1", ToolName: "read", Content: []ai.Content{ai.TextContent("x")}}}})
	if err != nil {
		t.Fatal(err)
	}
	providertest.AssertJSON(t, `{"model":"google/gemini-2.5-pro","stream":true,"stream_options":{"include_usage":true},"messages":[
		{"role":"user","content":"hi"},
		{"role":"assistant","content":null,"reasoning_details":[`+text+`,`+detail+`],
		 "tool_calls":[{"id":"tool_read_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]},
		{"role":"tool","content":"x","tool_call_id":"tool_read_1"}]}`, body)
}

// sessionRoundTrip passes msg through its JSON form, as a resumed session
// reads it back.
func sessionRoundTrip(t *testing.T, msg ai.Message) ai.Message {
	t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var back ai.Message
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

func TestForeignToolCallIDs(t *testing.T) {
	respID := "call_Kq3xT9mLp2vB8nR4wZ6yA1cD|fc_68a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f607182" + strings.Repeat("x/+=", 80)
	antID := "toolu_01A09q90qw90lq917835lq9"
	history := []ai.Message{
		ai.UserText("go", 1),
		{Role: ai.RoleAssistant, API: "openai-responses", Provider: "openai", Model: "gpt-5-codex", StopReason: ai.StopToolUse,
			Content: []ai.Content{ai.ToolCallContent(respID, "ls", nil), ai.ToolCallContent(respID+"2", "ls", nil)}},
		{Role: ai.RoleToolResult, ToolCallID: respID, ToolName: "ls", Content: []ai.Content{ai.TextContent("a")}},
		{Role: ai.RoleToolResult, ToolCallID: respID + "2", ToolName: "ls", Content: []ai.Content{ai.TextContent("b")}},
		{Role: ai.RoleAssistant, API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: ai.StopToolUse,
			Content: []ai.Content{ai.ToolCallContent(antID, "ls", nil)}},
		{Role: ai.RoleToolResult, ToolCallID: antID, ToolName: "ls", Content: []ai.Content{ai.TextContent("c")}},
	}
	tests := []struct {
		base string
		ok   *regexp.Regexp
	}{
		{"", regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)},
		{"https://api.mistral.ai/v1", regexp.MustCompile(`^[A-Za-z0-9]{9}$`)},
	}
	for _, tt := range tests {
		body, err := buildBody(gpt41, DefaultQuirks(tt.base), &ai.Request{Messages: history})
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Messages []struct {
				ToolCalls []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
				ToolCallID string `json:"tool_call_id"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		var calls, results []string
		for _, m := range r.Messages {
			for _, c := range m.ToolCalls {
				calls = append(calls, c.ID)
			}
			if m.ToolCallID != "" {
				results = append(results, m.ToolCallID)
			}
		}
		if diff := cmp.Diff(calls, results); diff != "" || len(calls) != 3 {
			t.Errorf("%q: calls and results do not match (-calls +results):\n%s", tt.base, diff)
		}
		for _, id := range calls {
			if !tt.ok.MatchString(id) {
				t.Errorf("%q: id %q is not one the server takes", tt.base, id)
			}
		}
		if calls[0] == calls[1] {
			t.Errorf("%q: two ids became one: %q", tt.base, calls[0])
		}
		if tt.base == "" && (calls[2] != antID || !strings.HasPrefix(calls[0], "call_Kq3xT9mLp2vB8nR4wZ6yA1cD_f_")) {
			t.Errorf("ids %q: a valid id is kept, a long one keeps its head", calls)
		}
	}
}

// Gemini 3 checks the thought signature of the first call of every step in
// the current turn. A call of another model has none to give, so it goes
// with the placeholder Google documents; earlier turns, later calls of a
// step, calls with their own signature and older Gemini models are left
// as they are.
func TestGeminiThreePlaceholderSignatureInTheCurrentTurn(t *testing.T) {
	sig := "CpUCAdHtim9sQ0ZX=="
	foreign := func(ids ...string) ai.Message {
		m := ai.Message{Role: ai.RoleAssistant, API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-6", StopReason: ai.StopToolUse}
		for _, id := range ids {
			m.Content = append(m.Content, ai.Content{Type: ai.TypeToolCall, ID: id, Name: "ls", Arguments: json.RawMessage(`{}`)})
		}
		return m
	}
	own := ai.Message{Role: ai.RoleAssistant, API: API, Provider: "google", Model: "gemini-3-pro-preview", StopReason: ai.StopToolUse,
		Content: []ai.Content{{Type: ai.TypeToolCall, ID: "call_own", Name: "ls", Arguments: json.RawMessage(`{}`),
			Extra: map[string]json.RawMessage{"thoughtSignature": json.RawMessage(`"` + sig + `"`)}}}}
	result := func(id string) ai.Message {
		return ai.Message{Role: ai.RoleToolResult, ToolCallID: id, ToolName: "ls", Content: []ai.Content{ai.TextContent("a.go")}}
	}
	history := []ai.Message{
		ai.UserText("earlier", 1), foreign("toolu_old"), result("toolu_old"),
		ai.UserText("now", 2), foreign("toolu_a", "toolu_b"), result("toolu_a"), result("toolu_b"),
		own, result("call_own"),
	}
	calls := func(id string) []toolCall {
		t.Helper()
		body, err := buildBody(ai.Info{ID: id, Provider: "google", API: API}, DefaultQuirks("https://generativelanguage.googleapis.com/v1beta/openai"), &ai.Request{Messages: history})
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Messages []message `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		var out []toolCall
		for _, m := range req.Messages {
			out = append(out, m.ToolCalls...)
		}
		return out
	}
	extra := func(s string) string {
		if s == "" {
			return ""
		}
		return `{"google":{"thought_signature":"` + s + `"}}`
	}
	got := calls("gemini-3-pro-preview")
	want := []string{"", extra(skipSignature), "", extra(sig)} // toolu_old, toolu_a, toolu_b, call_own
	if len(got) != len(want) {
		t.Fatalf("%d calls sent, want %d", len(got), len(want))
	}
	for i, c := range got {
		if string(c.ExtraContent) != want[i] {
			t.Errorf("call %d (%s): extra_content %s, want %q", i, c.ID, c.ExtraContent, want[i])
		}
	}
	for _, c := range calls("gemini-2.5-pro") {
		if c.ID != "call_own" && c.ExtraContent != nil {
			t.Errorf("gemini-2.5-pro: call %s sent with %s", c.ID, c.ExtraContent)
		}
	}
}

func TestGeminiThreeIDs(t *testing.T) {
	for id, want := range map[string]bool{
		"gemini-3-pro-preview": true, "gemini-3.1-flash-lite": true, "models/gemini-3-flash": true,
		"Gemini-3-Pro": true, "gemini-live-3-flash": true, "gemini-10-ultra": true,
		"gemini-2.5-pro": false, "gemini-2.0-flash": false, "gemini-exp-1206": false,
		"google/gemini-3-pro": false, "gemma-3-27b": false, "gemini-": false,
	} {
		if got := geminiThree(id); got != want {
			t.Errorf("geminiThree(%q) = %v, want %v", id, got, want)
		}
	}
}
