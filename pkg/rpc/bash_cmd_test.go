package rpc

import (
	"strings"
	"testing"

	"gopi/pkg/assemble"
	"gopi/pkg/assemble/assembletest"
)

// bashAssembly is an opened Assembly on the faux model offering the
// bash tool, its session in memory.
func bashAssembly(t *testing.T) *assemble.Assembly {
	s := assembletest.Settings(t, "")
	s.Tools, s.Session.None = []string{"bash"}, true
	return assembletest.Open(t, s)
}

// bash runs the command with the session's bash tool, streams its output
// as bash_execution_update and answers with the output and exit code;
// the run is recorded as a bashExecution message; abort_bash while idle
// answers success; a bash without command is refused.
func TestServeBash(t *testing.T) {
	h := NewHost(bashAssembly(t), HostConfig{MaxPrompt: 1 << 20, MaxPromptOrigin: "--max-prompt-bytes", NoSession: true})
	c := startClient(t, h.First(), h, Options{})
	c.send(`{"id":"b0","type":"bash"}`)
	c.expect(`{"id":"b0","type":"response","schemaVersion":1,"command":"bash","success":false,"error":"field \"command\" is required"}`)
	c.send(`{"id":"b1","type":"bash","command":"echo hi; exit 3"}`)
	got := c.until(`{"id":"b1","type":"response"`)
	var out strings.Builder
	for _, l := range got[:len(got)-1] {
		d, ok := strings.CutPrefix(l, `{"type":"bash_execution_update","schemaVersion":1,"id":"b1","delta":"`)
		if !ok {
			t.Fatalf("record before bash's response: %s", l)
		}
		out.WriteString(strings.TrimSuffix(d, `"}`))
	}
	if out.String() != `hi\n` {
		t.Errorf("updates say %q", out.String())
	}
	if want := `{"id":"b1","type":"response","schemaVersion":1,"command":"bash","success":true,"data":{"output":"hi\n","exitCode":3,"cancelled":false,"truncated":false}}`; got[len(got)-1] != want {
		t.Fatalf("bash answered\n%s\nwant\n%s", got[len(got)-1], want)
	}
	c.send(`{"id":"ab","type":"abort_bash"}`)
	c.expect(`{"id":"ab","type":"response","schemaVersion":1,"command":"abort_bash","success":true}`)
	c.send(`{"id":"b2","type":"bash","command":"true"}`)
	if got := c.until(`{"id":"b2","type":"response"`); got[len(got)-1] != `{"id":"b2","type":"response","schemaVersion":1,"command":"bash","success":true,"data":{"output":"","exitCode":0,"cancelled":false,"truncated":false}}` {
		t.Fatalf("bash true answered\n%s", strings.Join(got, "\n"))
	}
	c.send(`{"id":"m","type":"get_messages"}`)
	c.expect(`{"id":"m","type":"response","schemaVersion":1,"command":"get_messages","success":true,"data":{"messages":[` +
		`{"role":"bashExecution","cancelled":false,"command":"echo hi; exit 3","exitCode":3,"output":"hi\n","timestamp":T,"truncated":false},` +
		`{"role":"bashExecution","cancelled":false,"command":"true","exitCode":0,"output":"","timestamp":T,"truncated":false}]}}`)
	c.end()
}
