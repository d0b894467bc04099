package responses

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
// of message, signatures of every shape and tool call arguments of every
// shape.
func sampleRequest(info ai.Info, s string, variant int) *ai.Request {
	quoted, _ := json.Marshal(s)
	args := []string{`{"path": ` + string(quoted) + ` }`, "", "not json " + s, `[1, 2]`,
		` { "nested" : { "a" : [1, 2.50, -3e10, true, null, "<&>"] } } `, `{"raw":"` + s + `"}`}
	var calls []ai.Content
	var results []ai.Message
	for i, a := range args {
		id := "call_" + string(rune('a'+i)) + s + "|fc_" + s
		if i%2 == 1 {
			id = "toolu_" + s // another provider's call: no item id
		}
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
	item := `{"id":"rs_` + strings.Trim(string(quoted), `"`) + `","type":"reasoning","summary":[{"type":"summary_text","text":` +
		string(quoted) + `}],"encrypted_content":` + string(quoted) + `}`
	sigs := []string{item, `{"id":"rs_1","type":"reasoning","summary":[]}`, "not json " + s, "", `{"type":"message"}`}
	textSigs := []string{`{"v":1,"id":"msg_` + strings.Trim(string(quoted), `"`) + `","phase":"commentary"}`, "msg_plain", "", strings.Repeat("x", 70), `{"v":2}`}
	own := ai.Message{Role: ai.RoleAssistant, API: info.API, Provider: info.Provider, Model: info.ID, StopReason: ai.StopToolUse,
		Content: append([]ai.Content{
			{Type: ai.TypeThinking, Thinking: "plan " + s, ThinkingSignature: sigs[variant%len(sigs)]},
			{Type: ai.TypeText, Text: s, TextSignature: textSigs[variant%len(textSigs)]},
			ai.TextContent("more " + s),
		}, calls...)}
	msgs := []ai.Message{
		ai.UserText(s, 1),
		{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent(s), ai.TextContent("line two")}},
		{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent(s), ai.ImageContent(s, "image/"+s), ai.TextContent("")}},
		{Role: ai.RoleAssistant, API: "anthropic-messages", Provider: "anthropic", Model: "claude", StopReason: ai.StopStop,
			Content: []ai.Content{{Type: ai.TypeThinking, Thinking: "foreign " + s, ThinkingSignature: "sig"}, ai.TextContent(s)}},
		{Role: ai.RoleAssistant, API: info.API, Provider: info.Provider, Model: info.ID, StopReason: ai.StopLength,
			Content: []ai.Content{{Type: ai.TypeThinking, Thinking: "only thoughts " + s, ThinkingSignature: item}}},
		ai.UserText("next", 2),
		own,
	}
	msgs = append(msgs, results...)
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

// TestBodyMatchesEncodingJSON holds the writer to encoding/json over
// requests with every kind of item, every option and awkward strings.
func TestBodyMatchesEncodingJSON(t *testing.T) {
	temps := []*float64{nil, new(0.2), new(0.0), new(1e-7), new(1e21), new(123456789.125)}
	infos := []ai.Info{codex, {ID: "o3-pro", Provider: "openai", API: API, Reasoning: true}, {ID: "gpt-4.1", Provider: "proxy", API: API}}
	levels := []ai.ThinkingLevel{ai.ThinkingOff, ai.ThinkingMinimal, ai.ThinkingHigh, ai.ThinkingXHigh, ""}
	n := 0
	for _, s := range providertest.SampleTexts {
		for _, info := range infos {
			for range 5 {
				req := sampleRequest(info, s, n)
				req.Thinking = levels[n%len(levels)]
				req.Temperature = temps[n%len(temps)]
				req.MaxTokens = []int{0, 1000, -3}[n%3]
				if n%2 == 0 {
					req.OutputSchema = json.RawMessage(`{"type": "object", "properties": {"v": {"enum": ["<a>", "\u2028"]}}}`)
				}
				n++
				r := newRequest(info, req)
				checkBody(t, r, providertest.Requotes(s))
				if body, err := r.encode(); err == nil && len(body) > r.size() && !providertest.Requotes(s) {
					t.Errorf("%q: body of %d bytes outgrew its estimate of %d", s, len(body), r.size())
				}
			}
		}
	}
}

// TestBodyEdgeShapesMatchEncodingJSON covers shapes buildBody never makes:
// nil and empty values, items of types the writer does not know, raw JSON
// to compact or to reject, numbers encoding/json refuses.
func TestBodyEdgeShapesMatchEncodingJSON(t *testing.T) {
	type other struct {
		Type string `json:"type"`
		Note string `json:"note,omitempty"`
	}
	ws := json.RawMessage(" { \"a\" : \"<&> \\\" \\u2028 x\" ,\n\t\"b\" : [ 1 , 2.0 , {} ] } \n")
	reqs := map[string]*request{
		"zero":  {},
		"empty": {Input: []any{}, Include: []string{}, Tools: []tool{}, Reasoning: &reasoning{}},
		"items": {Input: []any{
			inputMessage{}, inputMessage{Role: "user", Content: []any{}}, inputMessage{Content: []any{textPart{}, imagePart{}, other{Type: "<x>"}, nil}},
			outputMessage{}, outputMessage{Content: []outputText{{}, {Annotations: []struct{}{}}, {Annotations: make([]struct{}, 2)}}, Phase: "<p>"},
			reasoningItem{}, reasoningItem{Summary: []textPart{}}, reasoningItem{Summary: []textPart{{Type: "summary_text", Text: "<t>"}, {}}, EncryptedContent: "e"},
			functionCall{}, functionCall{ID: "fc", CallID: "c", Name: "n", Arguments: "{\"a\": 1}"}, functionOutput{}, functionOutput{CallID: "c", Output: "<o>"},
			textPart{Type: "t"}, imagePart{ImageURL: "u"}, other{Type: "x"}, &other{Type: "ptr"}, (*other)(nil), nil, 1.5, "s", []string{"a"},
			map[string]any{"k": []any{1, "v"}},
		}},
		"options":             {Model: "<m>", Instructions: "<i>", Stream: true, Store: true, Include: []string{"a", "<b>"}, MaxOutputTokens: -1, Reasoning: &reasoning{Effort: "<e>"}},
		"summary only":        {Reasoning: &reasoning{Summary: "auto"}},
		"raw whitespace":      {Tools: []tool{{Parameters: ws}, {Type: "function", Name: "n", Description: "d", Strict: true}}},
		"raw scalar":          {Tools: []tool{{Parameters: json.RawMessage(" \"s\" ")}, {Parameters: json.RawMessage("12 ")}}},
		"raw empty":           {Tools: []tool{{Parameters: json.RawMessage{}}}},
		"raw invalid":         {Tools: []tool{{Parameters: json.RawMessage(`{"a":`)}}},
		"raw trailing":        {Tools: []tool{{Parameters: json.RawMessage(`{} {}`)}}},
		"unmarshalable":       {Input: []any{make(chan int)}},
		"text format":         {Text: &textFormat{Format: formatSchema{Type: "json_schema", Name: "n<>", Schema: ws}}},
		"text format invalid": {Text: &textFormat{Format: formatSchema{Schema: json.RawMessage(`{"a":`)}}},
		"temperature NaN":     {Temperature: new(math.NaN())},
		"temperature Inf":     {Temperature: new(math.Inf(1))},
		"temperature min":     {Temperature: new(5e-324)},
		"temperature max":     {Temperature: new(-math.MaxFloat64)},
	}
	for name, r := range reqs {
		t.Run(name, func(t *testing.T) { checkBody(t, r, false) })
	}
}

func TestBuildBodyInvalidSchemaIsAnError(t *testing.T) {
	_, err := buildBody(codex, &ai.Request{
		Messages: []ai.Message{ai.UserText("q", 1)},
		Tools:    []ai.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"type":`)}},
	})
	if err == nil || !strings.Contains(err.Error(), "encode responses request: json: error calling MarshalJSON for type json.RawMessage") {
		t.Fatalf("err = %v", err)
	}
}

func TestBodyEstimateCoversLongHistory(t *testing.T) {
	info := codex
	r := newRequest(info, providertest.BenchRequest(info, 2000, "call_"))
	body, err := r.encode()
	if err != nil {
		t.Fatal(err)
	}
	est := r.size()
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
		req := sampleRequest(codex, text, len(args))
		req.Messages = append(req.Messages,
			ai.Message{Role: ai.RoleAssistant, API: API, Provider: codex.Provider, Model: codex.ID, StopReason: ai.StopToolUse,
				Content: []ai.Content{{Type: ai.TypeThinking, ThinkingSignature: args}, ai.ToolCallContent("id|"+text, "t", json.RawMessage(args))}},
			ai.Message{Role: ai.RoleToolResult, ToolCallID: "id|" + text, Content: []ai.Content{ai.TextContent(args)}})
		req.Tools = append(req.Tools, ai.ToolSpec{Name: text, Parameters: json.RawMessage(args)})
		req.Thinking = ai.ThinkingLevel(text)
		requoted := providertest.Requotes(text) || providertest.Requotes(args)
		checkBody(t, newRequest(codex, req), requoted)
		raw := &request{Model: text, Input: []any{functionCall{Type: "function_call", ID: text, CallID: text, Name: text, Arguments: args},
			outputMessage{Type: "message", Content: []outputText{{Text: args}}, ID: text}}}
		checkBody(t, raw, requoted)
	})
}
