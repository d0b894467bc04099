package provider

import (
	"maps"
	"slices"
	"strings"

	"gopi/pkg/ai"
)

// NoResultText is the content of a tool result synthesised for a tool call
// that has none in the history.
const NoResultText = "No result provided"

// Normalize prepares a conversation for a request to the model described
// by info, without modifying msgs (what it returns shares their contents:
// read it, do not change it):
//   - assistant messages that ended in error or were aborted are dropped
//     (their partial output is not an answer and some APIs reject it);
//   - thinking from another model is dropped, as pi 1.6 drops it
//     (signatures only verify for the model that made them, and readable
//     thinking sent as text reads as part of the visible reply); its text
//     blocks lose their signatures and its tool calls their
//     thoughtSignature; the same model's signed or redacted thinking is
//     kept, its unsigned empty thinking dropped;
//   - a tool call without a result gets an error result, and a result
//     without a call is dropped, because both APIs reject unpaired ones.
func Normalize(msgs []ai.Message, info ai.Info) []ai.Message {
	out := make([]ai.Message, 0, len(msgs))
	var pending []ai.Content // content of the last assistant message: its tool calls are owed results
	answered := map[string]bool{}
	flush := func() {
		for _, c := range pending {
			if c.Type == ai.TypeToolCall && !answered[c.ID] {
				out = append(out, synthResult(c))
			}
		}
		pending = nil
		clear(answered)
	}
	for _, m := range msgs {
		switch m.Role {
		case ai.RoleAssistant:
			flush()
			if m.StopReason == ai.StopError || m.StopReason == ai.StopAborted {
				continue
			}
			m = convertForeign(m, info)
			pending = m.Content
			out = append(out, m)
		case ai.RoleToolResult:
			if !isPending(pending, m.ToolCallID) || answered[m.ToolCallID] {
				continue
			}
			answered[m.ToolCallID] = true
			out = append(out, m)
		case ai.RoleUser:
			flush()
			out = append(out, m)
		default:
			// Other roles (pi's bashExecution, custom) are projected into
			// user or assistant messages by the layers above; an adapter
			// cannot send them.
		}
	}
	flush()
	return out
}

func isPending(calls []ai.Content, id string) bool {
	for _, c := range calls {
		if c.Type == ai.TypeToolCall && c.ID == id {
			return true
		}
	}
	return false
}

func synthResult(call ai.Content) ai.Message {
	return ai.Message{
		Role: ai.RoleToolResult, ToolCallID: call.ID, ToolName: call.Name,
		Content: []ai.Content{ai.TextContent(NoResultText)}, IsError: true,
	}
}

// SameModel reports whether m was produced by the model info describes.
func SameModel(m ai.Message, info ai.Info) bool {
	return m.Provider == info.Provider && m.API == info.API && m.Model == info.ID
}

func convertForeign(m ai.Message, info ai.Info) ai.Message {
	same := SameModel(m, info)
	if same && !slices.ContainsFunc(m.Content, emptyThinking) {
		return m
	}
	content := make([]ai.Content, 0, len(m.Content))
	for _, c := range m.Content {
		switch {
		case c.Type == ai.TypeThinking && (!same || emptyThinking(c)):
		case same:
			content = append(content, c)
		case c.Type == ai.TypeText:
			content = append(content, ai.TextContent(c.Text))
		case c.Type == ai.TypeToolCall && c.Extra["thoughtSignature"] != nil:
			c.Extra = maps.Clone(c.Extra)
			delete(c.Extra, "thoughtSignature")
			if len(c.Extra) == 0 {
				c.Extra = nil
			}
			content = append(content, c)
		default:
			content = append(content, c)
		}
	}
	m.Content = content
	return m
}

// emptyThinking is a thinking block with nothing to replay: no text, no
// signature, not redacted.
func emptyThinking(c ai.Content) bool {
	return c.Type == ai.TypeThinking && !c.Redacted && c.ThinkingSignature == "" && strings.TrimSpace(c.Thinking) == ""
}
