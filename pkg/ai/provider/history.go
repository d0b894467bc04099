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
//
// When nothing changes (the usual history of one model), the result is
// msgs itself, clipped: a long history is not copied for every request.
func Normalize(msgs []ai.Message, info ai.Info) []ai.Message {
	// While every message so far goes out unchanged, the output is
	// msgs[:kept] and out stays nil; the first change copies that prefix.
	var out []ai.Message
	kept := 0
	changed := func() {
		if out == nil {
			out = make([]ai.Message, kept, len(msgs))
			copy(out, msgs[:kept])
		}
	}
	add := func(i int, m ai.Message, same bool) {
		if out == nil && same && i == kept {
			kept++
			return
		}
		changed()
		out = append(out, m)
	}
	var pending []ai.Content // content of the last assistant message: its tool calls are owed results
	answered := map[string]bool{}
	flush := func() {
		for _, c := range pending {
			if c.Type == ai.TypeToolCall && !answered[c.ID] {
				changed()
				out = append(out, synthResult(c))
			}
		}
		pending = nil
		clear(answered)
	}
	for i, m := range msgs {
		switch m.Role {
		case ai.RoleAssistant:
			flush()
			if m.StopReason == ai.StopError || m.StopReason == ai.StopAborted {
				changed()
				continue
			}
			conv := foreign(m, info)
			if conv {
				m = convertForeign(m, info)
			}
			pending = m.Content
			add(i, m, !conv)
		case ai.RoleToolResult:
			if !isPending(pending, m.ToolCallID) || answered[m.ToolCallID] {
				changed()
				continue
			}
			answered[m.ToolCallID] = true
			add(i, m, true)
		case ai.RoleUser:
			flush()
			add(i, m, true)
		default:
			// Other roles (pi's bashExecution, custom) are projected into
			// user or assistant messages by the layers above; an adapter
			// cannot send them.
			changed()
		}
	}
	flush()
	if out == nil {
		return slices.Clip(msgs[:kept])
	}
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
	if !foreign(m, info) {
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

// foreign reports whether convertForeign changes m: the same model's
// message with empty thinking to drop, or another model's with thinking,
// a text block carrying more than its text, or a tool call's
// thoughtSignature.
func foreign(m ai.Message, info ai.Info) bool {
	if SameModel(m, info) {
		return slices.ContainsFunc(m.Content, emptyThinking)
	}
	return slices.ContainsFunc(m.Content, func(c ai.Content) bool {
		switch c.Type {
		case ai.TypeThinking:
			return true
		case ai.TypeText: // convertForeign keeps only the text
			return c.TextSignature != "" || c.Thinking != "" || c.ThinkingSignature != "" || c.Redacted || c.Data != "" ||
				c.MimeType != "" || c.ID != "" || c.Name != "" || c.Arguments != nil || c.Extra != nil
		case ai.TypeToolCall:
			return c.Extra["thoughtSignature"] != nil
		}
		return false
	})
}

// emptyThinking is a thinking block with nothing to replay: no text, no
// signature, not redacted.
func emptyThinking(c ai.Content) bool {
	return c.Type == ai.TypeThinking && !c.Redacted && c.ThinkingSignature == "" && strings.TrimSpace(c.Thinking) == ""
}
