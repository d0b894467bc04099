package rpc

import (
	"os"
	"strings"
	"testing"
)

// abort_bash stops the command going on: its response says cancelled
// with no exit code, before abort_bash's own; output over the bash
// tool's bound is its kept tail, truncated and the full output's file
// named.
func TestServeBashAbortAndTruncated(t *testing.T) {
	h := NewHost(bashAssembly(t), HostConfig{MaxPrompt: 1 << 20, NoSession: true})
	c := startClient(t, h.First(), h, Options{})
	c.send(`{"id":"b1","type":"bash","command":"echo started; sleep 60; echo never"}`)
	c.expect(`{"type":"bash_execution_update","schemaVersion":1,"id":"b1","delta":"started\n"}`)
	c.send(`{"id":"ab","type":"abort_bash"}`)
	c.expect(answer("b1", "bash", `"success":true,"data":{"output":"started\n","cancelled":true,"truncated":false}`))
	c.expect(answer("ab", "abort_bash", `"success":true`))

	resp, _ := c.ask(`{"id":"b2","type":"bash","command":"seq 1 30000"}`)
	var out struct {
		Output         string `json:"output"`
		ExitCode       *int   `json:"exitCode"`
		Cancelled      bool   `json:"cancelled"`
		Truncated      bool   `json:"truncated"`
		FullOutputPath string `json:"fullOutputPath"`
	}
	data(t, resp, &out)
	if !out.Truncated || out.Cancelled || out.ExitCode == nil || *out.ExitCode != 0 || !strings.HasSuffix(out.Output, "\n29999\n30000") ||
		strings.Contains(out.Output, "[Showing") || strings.HasPrefix(out.Output, "1\n") {
		t.Fatalf("a long output answered %.300s ... %s", resp, resp[max(0, len(resp)-300):])
	}
	full, err := os.ReadFile(out.FullOutputPath)
	if err != nil || !strings.HasPrefix(string(full), "1\n2\n") || !strings.HasSuffix(string(full), "30000\n") {
		t.Fatalf("full output %q: %.40q %v", out.FullOutputPath, full, err)
	}
	c.end()
}
