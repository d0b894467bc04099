package acp

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var usedRE = regexp.MustCompile(`"used":\d+`)

// rmTurn is what a prompt whose model runs `rm x` and then says done
// writes once the call was decided: its tool_call_update (completed with
// no output, or refused by the rule), the chunk, the usage and the stop
// reason.
func rmTurn(id int, call string, ran bool) []string {
	end := `{"content":[{"content":{"text":"(no output)","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"` + call + `"}`
	if !ran {
		end = strings.ReplaceAll(refusedRm, "call_2_1", call)
	}
	return []string{update(end), chunkOf("agent_message_chunk", "done"),
		update(`{"sessionUpdate":"usage_update","size":200000,"used":N}`),
		sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, id)}
}

// rmAsked is what such a prompt writes up to its question: usage, the
// call in progress and session/request_permission about it.
func rmAsked(ask int, call string) []string {
	return append(rmStart(call), strings.ReplaceAll(sprintf(askRm, ask), "call_2_1", call))
}

func rmStart(call string) []string {
	return []string{update(`{"sessionUpdate":"usage_update","size":200000,"used":N}`),
		update(strings.ReplaceAll(sprintf(rmCall, "in_progress"), "call_2_1", call))}
}

// Each answer to session/request_permission decides the call as the
// client said: allow-once runs it this time, allow-always and
// reject-always are kept for the session (said on Diag) and no longer
// asked; a cancelled outcome, an error response and a cancelled prompt
// leave it to the rule, which refuses it. While a question waits, what
// needs the session idle is refused.
func TestServePermissionAnswers(t *testing.T) {
	call := `{"toolCalls":[{"name":"bash","arguments":{"command":"rm x"}}]},{"text":"done"}`
	w := newWorld(t, `[`+strings.Repeat(call+`,`, 5)+call+`]`)
	cwd := t.TempDir()
	x := filepath.Join(cwd, "x")
	var diag bytes.Buffer
	c := dial(t, w.host(), Options{Diag: &diag})
	c.norm = append(c.norm, strings.NewReplacer(cwd, "CWD", w.script, "SCRIPT"))
	c.masks = append(c.masks, mask{usedRE, `"used":N`})
	open := func(id int) string {
		c.send(sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":"%s","mcpServers":[]}}`, id, cwd))
		c.until(sprintf(`"id":%d,`, id))
		return c.sessionID()
	}
	s1 := open(1)
	prompt := func(id int, s string) string {
		return sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"%s","prompt":[{"type":"text","text":"go"}]}}`, id, s)
	}
	answer := func(id int, option string) string {
		return sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"outcome":{"outcome":"selected","optionId":"%s"}}}`, id, option)
	}
	busy := `session "UUID" is answering a prompt: wait for its response, or send session/cancel first`
	touch := func() {
		if err := os.WriteFile(x, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	touch()
	c.exchange([]step{
		one(prompt(2, s1), rmAsked(0, "call_1_1")...),
		one(prompt(3, s1), errLine(3, -32600, busy)),
		one(`{"jsonrpc":"2.0","id":4,"method":"session/set_config_option","params":{"sessionId":"`+s1+`","configId":"thinking","value":"high"}}`, errLine(4, -32600, busy)),
		one(`{"jsonrpc":"2.0","id":5,"method":"session/set_mode","params":{"sessionId":"`+s1+`","modeId":"read-only"}}`, errLine(5, -32600, busy)),
		one(answer(0, "allow-once"), rmTurn(2, "call_1_1", true)...),
	})
	if _, err := os.Stat(x); err == nil {
		t.Fatal("allow-once did not run the call")
	}
	touch()
	c.exchange([]step{
		one(prompt(6, s1), rmAsked(1, "call_3_1")...),
		one(answer(1, "allow-always"), rmTurn(6, "call_3_1", true)...),
	})
	touch()
	c.exchange([]step{one(prompt(7, s1), append(rmStart("call_5_1"), rmTurn(7, "call_5_1", true)...)...)})
	if _, err := os.Stat(x); err == nil {
		t.Fatal("allow-always did not run the call again")
	}

	touch()
	s2 := open(8)
	c.exchange([]step{
		one(prompt(9, s2), rmAsked(2, "call_1_1")...),
		one(`{"jsonrpc":"2.0","id":2,"result":{"outcome":{"outcome":"cancelled"}}}`, rmTurn(9, "call_1_1", false)...),
		one(prompt(10, s2), rmAsked(3, "call_3_1")...),
		one(`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"no one to ask"}}`, rmTurn(10, "call_3_1", false)...),
		one(prompt(11, s2), rmAsked(4, "call_5_1")...),
		one(answer(4, "reject-always"), rmTurn(11, "call_5_1", false)...),
		one(prompt(12, s2), append(rmStart("call_7_1"), rmTurn(12, "call_7_1", false)...)...),
	})
	if _, err := os.Stat(x); err != nil {
		t.Fatal("a refused call ran")
	}
	s3 := open(13)
	c.exchange([]step{
		one(prompt(14, s3), rmAsked(5, "call_1_1")...),
		// A prompt refused as busy leaves the one going on cancellable.
		one(prompt(15, s3), errLine(15, -32600, busy)),
		one(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"`+s3+`"}}`,
			update(strings.ReplaceAll(refusedRm, "call_2_1", "call_1_1")),
			`{"jsonrpc":"2.0","id":14,"result":{"stopReason":"cancelled"}}`),
	})
	if rest := c.close(); len(rest) != 0 {
		t.Fatalf("lines after stdin ended: %s", strings.Join(rest, "\n"))
	}
	if _, err := os.Stat(x); err != nil {
		t.Fatal("a cancelled call ran")
	}
	want := "gopi: permission: bash rm x is allowed for the rest of session " + s1 + " (the editor's answer; denied by rule Bash(rm *))\n" +
		"gopi: the editor could not ask about bash (no one to ask): the rule decides\n" +
		"gopi: permission: bash rm x is refused for the rest of session " + s2 + " (the editor's answer; denied by rule Bash(rm *))\n"
	if diag.String() != want {
		t.Fatalf("diagnostics\n%s\nwant\n%s", diag.String(), want)
	}
}
