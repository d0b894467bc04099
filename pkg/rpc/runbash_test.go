package rpc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/pkg/assemble/assembletest"
)

// bash during a run runs beside it, as pi's: its output and answer come
// while the run waits on its own tool, abort_bash stops it and leaves the
// run going, and its message is held until the run ends, then recorded
// after the run's messages, before agent_settled.
func TestServeBashDuringARun(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "go")
	args, _ := json.Marshal(map[string]string{"command": "while [ ! -f " + gate + " ]; do sleep 0.01; done; echo run tool"})
	script := `[{"toolCalls":[{"name":"bash","arguments":` + string(args) + `}]},{"text":"done"}]`
	s := assembletest.Settings(t, script)
	s.Tools = []string{"bash"}
	h := NewHost(assembletest.Open(t, s), HostConfig{MaxPrompt: 1 << 20, MaxPromptOrigin: "--max-prompt-bytes"})
	c := startClient(t, h.First(), h, Options{})
	t.Cleanup(func() {
		if t.Failed() { // stopped early: the run ends and its records are read before the Assembly is released
			_ = os.WriteFile(gate, nil, 0o600)
			close(c.lines)
			for {
				if _, err := c.recs.Next(); err != nil {
					break
				}
			}
			<-c.done
		}
	})
	c.send(`{"id":"p","type":"prompt","message":"go"}`)
	c.until(`{"type":"tool_execution_start"`)

	c.send(`{"id":"b1","type":"bash","command":"echo beside"}`)
	got := c.until(`{"id":"b1","type":"response"`)
	if want := `{"id":"b1","type":"response","schemaVersion":1,"command":"bash","success":true,"data":{"output":"beside\n","exitCode":0,"cancelled":false,"truncated":false}}`; got[len(got)-1] != want {
		t.Fatalf("bash during the run answered\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	c.send(`{"id":"b2","type":"bash","command":"sleep 30"}`)
	c.send(`{"id":"ab","type":"abort_bash"}`)
	got = c.until(`{"id":"ab",`)
	if !strings.Contains(strings.Join(got, "\n"), `{"id":"b2","type":"response","schemaVersion":1,"command":"bash","success":true,"data":{"output":"","cancelled":true,"truncated":false}}`) {
		t.Fatalf("abort_bash during the run: the bash answered\n%s", strings.Join(got, "\n"))
	}
	c.send(`{"id":"s","type":"get_state"}`)
	if st := c.until(`{"id":"s",`); !strings.Contains(st[len(st)-1], `"isStreaming":true,`) {
		t.Fatalf("the run did not go on: %s", st[len(st)-1])
	}
	c.send(`{"id":"m1","type":"get_messages"}`)
	if m := c.until(`{"id":"m1",`); strings.Contains(m[len(m)-1], "bashExecution") {
		t.Fatalf("the bash message is in the run's context before it ends: %s", m[len(m)-1])
	}

	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c.until(`{"type":"agent_settled"`)
	c.send(`{"id":"m2","type":"get_messages"}`)
	m := c.until(`{"id":"m2",`)
	var data struct {
		Data struct {
			Messages []struct {
				Role    string `json:"role"`
				Command string `json:"command"`
			} `json:"messages"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(strings.NewReplacer(`:T`, `:0`, `:D`, `:0`).Replace(m[len(m)-1])), &data); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, msg := range data.Data.Messages {
		roles = append(roles, msg.Role+msg.Command)
	}
	want := "user assistant toolResult assistant bashExecutionecho beside bashExecutionsleep 30"
	if strings.Join(roles, " ") != want {
		t.Fatalf("messages after the run: %s\nwant %s", strings.Join(roles, " "), want)
	}
	c.end()
}
