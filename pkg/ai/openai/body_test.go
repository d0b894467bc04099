package openai

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

// checkBody holds r's body to encoding/json's: the same error, or valid
// JSON with the same value and the same bytes (requoted strings aside,
// allowed only when requoted is set).
func checkBody(t testing.TB, r *request, requoted bool) {
	t.Helper()
	providertest.CheckBody(t, r, r.encode, requoted)
}

// sampleRequest puts s in every string a request carries, with every kind
// of message and tool call arguments of every shape.
func sampleRequest(info ai.Info, s string, variant int) *ai.Request {
	quoted, _ := json.Marshal(s)
	args := []string{
		`{"path": ` + string(quoted) + ` }`,
		"",
		"not json " + s,
		`[1, 2]`,
		` { "nested" : { "a" : [1, 2.50, -3e10, true, null, "<&>"] } } `,
		`{"raw":"` + s + `"}`,
	}
	var calls []ai.Content
	var results []ai.Message
	for i, a := range args {
		id := "call|" + string(rune('a'+i)) + s
		calls = append(calls, ai.ToolCallContent(id, "tool "+s, json.RawMessage(a)))
		res := ai.Message{Role: ai.RoleToolResult, ToolCallID: id, ToolName: "tool " + s, IsError: i%2 == 1,
			Content: []ai.Content{ai.TextContent(s), ai.TextContent("second")}}
		switch i % 3 {
		case 0:
			res.Content = append(res.Content, ai.ImageContent("iVBOR"+s, "image/png"))
		case 1:
			res.Content = []ai.Content{ai.ImageContent("AAAA", "image/"+s)}
		}
		if i == 4 {
			res.Content = nil
		}
		results = append(results, res)
	}
	field := []string{"reasoning_content", "reasoning", "", "other"}[variant%4]
	own := ai.Message{Role: ai.RoleAssistant, API: info.API, Provider: info.Provider, Model: info.ID, StopReason: ai.StopToolUse,
		Content: append([]ai.Content{
			{Type: ai.TypeThinking, Thinking: "plan " + s, ThinkingSignature: field},
			{Type: ai.TypeThinking, Thinking: "opaque " + s, ThinkingSignature: "sig", Redacted: true},
			{Type: ai.TypeThinking, Thinking: s, ThinkingSignature: "reasoning"},
			ai.TextContent(s),
			ai.TextContent("more " + s),
		}, calls...)}
	msgs := []ai.Message{
		ai.UserText(s, 1),
		{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent(s), ai.TextContent("line two")}},
		{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent(s), ai.ImageContent(s, "image/"+s), ai.TextContent("")}},
		{Role: ai.RoleAssistant, API: "anthropic-messages", Provider: "anthropic", Model: "claude", StopReason: ai.StopStop,
			Content: []ai.Content{{Type: ai.TypeThinking, Thinking: "foreign " + s, ThinkingSignature: "sig"}, ai.TextContent(s)}},
		{Role: ai.RoleAssistant, API: info.API, Provider: info.Provider, Model: info.ID, StopReason: ai.StopStop,
			Content: []ai.Content{{Type: ai.TypeThinking, Thinking: "only thoughts " + s, ThinkingSignature: field}}},
		ai.UserText("next", 2),
		own,
	}
	msgs = append(msgs, results...)
	if variant%2 == 1 {
		msgs = append(msgs, ai.Message{Role: ai.RoleAssistant, API: info.API, Provider: info.Provider, Model: info.ID,
			StopReason: ai.StopToolUse, Content: []ai.Content{ai.TextContent("  "), ai.ToolCallContent("lone", "ls", nil)}})
	}
	return &ai.Request{
		SystemPrompt: s,
		Messages:     msgs,
		Tools: []ai.ToolSpec{
			{Name: "ls " + s, Description: "List " + s + ".", Parameters: json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\"p\": {\"type\": \"string\"}}\n}")},
			{Name: "none"},
			{Name: "null", Description: s, Parameters: json.RawMessage("null")},
		},
	}
}

var sampleQuirks = []Quirks{
	DefaultQuirks(""),
	DefaultQuirks("https://api.mistral.ai/v1"),
	DefaultQuirks("https://api.x.ai/v1"),
	DefaultQuirks("https://api.groq.com/openai/v1"),
	DefaultQuirks("http://localhost:8080/v1"),
	{},
	{SystemRole: "<role>", MaxTokensField: "max_completion_tokens", ToolResultName: true, ReasoningEffort: true, ThinkingAsText: true},
}

// TestBodyMatchesEncodingJSON holds the writer to encoding/json over
// requests with every kind of block, every option and awkward strings.
func TestBodyMatchesEncodingJSON(t *testing.T) {
	temps := []*float64{nil, new(0.2), new(0.0), new(1.0), new(-1.5), new(1e-7), new(1e21), new(123456789.125)}
	infos := []ai.Info{
		{ID: "gpt-5.2", Provider: "openai", API: API, Reasoning: true},
		{ID: "o3", Provider: "openai", API: API, Reasoning: true},
		gpt41,
	}
	levels := []ai.ThinkingLevel{ai.ThinkingOff, ai.ThinkingMinimal, ai.ThinkingHigh, ai.ThinkingXHigh, ""}
	n := 0
	for _, s := range providertest.SampleTexts {
		for _, info := range infos {
			for _, q := range sampleQuirks {
				req := sampleRequest(info, s, n)
				req.Thinking = levels[n%len(levels)]
				req.Temperature = temps[n%len(temps)]
				req.MaxTokens = []int{0, 1000, -3}[n%3]
				if n%2 == 0 {
					req.OutputSchema = json.RawMessage(`{"type": "object", "properties": {"v": {"enum": ["<a>", "\u2028"]}}}`)
				}
				n++
				r := newRequest(info, q, req)
				checkBody(t, r, providertest.Requotes(s))
				if body, err := r.encode(); err == nil && len(body) > r.size() && !providertest.Requotes(s) {
					t.Errorf("%q: body of %d bytes outgrew its estimate of %d", s, len(body), r.size())
				}
			}
		}
	}
}

// TestBodyEdgeShapesMatchEncodingJSON covers shapes buildBody never makes:
// nil and empty values, unknown block types, raw JSON to compact or to
// reject, numbers encoding/json refuses.
func TestBodyEdgeShapesMatchEncodingJSON(t *testing.T) {
	type other struct {
		Type string `json:"type"`
		Note string `json:"note,omitempty"`
	}
	ws := json.RawMessage(" { \"a\" : \"<&> \\\" \\u2028 x\" ,\n\t\"b\" : [ 1 , 2.0 , {} ] } \n")
	reqs := map[string]*request{
		"zero": {},
		"content shapes": {Messages: []message{
			{Role: "user"}, {Content: ""}, {Content: []part(nil)}, {Content: []part{}},
			{Content: []part{{}, {Type: "text", Text: "<t>"}, {Type: "image_url", ImageURL: &imageURL{}}}},
			{Content: []string{"a", "<b>"}}, {Content: other{Type: "x<y>"}}, {Content: (*other)(nil)}, {Content: 1.5},
			{Content: map[string]any{"k": []any{1, "v"}}},
		}},
		"optional fields": {Messages: []message{
			{Role: "tool", Name: "n<>", ToolCallID: "id", ReasoningContent: "rc", Reasoning: "r"},
			{Role: "assistant", ToolCalls: []toolCall{{}, {ID: "i", Type: "function", Function: functionCall{Name: "f", Arguments: "{\"a\": 1}"}}}},
			{ToolCalls: []toolCall{}},
		}},
		"empty slices":            {Messages: []message{}, Tools: []tool{}},
		"stream options":          {StreamOptions: &streamOptions{}, Stream: true, MaxTokens: -1, MaxCompletionTokens: 7, ReasoningEffort: "<e>"},
		"raw whitespace":          {Tools: []tool{{Function: functionSpec{Parameters: ws}}, {Type: "function", Function: functionSpec{Name: "n", Description: "d"}}}},
		"raw scalar":              {Tools: []tool{{Function: functionSpec{Parameters: json.RawMessage(" \"s\" ")}}, {Function: functionSpec{Parameters: json.RawMessage("12 ")}}}},
		"raw empty":               {Tools: []tool{{Function: functionSpec{Parameters: json.RawMessage{}}}}},
		"raw invalid":             {Tools: []tool{{Function: functionSpec{Parameters: json.RawMessage(`{"a":`)}}}},
		"raw trailing":            {Tools: []tool{{Function: functionSpec{Parameters: json.RawMessage(`{} {}`)}}}},
		"response format":         {ResponseFormat: &responseFormat{Type: "json_schema", JSONSchema: jsonSchema{Name: "n<>", Schema: ws}}},
		"response format invalid": {ResponseFormat: &responseFormat{JSONSchema: jsonSchema{Schema: json.RawMessage(`{"a":`)}}},
		"temperature NaN":         {Temperature: new(math.NaN())},
		"temperature Inf":         {Temperature: new(math.Inf(1))},
		"temperature min":         {Temperature: new(5e-324)},
		"temperature max":         {Temperature: new(-math.MaxFloat64)},
	}
	for name, r := range reqs {
		t.Run(name, func(t *testing.T) { checkBody(t, r, false) })
	}
}

func TestBuildBodyInvalidSchemaIsAnError(t *testing.T) {
	_, err := buildBody(gpt41, DefaultQuirks(""), &ai.Request{
		Messages: []ai.Message{ai.UserText("q", 1)},
		Tools:    []ai.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"type":`)}},
	})
	if err == nil || !strings.Contains(err.Error(), "encode chat completions request: json: error calling MarshalJSON for type json.RawMessage") {
		t.Fatalf("err = %v", err)
	}
}

func TestBodyEstimateCoversLongHistory(t *testing.T) {
	info := ai.Info{ID: "gpt-5", Provider: "openai", API: API, Reasoning: true}
	r := newRequest(info, DefaultQuirks(""), providertest.BenchRequest(info, 2000, "call_"))
	body, err := r.encode()
	if err != nil {
		t.Fatal(err)
	}
	est := r.size()
	t.Logf("estimate %d for a body of %d bytes", est, len(body))
	if len(body) > est || est > len(body)+len(body)/10 {
		t.Errorf("estimate %d for a body of %d bytes", est, len(body))
	}
	checkBody(t, r, false)
}

// FuzzAppendRequest feeds random text and tool arguments through both
// the conversion and the writer alone.
func FuzzAppendRequest(f *testing.F) {
	for _, s := range providertest.SampleTexts {
		f.Add(s, `{"path": "`+s+`"}`)
	}
	f.Add("x", ` { "a" : [ 1 , "\u2028" ] } `)
	f.Add("y", `{"a":`)
	f.Fuzz(func(t *testing.T, text, args string) {
		info := ai.Info{ID: "gpt-5", Provider: "openai", API: API, Reasoning: true}
		req := sampleRequest(info, text, len(args))
		req.Messages = append(req.Messages,
			ai.Message{Role: ai.RoleAssistant, API: API, Provider: info.Provider, Model: info.ID, StopReason: ai.StopToolUse,
				Content: []ai.Content{ai.ToolCallContent("id", "t", json.RawMessage(args))}},
			ai.Message{Role: ai.RoleToolResult, ToolCallID: "id", Content: []ai.Content{ai.TextContent(args)}})
		req.Tools = append(req.Tools, ai.ToolSpec{Name: text, Parameters: json.RawMessage(args)})
		req.Thinking = ai.ThinkingLevel(text)
		requoted := providertest.Requotes(text) || providertest.Requotes(args)
		checkBody(t, newRequest(info, sampleQuirks[len(text)%len(sampleQuirks)], req), requoted)
		raw := &request{Model: text, Messages: []message{{Role: "assistant", Content: args, ToolCalls: []toolCall{
			{ID: text, Type: "function", Function: functionCall{Name: text, Arguments: args}},
		}}}}
		checkBody(t, raw, requoted)
	})
}
