package openai

import (
	"strings"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// reasoningFields are the delta fields servers stream reasoning in. The
// field a thinking block came from is kept as its signature, so it can be
// sent back the same way.
var reasoningFields = []string{"reasoning_content", "reasoning"}

// convertMessages converts a normalised history. Tool call ids of other
// models are rewritten as the server takes them (wireID), those of this
// model are its own and go back unchanged; ids maps the rewritten ones for
// their results, which follow their calls.
func convertMessages(msgs []ai.Message, info ai.Info, q Quirks) []message {
	var out []message
	ids := map[string]string{}
	turn := currentTurn(msgs, info)
	for i, m := range msgs {
		switch m.Role {
		case ai.RoleUser:
			if c := userContent(m.Content); c != nil {
				out = append(out, message{Role: "user", Content: c})
			}
		case ai.RoleAssistant:
			if am, ok := assistant(m, provider.SameModel(m, info), q, ids); ok {
				if i >= turn {
					signFirstCall(am.ToolCalls)
				}
				out = append(out, am)
			}
		case ai.RoleToolResult:
			out = append(out, toolResult(m, q, ids)...)
		}
	}
	return out
}

// Gemini 3 refuses a request whose current turn (the messages after the
// last user message) has a step whose first function call carries no
// thought signature: one made by another model, or written before gopi
// kept signatures. For such a call Google documents a placeholder that
// skips the check; earlier turns are not checked.
const skipSignature = "skip_thought_signature_validator"

// currentTurn is the index where the turn Gemini 3 checks starts, or
// len(msgs) for any other model.
func currentTurn(msgs []ai.Message, info ai.Info) int {
	if !geminiThree(info.ID) {
		return len(msgs)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == ai.RoleUser {
			return i + 1
		}
	}
	return 0
}

// geminiThree reports a Gemini model of version 3 or later: gemini-3-pro,
// gemini-3.1-flash-lite, gemini-live-3…, with or without "models/".
func geminiThree(id string) bool {
	id = strings.TrimPrefix(strings.ToLower(id), "models/")
	rest, ok := strings.CutPrefix(id, "gemini-")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, "live-")
	n, i := 0, 0
	for ; i < len(rest) && '0' <= rest[i] && rest[i] <= '9'; i++ {
		n = n*10 + int(rest[i]-'0')
	}
	return i > 0 && n >= 3
}

// signFirstCall gives a step's first call the placeholder signature when
// it has none of its own.
func signFirstCall(calls []toolCall) {
	if len(calls) == 0 || calls[0].ExtraContent != nil {
		return
	}
	b := pijson.AppendString([]byte(`{"google":{"thought_signature":`), skipSignature)
	calls[0].ExtraContent = append(b, "}}"...)
}

// userContent is a plain string when the message is only text (what every
// server accepts), parts when it has images, nil when it is empty.
func userContent(cs []ai.Content) any {
	var texts []string
	var parts []part
	images := false
	for _, c := range cs {
		switch c.Type {
		case ai.TypeText:
			texts = append(texts, c.Text)
			parts = append(parts, part{Type: "text", Text: c.Text})
		case ai.TypeImage:
			images = true
			parts = append(parts, imagePart(c))
		}
	}
	if images {
		return parts
	}
	if s := strings.Join(texts, "\n"); strings.TrimSpace(s) != "" {
		return s
	}
	return nil
}

func imagePart(c ai.Content) part {
	return part{Type: "image_url", ImageURL: &imageURL{URL: "data:" + c.MimeType + ";base64," + c.Data}}
}

func assistant(m ai.Message, same bool, q Quirks, ids map[string]string) (message, bool) {
	out := message{Role: "assistant"}
	var texts, thoughts []string
	var rd reasoningBack
	for _, c := range m.Content {
		switch c.Type {
		case ai.TypeText:
			if strings.TrimSpace(c.Text) != "" {
				texts = append(texts, c.Text)
			}
		case ai.TypeThinking:
			if c.Redacted {
				continue
			}
			rd.signature(c.ThinkingSignature)
			if strings.TrimSpace(c.Thinking) != "" {
				thoughts = append(thoughts, c.Thinking)
			}
		case ai.TypeToolCall:
			out.ToolCalls = append(out.ToolCalls, outCall(c, same, q, ids, &rd))
		}
	}
	if len(thoughts) > 0 {
		switch {
		case q.ThinkingAsText:
			texts = append([]string{"<thinking>\n" + strings.Join(thoughts, "\n") + "\n</thinking>"}, texts...)
		case len(rd.details) > 0:
			// The details hold the reasoning text too.
		case rd.field == reasoningFields[0]:
			out.ReasoningContent = strings.Join(thoughts, "\n")
		case rd.field == reasoningFields[1]:
			out.Reasoning = strings.Join(thoughts, "\n")
		}
	}
	if !q.ThinkingAsText {
		out.ReasoningDetails = rd.array()
	}
	if len(texts) > 0 {
		out.Content = strings.Join(texts, "")
	}
	return out, out.Content != nil || len(out.ToolCalls) > 0
}

// outCall converts a tool call; a call of this model takes back the
// thought signature it came with.
func outCall(c ai.Content, same bool, q Quirks, ids map[string]string, rd *reasoningBack) toolCall {
	id := c.ID
	if !same {
		if id = wireID(c.ID, q); id != c.ID {
			ids[c.ID] = id
		}
	}
	tc := toolCall{ID: id, Type: "function",
		Function: functionCall{Name: c.Name, Arguments: string(ai.ToolArguments(string(c.Arguments)))}}
	if same {
		tc.ExtraContent = rd.callSignature(c.Extra[thoughtSignatureKey])
	}
	return tc
}

// toolResult is a tool message with the result's text; images, which tool
// messages cannot carry, follow in a user message.
func toolResult(m ai.Message, q Quirks, ids map[string]string) []message {
	var texts []string
	var images []part
	for _, c := range m.Content {
		switch c.Type {
		case ai.TypeText:
			texts = append(texts, c.Text)
		case ai.TypeImage:
			images = append(images, imagePart(c))
		}
	}
	text := strings.Join(texts, "\n")
	if text == "" && len(images) > 0 {
		text = "(see attached image)"
	}
	id := m.ToolCallID
	if w, ok := ids[id]; ok {
		id = w
	}
	tm := message{Role: "tool", Content: text, ToolCallID: id}
	if q.ToolResultName {
		tm.Name = m.ToolName
	}
	out := []message{tm}
	if len(images) > 0 {
		parts := append([]part{{Type: "text", Text: "Attached image(s) from tool result:"}}, images...)
		out = append(out, message{Role: "user", Content: parts})
	}
	return out
}
