package loop

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	"gopi/pkg/tools"
	"gopi/pkg/tools/toolstest"
)

// fullEvent has every field set, nested ones too.
func fullEvent() Event {
	msg := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("m")}}
	block := ai.TextContent("block")
	streamMsg := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{ai.TextContent("s")}}
	return Event{
		Type:    MessageUpdate,
		Message: &msg,
		Stream: &ai.Event{Type: ai.EventTextEnd, Block: &block, Message: &streamMsg,
			Retry: &ai.RetryInfo{Attempt: 1}},
		ToolCallID:  "c",
		ToolName:    "t",
		Args:        json.RawMessage(`{"a":1}`),
		Result:      &ToolOutput{Content: []ai.Content{ai.TextContent("out")}, Details: json.RawMessage(`{"d":1}`)},
		IsError:     true,
		ToolResults: []ai.Message{{Role: ai.RoleToolResult, Content: []ai.Content{ai.TextContent("tr")}}},
		Messages:    []ai.Message{{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("u")}}},
		Retry:       &ai.RetryInfo{Attempt: 2},
		Compaction:  &CompactionInfo{Reason: "c"},
		Trim:        &TrimInfo{Reason: "t"},
		Entry:       json.RawMessage(`{"type":"context_edit"}`),
	}
}

// A cloned event shares nothing with the original: changing any part of
// the clone leaves the original as it was.
func TestEventCloneIsDeep(t *testing.T) {
	t.Parallel()
	orig := fullEvent()
	c := orig.Clone()
	if !reflect.DeepEqual(c, orig) {
		t.Fatalf("clone differs:\n%+v\n%+v", c, orig)
	}
	c.Message.Content[0].Text = "x"
	c.Stream.Block.Text = "x"
	c.Stream.Message.Content[0].Text = "x"
	c.Stream.Retry.Attempt = 9
	c.Stream.Type = ai.EventTextDelta
	c.Args[2] = 'X'
	c.Result.Content[0].Text = "x"
	c.Result.Details[2] = 'X'
	c.ToolResults[0].Content[0].Text = "x"
	c.Messages[0].Content[0].Text = "x"
	c.Retry.Attempt = 9
	c.Compaction.Reason = "x"
	c.Trim.Reason = "x"
	c.Entry[2] = 'X'
	if !reflect.DeepEqual(orig, fullEvent()) {
		t.Fatalf("changing the clone changed the original:\n%+v", orig)
	}
	// Absent parts stay absent.
	empty := Event{Type: ToolEnd, Result: &ToolOutput{}, Stream: &ai.Event{Type: ai.EventTextDelta}}
	ce := empty.Clone()
	if ce.Result.Content != nil || ce.Result.Details != nil || ce.Message != nil || ce.Args != nil || ce.Stream.Block != nil ||
		ce.Stream.Message != nil || ce.Retry != nil || ce.Compaction != nil || ce.Trim != nil || ce.ToolResults != nil || ce.Messages != nil || ce.Entry != nil {
		t.Fatalf("clone of an event with absent parts %+v", ce)
	}
}

// The JSON of the events the first shape test leaves out.
func TestMoreEventJSONShapes(t *testing.T) {
	t.Parallel()
	thinking := ai.Content{Type: ai.TypeThinking, Thinking: "hmm"}
	text := ai.TextContent("said")
	callBlock := ai.Content{Type: ai.TypeToolCall, ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}
	answer := ai.Message{Role: ai.RoleAssistant, Content: []ai.Content{}, StopReason: ai.StopToolUse, Timestamp: 3}
	cases := []struct {
		ev   Event
		want string
	}{
		{Event{Type: TurnStart}, `{"type":"turn_start"}`},
		{Event{Type: MessageUpdate, Stream: &ai.Event{Type: ai.EventThinkingEnd, Index: 0, Block: &thinking}},
			`{"type":"message_update","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":{"type":"thinking_end","contentIndex":0,"content":"hmm"}}`},
		{Event{Type: MessageUpdate, Stream: &ai.Event{Type: ai.EventTextEnd, Index: 1, Block: &text}},
			`{"type":"message_update","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":{"type":"text_end","contentIndex":1,"content":"said"}}`},
		{Event{Type: MessageUpdate, Stream: &ai.Event{Type: ai.EventToolCallStart, Index: 2, Block: &callBlock}},
			`{"type":"message_update","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":{"type":"toolcall_start","contentIndex":2,"id":"c1","toolName":"read"}}`},
		{Event{Type: MessageUpdate, Stream: &ai.Event{Type: ai.EventToolCallEnd, Index: 2, Block: &callBlock}},
			`{"type":"message_update","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":{"type":"toolcall_end","contentIndex":2,"toolCall":{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}}}}`},
		{Event{Type: MessageUpdate, Stream: &ai.Event{Type: ai.EventThinkingDelta, Index: 0, Delta: "h\u2028"}},
			`{"type":"message_update","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":{"type":"thinking_delta","contentIndex":0,"delta":"h\u2028"}}`},
		{Event{Type: MessageUpdate, Stream: &ai.Event{Type: ai.EventTextStart, Index: 4}},
			`{"type":"message_update","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":{"type":"text_start","contentIndex":4}}`},
		{Event{Type: MessageUpdate}, `{"type":"message_update","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":null}`},
		{Event{Type: ToolStart, ToolCallID: "c1", ToolName: "read", Args: json.RawMessage(`{"path":"a"}`)},
			`{"type":"tool_execution_start","toolCallId":"c1","toolName":"read","args":{"path":"a"}}`},
		{Event{Type: ToolUpdate, ToolCallID: "c1", ToolName: "read", Result: &ToolOutput{Content: []ai.Content{ai.TextContent("half")}, Details: json.RawMessage(`{"n":1}`)}},
			`{"type":"tool_execution_update","toolCallId":"c1","toolName":"read","args":{},"partialResult":{"content":[{"type":"text","text":"half"}],"details":{"n":1}}}`},
		{Event{Type: ToolEnd, ToolCallID: "c1", ToolName: "read", Result: &ToolOutput{Content: []ai.Content{}}},
			`{"type":"tool_execution_end","toolCallId":"c1","toolName":"read","result":{"content":[]},"isError":false}`},
		{Event{Type: TurnEnd, Message: &answer},
			`{"type":"turn_end","message":{"role":"assistant","content":[],"api":"","provider":"","model":"","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":3},"toolResults":[]}`},
		{Event{Type: TurnEnd, Message: &answer, ToolResults: []ai.Message{{Role: ai.RoleToolResult, ToolCallID: "c1", ToolName: "read", Content: []ai.Content{}, Timestamp: 4}}},
			`{"type":"turn_end","message":{"role":"assistant","content":[],"api":"","provider":"","model":"","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":3},"toolResults":[{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[],"isError":false,"timestamp":4}]}`},
		{Event{Type: AgentEnd, Messages: []ai.Message{ai.UserText("u", 1)}}, `{"type":"agent_end","messages":[{"role":"user","content":[{"type":"text","text":"u"}],"timestamp":1}],"willRetry":false}`},
		{Event{Type: RetryEnd, Retry: &ai.RetryInfo{Attempt: 2, Success: true, ErrorMessage: "was busy"}}, `{"type":"auto_retry_end","success":true,"attempt":1}`},
		{Event{Type: RetryEnd, Retry: &ai.RetryInfo{Attempt: 3, ErrorMessage: "still busy"}}, `{"type":"auto_retry_end","success":false,"attempt":2,"finalError":"still busy"}`},
		{Event{Type: CompactionEnd, Compaction: &CompactionInfo{Reason: "overflow", Summary: "s", FirstKeptEntryID: "k", TokensBefore: 5, WillRetry: true}},
			`{"type":"compaction_end","reason":"overflow","result":{"summary":"s","firstKeptEntryId":"k","tokensBefore":5,"estimatedTokensAfter":0},"aborted":false,"willRetry":true}`},
		{Event{Type: ContextTrimmed, Trim: &TrimInfo{Reason: TrimCompactionDisabled, Messages: 2}},
			`{"type":"context_trimmed","reason":"compactionDisabled","contextWindow":0,"turns":0,"messages":2,"firstDroppedEntryId":"","firstKeptEntryId":"","tokens":0}`},
		{Event{Type: CompactionEnd, Compaction: &CompactionInfo{Reason: "threshold", Aborted: true}},
			`{"type":"compaction_end","reason":"threshold","aborted":true,"willRetry":false}`},
		{Event{Type: EntryAppended, Entry: json.RawMessage(`{"type":"context_edit","id":"e2","parentId":"e1","timestamp":"2026-12-02T10:00:00.000Z","targetId":"e1","replacement":null}`)},
			`{"type":"entry_appended","entry":{"type":"context_edit","id":"e2","parentId":"e1","timestamp":"2026-12-02T10:00:00.000Z","targetId":"e1","replacement":null}}`},
		{Event{Type: SummaryRetryScheduled, Retry: &ai.RetryInfo{Attempt: 1, MaxAttempts: 4, Delay: 10 * time.Millisecond, ErrorMessage: "overloaded"}},
			`{"type":"summarization_retry_scheduled","attempt":1,"maxAttempts":3,"delayMs":10,"errorMessage":"overloaded"}`},
		{Event{Type: SummaryRetryAttemptStart, Compaction: &CompactionInfo{Reason: "threshold"}},
			`{"type":"summarization_retry_attempt_start","source":"compaction","reason":"threshold"}`},
		{Event{Type: SummaryRetryFinished}, `{"type":"summarization_retry_finished"}`},
		{Event{Type: "something_else", ToolCallID: "x"}, `{"type":"something_else"}`},
	}
	for _, c := range cases {
		b, err := c.ev.MarshalJSON()
		if err != nil || string(b) != c.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", c.ev.Type, b, err, c.want)
		}
		if b2, err := json.Marshal(c.ev); err != nil || string(b2) != c.want {
			t.Errorf("%s through encoding/json: %s (%v)", c.ev.Type, b2, err)
		}
	}
}

// Scrubbing wraps only when there is something to scrub, never twice for
// the same secrets, and copes with a caller that wants no updates.
func TestScrubbingWrapsOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-SCRUBSCRUBSCRUB"
	secrets := tools.NewSecrets(tools.Secret{Name: "KEY", Value: key})
	leaky := toolstest.Func{Name: "leaky", Fn: func(_ context.Context, c tools.Call) (tools.Result, error) {
		c.Update(tools.TextResult("partial " + key))
		return tools.Result{Content: []ai.Content{ai.TextContent(key), {Type: ai.TypeImage, Data: key}}, Details: map[string]string{"clean": "yes"}}, nil
	}}
	reg := toolstest.Registry(t, leaky)
	if got := Scrubbing(reg, nil); got != Executor(reg) {
		t.Fatal("no secrets: the executor is not returned as it is")
	}
	if got := Scrubbing(reg, tools.NewSecrets()); got != Executor(reg) {
		t.Fatal("empty secrets: the executor is not returned as it is")
	}
	if got := Scrubbing(nil, secrets); got != nil {
		t.Fatalf("no executor: %v", got)
	}
	once := Scrubbing(reg, secrets)
	if twice := Scrubbing(once, secrets); twice != once {
		t.Fatal("the same secrets are scrubbed by a second wrapper")
	}
	other := tools.NewSecrets(tools.Secret{Name: "OTHER", Value: "sk-proj-OTHEROTHEROTHER"})
	if Scrubbing(once, other) == once {
		t.Fatal("other secrets are not scrubbed")
	}
	if specs := once.Specs(); len(specs) != 1 || specs[0].Name != "leaky" {
		t.Fatalf("specs %v", specs)
	}
	out := once.Execute(t.Context(), ai.Content{Type: ai.TypeToolCall, ID: "c", Name: "leaky", Arguments: json.RawMessage(`{}`)}, nil)
	if out.Content[0].Text != "[REDACTED:KEY]" || out.Content[1].Data != key {
		t.Fatalf("result %+v: text scrubbed, other blocks as they are", out.Content)
	}
	if d, ok := out.Details.(map[string]string); !ok || d["clean"] != "yes" {
		t.Fatalf("details without a secret are kept as they are: %#v", out.Details)
	}
}

// A partial result whose details cannot be serialised still reaches the
// event, without its details; serialisable ones are carried.
func TestPartialResultDetails(t *testing.T) {
	t.Parallel()
	prog := toolstest.Func{Name: "prog", Parameters: sleeperSchema, Fn: func(_ context.Context, c tools.Call) (tools.Result, error) {
		c.Update(tools.Result{Content: []ai.Content{ai.TextContent("bad")}, Details: map[string]any{"f": func() {}}})
		c.Update(tools.Result{Content: []ai.Content{ai.TextContent("good \xff")}, Details: map[string]int{"n": 2}})
		return tools.TextResult("all"), nil
	}}
	m := faux.New(calls(call("a", "prog", `{}`)), faux.Text("ok"))
	s := &script{}
	Run(t.Context(), Config{Model: m, Emit: s.emit, Tools: toolstest.Registry(t, prog), Now: func() time.Time { return loopTime }}, nil, prompt("go"))
	var updates []string
	for _, e := range s.got {
		if strings.HasPrefix(e, "tool_execution_update") {
			updates = append(updates, e)
		}
	}
	want := []string{`tool_execution_update a prog {} partial=[text:"bad"]`, "tool_execution_update a prog {} partial=[text:\"good \uFFFD\"] details={\"n\":2}"}
	if len(updates) != 2 || updates[0] != want[0] || updates[1] != want[1] {
		t.Fatalf("updates %q", updates)
	}
}
