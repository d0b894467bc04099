package rpc

import (
	"strings"
	"testing"
)

// The settings and session commands answer as pi 1.6's do, bad values
// refused naming the choices; a line over Options.MaxLine is skipped.
func TestServeSettingsCommands(t *testing.T) {
	a := fauxAssembly(t, false)
	h := NewHost(a, HostConfig{Catalog: catalog, MaxPrompt: 1 << 20, MaxPromptOrigin: "--max-prompt-bytes"})
	c := startClient(t, h.First(), h, Options{MaxLine: 200})
	for _, l := range []string{
		`{"id":"1","type":"set_steering_mode","mode":"all"}`,
		`{"id":"2","type":"set_follow_up_mode","mode":"sometimes"}`,
		`{"id":"3","type":"get_available_thinking_levels"}`,
		`{"id":"4","type":"cycle_thinking_level"}`,
		`{"id":"5","type":"set_thinking_level","level":"loud"}`,
		`{"id":"6","type":"set_session_name","name":"work"}`,
		`{"id":"7","type":"get_commands"}`,
		`{"id":"8","type":"set_auto_retry","enabled":false}`,
		`{"id":"9","type":"get_fork_messages"}`,
		`{"id":"10","type":"cycle_model"}`,
		`{"id":"11","type":"set_auto_compaction","enabled":false}`,
		`{"id":"12","type":"prompt","message":"` + strings.Repeat("x", 300) + `"}`,
		`{"id":"13","type":"get_state"}`,
	} {
		c.send(l)
	}
	want := []string{
		"{\"id\":\"1\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"set_steering_mode\",\"success\":true}",
		"{\"id\":\"2\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"set_follow_up_mode\",\"success\":false,\"error\":\"mode \\\"sometimes\\\": use \\\"all\\\" or \\\"one-at-a-time\\\"\"}",
		"{\"id\":\"3\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"get_available_thinking_levels\",\"success\":true,\"data\":{\"levels\":[\"off\"]}}",
		"{\"id\":\"4\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"cycle_thinking_level\",\"success\":true,\"data\":null}",
		"{\"id\":\"5\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"set_thinking_level\",\"success\":false,\"error\":\"level \\\"loud\\\": use off, minimal, low, medium, high or xhigh\"}",
		"{\"type\":\"session_info_changed\",\"schemaVersion\":1,\"name\":\"work\"}",
		"{\"id\":\"6\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"set_session_name\",\"success\":true}",
		"{\"id\":\"7\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"get_commands\",\"success\":true,\"data\":{\"commands\":[{\"name\":\"fix\",\"description\":\"fix it\",\"source\":\"prompt\",\"sourceInfo\":{\"path\":\"/p/fix.md\",\"source\":\"local\",\"scope\":\"project\",\"origin\":\"top-level\"}},{\"name\":\"skill:lint\",\"description\":\"lint it\",\"source\":\"skill\",\"sourceInfo\":{\"path\":\"/u/lint/SKILL.md\",\"source\":\"local\",\"scope\":\"user\",\"origin\":\"top-level\"}}]}}",
		"{\"id\":\"8\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"set_auto_retry\",\"success\":true}",
		"{\"id\":\"9\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"get_fork_messages\",\"success\":true,\"data\":{\"messages\":[]}}",
		"{\"id\":\"10\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"cycle_model\",\"success\":true,\"data\":null}",
		"{\"id\":\"11\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"set_auto_compaction\",\"success\":true}",
		"{\"type\":\"response\",\"schemaVersion\":1,\"command\":\"parse\",\"success\":false,\"error\":\"Failed to parse command: the line is longer than 200 bytes, the most gopi rpc reads in one command (maxPromptBytes and room for images): it was skipped; send a shorter prompt or smaller images, or raise maxPromptBytes\"}",
		"{\"id\":\"13\",\"type\":\"response\",\"schemaVersion\":1,\"command\":\"get_state\",\"success\":true,\"data\":{\"model\":{\"id\":\"SCRIPT\",\"name\":\"Scripted model\",\"api\":\"faux\",\"provider\":\"faux\",\"reasoning\":false,\"input\":[\"text\",\"image\"],\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0},\"contextWindow\":200000,\"maxTokens\":16384},\"thinkingLevel\":\"off\",\"isStreaming\":false,\"isCompacting\":false,\"steeringMode\":\"all\",\"followUpMode\":\"one-at-a-time\",\"sessionFile\":\"FILE.jsonl\",\"sessionId\":\"UUID\",\"sessionName\":\"work\",\"autoCompactionEnabled\":false,\"messageCount\":0,\"pendingMessageCount\":0}}",
	}
	got := c.until(`{"id":"13",`)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("records\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	c.end()
}
