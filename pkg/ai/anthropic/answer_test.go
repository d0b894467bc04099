package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

const citySchema = `{"type":"object","properties":{"city":{"type":"string"},"population":{"type":"integer"}},"required":["city","population"]}`

// sentRequest is the part of a request body the structured output sets.
type sentRequest struct {
	Tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	ToolChoice *toolChoice     `json:"tool_choice"`
	Thinking   json.RawMessage `json:"thinking"`
}

func sent(t *testing.T, srv *providertest.Server) sentRequest {
	t.Helper()
	var r sentRequest
	if err := json.Unmarshal(srv.Requests()[0].Body, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func toolNames(r sentRequest) []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Name)
	}
	return names
}

// With an output schema the answer is forced through a tool whose input
// schema is the schema: that tool alone when there are no others, any
// tool beside the run's tools. The call streams back as the answer's
// text, and a message holding only that call is a stop, not a tool use.
func TestStructuredOutputIsAForcedToolCall(t *testing.T) {
	for _, tt := range []struct {
		name   string
		tools  []ai.ToolSpec
		choice toolChoice
		names  []string
	}{
		{"no other tools", nil, toolChoice{Type: "tool", Name: AnswerTool}, []string{AnswerTool}},
		{"beside the run's tools", []ai.ToolSpec{{Name: "read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object"}`)}},
			toolChoice{Type: "any"}, []string{"read", AnswerTool}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, m, _ := fixture(t, providertest.SSE(providertest.File(t, "testdata/answer_tool.sse")))
			evs, msg := stream(t, m, &ai.Request{Messages: []ai.Message{ai.UserText("the biggest city of France?", 1)},
				Tools: tt.tools, OutputSchema: json.RawMessage(citySchema)})
			r := sent(t, srv)
			if r.ToolChoice == nil || *r.ToolChoice != tt.choice || !cmp.Equal(toolNames(r), tt.names) {
				t.Fatalf("tool_choice %+v, tools %v; want %+v, %v", r.ToolChoice, toolNames(r), tt.choice, tt.names)
			}
			if got := string(r.Tools[len(r.Tools)-1].InputSchema); got != citySchema {
				t.Errorf("answer tool input_schema %s", got)
			}
			want := []ai.Content{ai.TextContent(`{"city": "Paris", "population": 2102650}`)}
			if diff := cmp.Diff(want, msg.Content); diff != "" || msg.StopReason != ai.StopStop {
				t.Errorf("stop %s, content (-want +got):\n%s", msg.StopReason, diff)
			}
			var deltas []string
			for _, e := range evs {
				if e.Type == ai.EventToolCallStart {
					t.Errorf("the answer streamed as a tool call: %+v", e)
				}
				if e.Type == ai.EventTextDelta {
					deltas = append(deltas, e.Delta)
				}
			}
			if !cmp.Equal(deltas, []string{`{"city": "Par`, `is", "population": 2102650}`}) {
				t.Errorf("text deltas %q", deltas)
			}
		})
	}
}

// A message with the run's own tool calls stays a tool use: the answer
// tool is only recognised in a request that forced it.
func TestStructuredOutputKeepsOtherToolCalls(t *testing.T) {
	_, m, _ := fixture(t, providertest.SSE(providertest.File(t, "testdata/thinking_tools.sse")))
	_, msg := stream(t, m, &ai.Request{Messages: []ai.Message{ai.UserText("look", 1)},
		Tools: []ai.ToolSpec{{Name: "ls"}, {Name: "read"}}, OutputSchema: json.RawMessage(citySchema)})
	if msg.StopReason != ai.StopToolUse || len(msg.ToolCalls()) != 2 {
		t.Fatalf("stop %s, %d tool calls; want toolUse, 2", msg.StopReason, len(msg.ToolCalls()))
	}
}

// Where the API cannot force a tool or the schema cannot be a tool's
// input, the schema is left to the prompt: no answer tool, no tool_choice.
func TestStructuredOutputLeftToThePrompt(t *testing.T) {
	for _, tt := range []struct {
		name     string
		schema   string
		thinking ai.ThinkingLevel
		tools    []ai.ToolSpec
	}{
		{"thinking on", citySchema, ai.ThinkingMedium, nil},
		{"an array schema", `{"type":"array","items":{"type":"string"}}`, "", nil},
		{"a tool of the same name", citySchema, "", []ai.ToolSpec{{Name: AnswerTool}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, m, _ := fixture(t, providertest.SSE(providertest.File(t, "testdata/text.sse")))
			stream(t, m, &ai.Request{Messages: []ai.Message{ai.UserText("hi", 1)}, Thinking: tt.thinking, Tools: tt.tools,
				OutputSchema: json.RawMessage(tt.schema)})
			r := sent(t, srv)
			if r.ToolChoice != nil || len(r.Tools) != len(tt.tools) {
				t.Errorf("tool_choice %+v, tools %v: want neither added", r.ToolChoice, toolNames(r))
			}
		})
	}
}
