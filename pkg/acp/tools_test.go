package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The file tools' calls as the client sees them: kind, title, the
// file's location (with the line read from), the diff of a write or
// edit from the text before it (null for a new file), each output.
func TestServeFileToolCalls(t *testing.T) {
	tc := func(name, args string) string {
		return `{"toolCalls":[{"name":"` + name + `","arguments":` + args + `}]}`
	}
	w := newWorld(t, `[`+strings.Join([]string{
		tc("write", `{"path":"a.txt","content":"one\ntwo\n"}`),
		tc("edit", `{"path":"a.txt","edits":[{"oldText":"two","newText":"three"}]}`),
		tc("read", `{"path":"a.txt","offset":2}`),
		`{"text":"ok"}`,
		tc("ls", `{}`),
		tc("grep", `{"pattern":"three","path":"."}`),
		tc("find", `{"pattern":"*.txt"}`),
		`{"text":"ok"}`,
		tc("edit", `{"path":"a.txt","edits":[{"oldText":"nosuch","newText":"x"}]}`),
		tc("read", `{"path":"`+"/abs/b.txt"+`","offset":0}`),
		`{"text":"ok"}`,
	}, ",")+`]`)
	w.tools = []string{"read", "write", "edit", "ls", "grep", "find"}
	cwd := t.TempDir()
	c := dial(t, w.host(), Options{})
	c.norm = append(c.norm, strings.NewReplacer(cwd, "CWD", w.script, "SCRIPT"))
	c.masks = append(c.masks, mask{usedRE, `"used":N`})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"` + cwd + `","mcpServers":[]}}`)
	c.until(`"id":1,`)
	id := c.sessionID()
	prompt := `{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"` + id + `","prompt":[{"type":"text","text":%q}]}}`
	usage := update(`{"sessionUpdate":"usage_update","size":200000,"used":N}`)
	done := func(call, content string) string {
		return update(`{"content":[` + content + `],"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"` + call + `"}`)
	}
	text := func(s string) string { return `{"content":{"text":"` + s + `","type":"text"},"type":"content"}` }
	c.exchange([]step{
		one(sprintf(prompt, 2, "files"),
			usage,
			update(`{"kind":"edit","locations":[{"path":"CWD/a.txt"}],"rawInput":{"path":"a.txt","content":"one\ntwo\n"},"sessionUpdate":"tool_call","status":"in_progress","title":"Write a.txt","toolCallId":"call_1_1"}`),
			done("call_1_1", `{"newText":"one\ntwo\n","oldText":null,"path":"CWD/a.txt","type":"diff"},`+text("Successfully wrote 8 bytes to a.txt")),
			usage,
			update(`{"kind":"edit","locations":[{"path":"CWD/a.txt"}],"rawInput":{"path":"a.txt","edits":[{"oldText":"two","newText":"three"}]},"sessionUpdate":"tool_call","status":"in_progress","title":"Edit a.txt","toolCallId":"call_2_1"}`),
			done("call_2_1", `{"newText":"one\nthree\n","oldText":"one\ntwo\n","path":"CWD/a.txt","type":"diff"},`+text("Successfully replaced text in a.txt.")),
			usage,
			update(`{"kind":"read","locations":[{"line":2,"path":"CWD/a.txt"}],"rawInput":{"path":"a.txt","offset":2},"sessionUpdate":"tool_call","status":"in_progress","title":"Read a.txt","toolCallId":"call_3_1"}`),
			done("call_3_1", text(`three\n`)),
			chunkOf("agent_message_chunk", "ok"),
			usage,
			`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`),
		one(sprintf(prompt, 3, "look"),
			usage,
			update(`{"kind":"search","locations":[{"path":"CWD"}],"rawInput":{},"sessionUpdate":"tool_call","status":"in_progress","title":"ls","toolCallId":"call_5_1"}`),
			done("call_5_1", text("a.txt")),
			usage,
			update(`{"kind":"search","locations":[{"path":"CWD"}],"rawInput":{"pattern":"three","path":"."},"sessionUpdate":"tool_call","status":"in_progress","title":"grep three","toolCallId":"call_6_1"}`),
			done("call_6_1", text("a.txt:2: three")),
			usage,
			update(`{"kind":"search","locations":[{"path":"CWD"}],"rawInput":{"pattern":"*.txt"},"sessionUpdate":"tool_call","status":"in_progress","title":"find *.txt","toolCallId":"call_7_1"}`),
			done("call_7_1", text("a.txt")),
			chunkOf("agent_message_chunk", "ok"),
			usage,
			`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`),
	})
	// A failed edit has no diff; a read from line 0 names no line.
	c.send(sprintf(prompt, 4, "fail"))
	got := c.until(`"id":4,`)
	failed := func(l, call string) bool {
		return strings.HasPrefix(l, strings.TrimSuffix(update(`{"content":[{"content":{"text":"`), "}}")) && !strings.Contains(l, `"diff"`) &&
			strings.HasSuffix(l, `"type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"`+call+`"}}}`)
	}
	if len(got) != 9 ||
		got[1] != update(`{"kind":"edit","locations":[{"path":"CWD/a.txt"}],"rawInput":{"path":"a.txt","edits":[{"oldText":"nosuch","newText":"x"}]},"sessionUpdate":"tool_call","status":"in_progress","title":"Edit a.txt","toolCallId":"call_9_1"}`) ||
		!failed(got[2], "call_9_1") ||
		got[4] != update(`{"kind":"read","locations":[{"path":"/abs/b.txt"}],"rawInput":{"path":"/abs/b.txt","offset":0},"sessionUpdate":"tool_call","status":"in_progress","title":"Read /abs/b.txt","toolCallId":"call_10_1"}`) ||
		!failed(got[5], "call_10_1") {
		t.Fatalf("failed calls:\n%s", strings.Join(got, "\n"))
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "a.txt")); err != nil || string(b) != "one\nthree\n" {
		t.Fatalf("a.txt %q %v", b, err)
	}
	c.close()
}
