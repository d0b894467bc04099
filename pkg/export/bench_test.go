package export_test

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/export"
	"gopi/pkg/session"
)

// bigSession is n entries of user, assistant tool call and a 2 KB tool
// result, with a side branch every 90 entries.
func bigSession(n int) *session.File {
	out := strings.Repeat("lorem ipsum dolor sit amet <b>&</b>\n", 56)
	f := &session.File{Header: session.Header{ID: "bench"}}
	parent := ""
	for i := 0; len(f.Entries) < n; i++ {
		var m ai.Message
		switch i % 3 {
		case 0:
			m = ai.UserText(fmt.Sprintf("step %d: read the next file", i), 0)
		case 1:
			args, _ := json.Marshal(map[string]any{"path": fmt.Sprintf("src/file%d.go", i), "limit": 200})
			m = ai.Message{Role: ai.RoleAssistant, Model: "m", Content: []ai.Content{
				{Type: ai.TypeThinking, Thinking: "reading on"}, {Type: ai.TypeToolCall, ID: "c", Name: "read", Arguments: args}}}
		case 2:
			m = ai.Message{Role: ai.RoleToolResult, ToolName: "read", ToolCallID: "c", Content: []ai.Content{ai.TextContent(out)}}
		}
		e := session.MessageEntry(parent, m)
		e.ID = fmt.Sprintf("%08x", i+1)
		f.Entries = append(f.Entries, e)
		if i%90 != 89 { // every 90th entry starts a side branch: the next one hangs off its parent
			parent = e.ID
		}
	}
	return f
}

func BenchmarkRender(b *testing.B) {
	f := bigSession(10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := export.Render(io.Discard, f, export.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
