package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"sync"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/session"
)

// entryView is one entry as the page shows it.
type entryView struct {
	ID     string
	Class  string // the CSS class of its kind: user, assistant, tool, note, …
	Title  string // role or type
	Time   string
	Meta   string // model, tokens
	Label  string // the reader's label on the entry
	OnPath bool
	IsLeaf bool // the entry the export was asked for
	Blocks []block
	Error  string
}

// block is one piece of an entry's body.
type block struct {
	Kind    string // text, code, thinking, call, image, pre, raw
	Title   string
	Text    string
	Args    []arg
	Image   template.URL  // a data: URL built from a checked image type and base64
	HTML    template.HTML // md: the text rendered by markdown, escaped but for its own tags
	IsError bool
}

// arg is one top-level argument of a tool call.
type arg struct {
	Name  string
	Value string
	Long  bool // a string value with several lines: shown as a block
}

// imageTypes are the image types inlined as data: URLs; anything else is
// named, not shown.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// base64Data is compiled on the first export, not when the program starts.
var base64Data = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9+/]*={0,2}$`) })

func (b *builder) view(i int) *entryView {
	e := &b.t.Entries[i]
	v := &entryView{ID: e.ID, Title: e.Type, Class: "note", Time: shortTime(e.Timestamp),
		Label: b.labels[e.ID], OnPath: b.onPath[i], IsLeaf: i == b.leaf}
	switch e.Type {
	case session.TypeMessage:
		if e.Message != nil {
			messageView(v, e.Message)
		}
	case session.TypeModelChange:
		v.Title, v.Blocks = "model", []block{{Kind: "text", Text: e.Provider + "/" + e.ModelID}}
	case session.TypeThinkingLevelChange:
		v.Title, v.Blocks = "thinking level", []block{{Kind: "text", Text: e.ThinkingLevel}}
	case session.TypeCompaction:
		v.Class = "summary"
		v.Title = fmt.Sprintf("compaction (from %d tokens)", e.TokensBefore)
		v.Blocks = []block{{Kind: "text", Text: e.Summary}}
	case session.TypeBranchSummary:
		v.Class, v.Title, v.Blocks = "summary", "branch summary", []block{{Kind: "text", Text: e.Summary}}
	case session.TypeCustomMessage:
		v.Class, v.Title = "custom", "["+e.CustomType+"]"
		v.Blocks = contentBlocks(e.Content, false)
	case session.TypeLabel:
		v.Title = "label"
		if e.Label != nil && *e.Label != "" {
			v.Blocks = []block{{Kind: "text", Text: fmt.Sprintf("%s on %s", *e.Label, e.TargetID)}}
		} else {
			v.Blocks = []block{{Kind: "text", Text: "label cleared on " + e.TargetID}}
		}
	case session.TypeSessionInfo:
		v.Title = "session name"
		if e.Name != nil {
			v.Blocks = []block{{Kind: "text", Text: *e.Name}}
		}
	default:
		v.Blocks = []block{rawBlock(e)}
	}
	return v
}

func messageView(v *entryView, m *ai.Message) {
	v.Title, v.Class = m.Role, "other"
	switch m.Role {
	case ai.RoleUser:
		v.Class = "user"
	case ai.RoleAssistant:
		v.Class = "assistant"
		v.Meta = assistantMeta(m)
		if m.StopReason == ai.StopError || m.StopReason == ai.StopAborted || m.ErrorMessage != "" {
			v.Error = strings.TrimSpace(string(m.StopReason) + ": " + m.ErrorMessage)
		}
	case ai.RoleToolResult:
		v.Class, v.Title = "tool", "result of "+m.ToolName
		if m.IsError {
			v.Class, v.Title = "tool error", "error from "+m.ToolName
		}
		v.Meta = m.ToolCallID
	case "bashExecution":
		v.Class, v.Title = "tool", "bash (user)"
		v.Blocks = append(v.Blocks, block{Kind: "pre", Text: "$ " + extraString(m.Extra, "command") + "\n" + extraString(m.Extra, "output")})
	}
	v.Blocks = append(v.Blocks, contentBlocks(m.Content, m.Role == ai.RoleToolResult)...)
	if m.Role == ai.RoleAssistant { // an answer's prose is Markdown
		for i, b := range v.Blocks {
			if b.Kind == "text" {
				v.Blocks[i] = block{Kind: "md", HTML: markdown(b.Text), Text: b.Text}
			}
		}
	}
	if m.Role == ai.RoleToolResult {
		if d := extraString(map[string]json.RawMessage(detailsMap(m.Details)), "diff"); d != "" {
			v.Blocks = append(v.Blocks, block{Kind: "pre", Title: "diff", Text: d})
		}
	}
	if len(v.Blocks) == 0 && len(m.Extra) > 0 {
		b, _ := json.MarshalIndent(m.Extra, "", "  ")
		v.Blocks = []block{{Kind: "raw", Title: "fields", Text: string(b)}}
	}
}

// contentBlocks shows content blocks; verbatim text (a tool's output) is
// shown exactly as it is, fences included.
func contentBlocks(cs []ai.Content, verbatim bool) []block {
	var out []block
	for _, c := range cs {
		switch c.Type {
		case ai.TypeText:
			if verbatim {
				out = append(out, block{Kind: "pre", Text: c.Text})
			} else {
				out = append(out, textBlocks(c.Text)...)
			}
		case ai.TypeThinking:
			t := c.Thinking
			if c.Redacted {
				t = "(encrypted by the provider)"
			}
			if strings.TrimSpace(t) != "" {
				out = append(out, block{Kind: "thinking", Text: t})
			}
		case ai.TypeToolCall:
			out = append(out, block{Kind: "call", Title: c.Name, Text: c.ID, Args: args(c.Arguments)})
		case ai.TypeImage:
			out = append(out, imageBlock(c))
		default:
			b, _ := json.MarshalIndent(c.Extra, "", "  ")
			out = append(out, block{Kind: "raw", Title: c.Type, Text: string(b)})
		}
	}
	return out
}

// textBlocks splits text at Markdown code fences (```): code is shown as
// code, with its language, and the rest as the text it is. Nothing else
// of Markdown is interpreted.
func textBlocks(text string) []block {
	if !strings.Contains(text, "```") {
		if strings.TrimSpace(text) == "" {
			return nil
		}
		return []block{{Kind: "text", Text: strings.Trim(text, "\n")}}
	}
	var out []block
	var cur strings.Builder
	inCode, lang := false, ""
	flush := func() {
		t := cur.String()
		cur.Reset()
		switch {
		case inCode:
			out = append(out, block{Kind: "code", Title: lang, Text: strings.TrimSuffix(t, "\n")})
		case strings.TrimSpace(t) != "":
			out = append(out, block{Kind: "text", Text: strings.Trim(t, "\n")})
		}
	}
	for line := range strings.SplitAfterSeq(text, "\n") {
		fence := strings.TrimLeft(line, " ")
		if len(line)-len(fence) <= 3 && strings.HasPrefix(fence, "```") {
			flush()
			inCode, lang = !inCode, strings.TrimSpace(strings.TrimLeft(fence, "`"))
			continue
		}
		cur.WriteString(line)
	}
	flush()
	return out
}

func imageBlock(c ai.Content) block {
	if !imageTypes[c.MimeType] || !base64Data().MatchString(c.Data) {
		return block{Kind: "text", Text: fmt.Sprintf("[image of type %q not shown]", c.MimeType)}
	}
	// Safe: the type is one of four fixed strings and the data is plain base64.
	return block{Kind: "image", Title: c.MimeType, Image: template.URL("data:" + c.MimeType + ";base64," + c.Data)}
}

// args lists a tool call's arguments in the order the model wrote them:
// strings as they are (a command or a file's content stays readable),
// anything else as JSON.
func args(raw json.RawMessage) []arg {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return []arg{{Name: "arguments", Value: string(raw), Long: true}}
	}
	var out []arg
	for dec.More() {
		k, err := dec.Token()
		var v json.RawMessage
		if err != nil || dec.Decode(&v) != nil {
			return []arg{{Name: "arguments", Value: string(raw), Long: true}}
		}
		name, _ := k.(string)
		out = append(out, argOf(name, v))
	}
	return out
}

func argOf(name string, v json.RawMessage) arg {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return arg{Name: name, Value: s, Long: strings.Contains(s, "\n")}
	}
	var buf bytes.Buffer
	if json.Indent(&buf, v, "", "  ") != nil {
		return arg{Name: name, Value: string(v)}
	}
	return arg{Name: name, Value: buf.String(), Long: strings.Contains(buf.String(), "\n")}
}

func rawBlock(e *session.Entry) block {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return block{Kind: "text", Text: err.Error()}
	}
	return block{Kind: "raw", Title: "entry", Text: string(b)}
}

func assistantMeta(m *ai.Message) string {
	var parts []string
	if m.Model != "" {
		parts = append(parts, m.Model)
	}
	if u := m.Usage; u.Input+u.Output > 0 {
		parts = append(parts, fmt.Sprintf("↑%s ↓%s", tokens(u.Input), tokens(u.Output)))
	}
	if m.StopReason == ai.StopLength {
		parts = append(parts, "stopped at the length limit")
	}
	return strings.Join(parts, " · ")
}

func detailsMap(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	return m
}

func extraString(x map[string]json.RawMessage, k string) string {
	var s string
	_ = json.Unmarshal(x[k], &s)
	return s
}

// shortTime shows an ISO 8601 timestamp as "2006-01-02 15:04:05" UTC;
// anything else as it is.
func shortTime(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

func tokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
