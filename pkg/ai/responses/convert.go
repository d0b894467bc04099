package responses

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// convertMessages turns a conversation into input items. The result is
// never nil: the API wants an input even when it is empty.
func convertMessages(info ai.Info, msgs []ai.Message) []any {
	out := []any{}
	for n, m := range provider.Normalize(msgs, info) {
		switch m.Role {
		case ai.RoleUser:
			if um, ok := userMessage(m.Content); ok {
				out = append(out, um)
			}
		case ai.RoleAssistant:
			out = appendAssistant(out, m, info, n)
		case ai.RoleToolResult:
			out = appendToolResult(out, m)
		}
	}
	return out
}

// userMessage is the message's text and images as parts; ok is false
// when it has neither (blank text alone).
func userMessage(cs []ai.Content) (inputMessage, bool) {
	um := inputMessage{Role: "user"}
	blank := true
	for _, c := range cs {
		switch c.Type {
		case ai.TypeText:
			if c.Text == "" {
				continue
			}
			blank = blank && strings.TrimSpace(c.Text) == ""
			um.Content = append(um.Content, textPart{Type: "input_text", Text: c.Text})
		case ai.TypeImage:
			blank = false
			um.Content = append(um.Content, newImagePart(c))
		}
	}
	return um, !blank
}

func newImagePart(c ai.Content) imagePart {
	return imagePart{Type: "input_image", Detail: "auto", ImageURL: "data:" + c.MimeType + ";base64," + c.Data}
}

// appendAssistant sends an assistant message back as the items it came
// in: reasoning items, message items and function calls, in order.
// The item ids of function calls pair them with the reasoning before
// them, so they are left out when that reasoning is not sent (another
// model's message, or a reasoning item without encrypted content), or the
// API refuses the request. A reasoning item with nothing after it in its
// message is left out too: the API wants the item that followed it.
func appendAssistant(out []any, m ai.Message, info ai.Info, n int) []any {
	same := provider.SameModel(m, info)
	skipped := false
	start := len(out)
	for k, c := range m.Content {
		switch c.Type {
		case ai.TypeThinking:
			if ri, ok := replayable(c); same && ok {
				out = append(out, ri)
			} else {
				skipped = true
			}
		case ai.TypeText:
			out = append(out, assistantText(c, same, n, k))
		case ai.TypeToolCall:
			callID, itemID, _ := strings.Cut(c.ID, "|")
			if !same || skipped {
				itemID = ""
			}
			out = append(out, functionCall{Type: "function_call", ID: itemID, CallID: callID, Name: c.Name,
				Arguments: string(ai.ToolArguments(string(c.Arguments)))})
		}
	}
	for len(out) > start {
		if _, ok := out[len(out)-1].(reasoningItem); !ok {
			break
		}
		out = out[:len(out)-1]
	}
	return out
}

// replayable reads the reasoning item a thinking block's signature holds.
// Only an item with encrypted content can be sent back: with "store":
// false the server keeps nothing to find by id.
func replayable(c ai.Content) (reasoningItem, bool) {
	var item streamItem
	if c.ThinkingSignature == "" || json.Unmarshal([]byte(c.ThinkingSignature), &item) != nil ||
		item.Type != "reasoning" || item.ID == "" || item.EncryptedContent == "" {
		return reasoningItem{}, false
	}
	ri := reasoningItem{Type: "reasoning", ID: item.ID, Summary: []textPart{}, EncryptedContent: item.EncryptedContent}
	for _, s := range item.Summary {
		ri.Summary = append(ri.Summary, textPart{Type: "summary_text", Text: s.Text})
	}
	return ri, true
}

// assistantText is a text block as a message item, under the id it came
// with, or a made-up one (message n, block k) for text of another model.
func assistantText(c ai.Content, same bool, n, k int) outputMessage {
	id, phase := "", ""
	if same {
		id, phase = parseTextSignature(c.TextSignature)
	}
	if id == "" {
		id = "msg_" + strconv.Itoa(n) + "_" + strconv.Itoa(k)
	} else if len(id) > 64 {
		h := fnv.New64a()
		_, _ = h.Write([]byte(id))
		id = "msg_" + strconv.FormatUint(h.Sum64(), 36)
	}
	return outputMessage{Type: "message", Role: "assistant", Status: "completed", ID: id, Phase: phase,
		Content: []outputText{{Type: "output_text", Text: c.Text, Annotations: []struct{}{}}}}
}

// textSignature is pi's record of a text's message item: {"v":1,"id":…}
// with the item's phase when it had one.
type textSignature struct {
	V     int    `json:"v"`
	ID    string `json:"id"`
	Phase string `json:"phase,omitempty"`
}

func encodeTextSignature(id, phase string) string {
	b, _ := pijson.Marshal(textSignature{V: 1, ID: id, Phase: phase})
	return string(b)
}

// parseTextSignature reads pi's form, or a bare id (pi's older form).
func parseTextSignature(sig string) (id, phase string) {
	if strings.HasPrefix(sig, "{") {
		var ts textSignature
		if json.Unmarshal([]byte(sig), &ts) == nil && ts.V == 1 {
			if ts.Phase != "commentary" && ts.Phase != "final_answer" {
				ts.Phase = ""
			}
			return ts.ID, ts.Phase
		}
	}
	return sig, ""
}

// appendToolResult sends a result as the output of its call, answering
// the call_id part of the tool call's id. Its images, which an output
// cannot carry, follow in a user message.
func appendToolResult(out []any, m ai.Message) []any {
	var texts []string
	var images []any
	for _, c := range m.Content {
		switch c.Type {
		case ai.TypeText:
			texts = append(texts, c.Text)
		case ai.TypeImage:
			images = append(images, newImagePart(c))
		}
	}
	text := strings.Join(texts, "\n")
	if text == "" && len(images) > 0 {
		text = "(see attached image)"
	}
	callID, _, _ := strings.Cut(m.ToolCallID, "|")
	out = append(out, functionOutput{Type: "function_call_output", CallID: callID, Output: text})
	if len(images) > 0 {
		parts := append([]any{textPart{Type: "input_text", Text: "Attached image(s) from tool result:"}}, images...)
		out = append(out, inputMessage{Role: "user", Content: parts})
	}
	return out
}
