package anthropic

import (
	"regexp"
	"strings"
	"sync"

	"gopi/pkg/ai"
)

// convertMessages turns normalised history into API messages: tool results
// become tool_result blocks of one user message (consecutive results
// merged), thinking is replayed with its signature, redacted thinking as
// redacted_thinking, and empty messages are left out.
func convertMessages(msgs []ai.Message) []message {
	out := make([]message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		var content []any
		role := "user"
		switch m.Role {
		case ai.RoleUser:
			content = userBlocks(m.Content)
		case ai.RoleAssistant:
			role, content = "assistant", assistantBlocks(m.Content)
		case ai.RoleToolResult:
			for ; i < len(msgs) && msgs[i].Role == ai.RoleToolResult; i++ {
				content = append(content, toolResult(msgs[i]))
			}
			i--
		}
		if len(content) > 0 {
			out = append(out, message{Role: role, Content: content})
		}
	}
	return out
}

func userBlocks(cs []ai.Content) []any {
	var out []any
	for _, c := range cs {
		switch c.Type {
		case ai.TypeText:
			if strings.TrimSpace(c.Text) != "" {
				out = append(out, &textBlock{Type: "text", Text: c.Text})
			}
		case ai.TypeImage:
			out = append(out, image(c))
		}
	}
	return out
}

func image(c ai.Content) *imageBlock {
	return &imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: c.MimeType, Data: c.Data}}
}

func assistantBlocks(cs []ai.Content) []any {
	var out []any
	for _, c := range cs {
		switch c.Type {
		case ai.TypeText:
			if strings.TrimSpace(c.Text) != "" {
				out = append(out, &textBlock{Type: "text", Text: c.Text})
			}
		case ai.TypeThinking:
			if b := thinkingReplay(c); b != nil {
				out = append(out, b)
			}
		case ai.TypeToolCall:
			out = append(out, &toolUseBlock{
				Type: "tool_use", ID: ToolID(c.ID), Name: c.Name,
				Input: ai.ToolArguments(string(c.Arguments)),
			})
		}
	}
	return out
}

// thinkingReplay sends thinking back as the API produced it. Redacted
// thinking keeps its opaque data in the signature, as pi stores it (older
// records that kept it in the text are accepted too). Thinking without a
// signature (a cut stream) cannot be verified and goes back as text.
func thinkingReplay(c ai.Content) any {
	if c.Redacted {
		data := c.ThinkingSignature
		if data == "" {
			data = c.Thinking
		}
		return &redactedBlock{Type: "redacted_thinking", Data: data}
	}
	if strings.TrimSpace(c.Thinking) == "" {
		return nil
	}
	if strings.TrimSpace(c.ThinkingSignature) == "" {
		return &textBlock{Type: "text", Text: c.Thinking}
	}
	return &thinkingBlock{Type: "thinking", Thinking: c.Thinking, Signature: c.ThinkingSignature}
}

func toolResult(m ai.Message) *toolResultBlock {
	b := &toolResultBlock{Type: "tool_result", ToolUseID: ToolID(m.ToolCallID), IsError: m.IsError}
	for _, c := range m.Content {
		switch c.Type {
		case ai.TypeText:
			b.Content = append(b.Content, &textBlock{Type: "text", Text: c.Text})
		case ai.TypeImage:
			b.Content = append(b.Content, image(c))
		}
	}
	return b
}

// markLastUser puts a cache breakpoint on the last block of the last
// message when it is the user's, so the whole history is cached.
func markLastUser(msgs []message, cc *cacheControl) {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != "user" {
		return
	}
	content := msgs[len(msgs)-1].Content
	switch b := content[len(content)-1].(type) {
	case *textBlock:
		b.CacheControl = cc
	case *imageBlock:
		b.CacheControl = cc
	case *toolResultBlock:
		b.CacheControl = cc
	}
}

var badIDChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]`) })

func badIDRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
}

// ToolID makes a tool call id acceptable to the API (letters, digits, _
// and -, at most 64), so calls made by other providers can be replayed.
func ToolID(id string) string {
	if len(id) <= 64 && !strings.ContainsFunc(id, badIDRune) {
		return id
	}
	id = badIDChars().ReplaceAllString(id, "_")
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}
