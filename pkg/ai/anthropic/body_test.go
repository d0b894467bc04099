package anthropic

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
	// The body's measure is the encoded length, or the same error.
	want, werr := r.encode()
	n, err := r.measure()
	if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) || (err == nil && n != len(want)) {
		t.Fatalf("measure = %d, %v; encode wrote %d bytes, %v", n, err, len(want), werr)
	}
	// What measuring recorded (texts that need no escape) changes no byte.
	if again, err := r.encode(); err == nil && string(again) != string(want) {
		t.Fatalf("encoded after measuring:\n%s\nbefore:\n%s", again, want)
	}
}

var (
	adaptiveInfo = ai.Info{ID: "claude-opus-4-6", Provider: "anthropic", API: API, Reasoning: true, MaxOutputTokens: 128000}
	plainInfo    = ai.Info{ID: "claude-3-5-haiku", Provider: "anthropic", API: API, MaxOutputTokens: 8192}
)

// sampleRequest puts s in every string a request carries, with every kind
// of block and tool call arguments of every shape.
func sampleRequest(info ai.Info, s string, lastUser int) *ai.Request {
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
		res := ai.Message{Role: ai.RoleToolResult, ToolCallID: id, ToolName: "tool", IsError: i%2 == 1,
			Content: []ai.Content{ai.TextContent(s)}}
		if i%3 == 0 {
			res.Content = append(res.Content, ai.ImageContent("iVBOR"+s, "image/png"))
		}
		if i == 4 {
			res.Content = nil
		}
		results = append(results, res)
	}
	own := ai.Message{Role: ai.RoleAssistant, API: info.API, Provider: info.Provider, Model: info.ID, StopReason: ai.StopToolUse,
		Content: append([]ai.Content{
			{Type: ai.TypeThinking, Thinking: "plan " + s, ThinkingSignature: "sig " + s},
			{Type: ai.TypeThinking, Thinking: RedactedThinkingText, ThinkingSignature: "opaque " + s, Redacted: true},
			{Type: ai.TypeThinking, Thinking: "old redacted " + s, Redacted: true},
			{Type: ai.TypeThinking, Thinking: "unsigned " + s},
			{Type: ai.TypeThinking, Thinking: s, ThinkingSignature: s},
			ai.TextContent(s),
		}, calls...)}
	foreign := ai.Message{Role: ai.RoleAssistant, API: "openai-completions", Provider: "openai", Model: "gpt-5", StopReason: ai.StopStop,
		Content: []ai.Content{{Type: ai.TypeThinking, Thinking: "foreign " + s, ThinkingSignature: "reasoning_content"}, ai.TextContent(s)}}
	msgs := []ai.Message{
		ai.UserText(s, 1),
		{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent(s), ai.ImageContent(s, "image/"+s), ai.TextContent("x")}},
		foreign,
		ai.UserText("next", 2),
		own,
	}
	msgs = append(msgs, results...)
	switch lastUser {
	case 1:
		msgs = append(msgs, ai.UserText("last "+s, 3))
	case 2:
		msgs = append(msgs, ai.Message{Role: ai.RoleUser, Content: []ai.Content{ai.ImageContent("AAAA", "image/jpeg")}})
	case 3:
		msgs = append(msgs, ai.Message{Role: ai.RoleAssistant, API: info.API, Provider: info.Provider, Model: info.ID,
			StopReason: ai.StopStop, Content: []ai.Content{ai.TextContent("done " + s)}})
	}
	return &ai.Request{
		SystemPrompt: s,
		Messages:     msgs,
		Tools: []ai.ToolSpec{
			{Name: "ls " + s, Description: "List " + s + ".", Parameters: json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\"p\": {\"type\": \"string\", \"description\": \"<" + strings.ReplaceAll(string(quoted), `"`, "") + ">\"}}\n}")},
			{Name: "none"},
			{Name: "null", Description: s, Parameters: json.RawMessage("null")},
		},
	}
}

// TestBodyMatchesEncodingJSON holds the writer to encoding/json over
// requests with every kind of block, every option and awkward strings.
func TestBodyMatchesEncodingJSON(t *testing.T) {
	temps := []*float64{nil, new(0.2), new(0.0), new(1.0), new(-1.5), new(1e-7), new(1e21), new(123456789.125)}
	infos := []ai.Info{sonnet, adaptiveInfo, plainInfo}
	levels := []ai.ThinkingLevel{ai.ThinkingOff, ai.ThinkingMinimal, ai.ThinkingHigh, ai.ThinkingXHigh}
	n := 0
	for _, s := range providertest.SampleTexts {
		for _, info := range infos {
			for _, noCache := range []bool{false, true} {
				for range 2 {
					req := sampleRequest(info, s, n/len(levels)%4)
					req.Thinking = levels[n%len(levels)]
					req.Temperature = temps[n%len(temps)]
					req.MaxTokens = []int{0, 1000, 100000}[n%3]
					if n%5 == 1 { // the answer tool and tool_choice (when thinking is off)
						req.OutputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)
					}
					n++
					r := newRequest(Config{Info: info, NoCache: noCache}, req)
					checkBody(t, r, providertest.Requotes(s))
					if body, err := r.encode(); err == nil && len(body) > r.size() && !providertest.Requotes(s) {
						t.Errorf("%q: body of %d bytes outgrew its estimate of %d", s, len(body), r.size())
					}
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
		"nil content and nil blocks": {Model: "m", Messages: []message{{Role: "user"}, {Role: "assistant", Content: []any{
			nil, (*textBlock)(nil), (*imageBlock)(nil), (*thinkingBlock)(nil), (*redactedBlock)(nil), (*toolUseBlock)(nil), (*toolResultBlock)(nil),
		}}}},
		"other block types": {Messages: []message{{Role: "user", Content: []any{other{Type: "x<y>"}, &other{Note: "n"}, map[string]any{"k": 1}, "s", 2.5}}}},
		"empty slices":      {System: []*textBlock{}, Tools: []tool{}, Messages: []message{}},
		"nil system block":  {System: []*textBlock{nil, {Type: "text"}}},
		"tool result shapes": {Messages: []message{{Role: "user", Content: []any{
			&toolResultBlock{Type: "tool_result", Content: []any{}},
			&toolResultBlock{Content: []any{nil, &textBlock{}}, IsError: true, CacheControl: &cacheControl{}},
			&imageBlock{CacheControl: &cacheControl{Type: "<e>"}},
		}}}},
		"raw whitespace":       {Messages: []message{{Content: []any{&toolUseBlock{Input: ws}, &toolUseBlock{}}}}, Tools: []tool{{InputSchema: ws}, {Name: "n"}}},
		"raw scalar":           {Messages: []message{{Content: []any{&toolUseBlock{Input: json.RawMessage(" \"s\" ")}, &toolUseBlock{Input: json.RawMessage("12 ")}}}}},
		"raw empty":            {Messages: []message{{Content: []any{&toolUseBlock{Input: json.RawMessage{}}}}}},
		"raw invalid":          {Messages: []message{{Content: []any{&toolUseBlock{Input: json.RawMessage(`{"a":`)}}}}},
		"raw trailing":         {Tools: []tool{{InputSchema: json.RawMessage(`{} {}`)}}},
		"schema invalid":       {Tools: []tool{{Name: "t", InputSchema: json.RawMessage(`{'a':1}`)}}},
		"thinking no budget":   {Thinking: &thinkingParam{Type: "enabled"}, OutputConfig: &outputConfig{}},
		"thinking with budget": {Thinking: &thinkingParam{Type: "<a>", BudgetTokens: -5}, MaxTokens: -1, Stream: true},
		"temperature NaN":      {Temperature: new(math.NaN())},
		"temperature -Inf":     {Temperature: new(math.Inf(-1))},
		"temperature tiny":     {Temperature: new(-5e-324)},
		"temperature huge":     {Temperature: new(math.MaxFloat64)},
	}
	for name, r := range reqs {
		t.Run(name, func(t *testing.T) { checkBody(t, r, false) })
	}
}

func TestBuildBodyInvalidSchemaIsAnError(t *testing.T) {
	_, _, err := buildBody(Config{Info: sonnet}, &ai.Request{
		Messages: []ai.Message{ai.UserText("q", 1)},
		Tools:    []ai.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"type":`)}},
	})
	if err == nil || !strings.Contains(err.Error(), "encode anthropic request: json: error calling MarshalJSON for type json.RawMessage") {
		t.Fatalf("err = %v", err)
	}
}

func TestBodyEstimateCoversLongHistory(t *testing.T) {
	r := newRequest(Config{Info: sonnet}, providertest.BenchRequest(sonnet, 2000, "toolu_"))
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
		req := sampleRequest(sonnet, text, len(args)%4)
		req.Messages = append(req.Messages,
			ai.Message{Role: ai.RoleAssistant, API: API, Provider: "anthropic", Model: sonnet.ID, StopReason: ai.StopToolUse,
				Content: []ai.Content{ai.ToolCallContent("id", "t", json.RawMessage(args))}},
			ai.Message{Role: ai.RoleToolResult, ToolCallID: "id", Content: []ai.Content{ai.TextContent(args)}})
		req.Tools = append(req.Tools, ai.ToolSpec{Name: text, Parameters: json.RawMessage(args)})
		req.Thinking = ai.ThinkingLevel(text)
		requoted := providertest.Requotes(text) || providertest.Requotes(args)
		checkBody(t, newRequest(Config{Info: sonnet, NoCache: len(text)%2 == 0}, req), requoted)
		raw := &request{Model: text, Messages: []message{{Role: "assistant", Content: []any{
			&toolUseBlock{Type: "tool_use", ID: text, Name: text, Input: json.RawMessage(args)},
		}}}}
		checkBody(t, raw, requoted)
	})
}
