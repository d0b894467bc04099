package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A closed terminal hangs chat up (SIGHUP) while a bash call runs: the
// run is aborted, the bash process group is killed, the call is paired
// with an aborted result, and gopi exits 130. (The test sends the signal
// itself: the pty's master cannot be closed under its blocked reader.)
func TestChatHangupAbortsTheRun(t *testing.T) {
	t.Parallel()
	e := newChatEnv(t)
	pids := filepath.Join(e.dir, "sleeping.pids")
	sc := e.script(t, `[{"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 30 & echo $! > p.tmp; echo $$ >> p.tmp; mv p.tmp sleeping.pids; exec sleep 30"}}]}]`)
	p := startPty(t, e, "chat", "--provider", "faux", "--model", sc)
	p.expect("/help")
	p.send("sleep for a while\r")
	if !poll(func() bool { _, err := os.Stat(pids); return err == nil }) {
		t.Fatalf("the bash call did not start; output:\n%s", p.screen())
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(); code != 130 {
		t.Fatalf("exit %d; output:\n%s", code, p.screen())
	}
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range strings.Fields(string(data)) {
		if !poll(func() bool { return ended(pid) }) {
			t.Fatalf("process %s still runs", pid)
		}
	}
	_, es := sessionEntries(t, e)
	res := es[find(t, es, "toolResult", "Command aborted")]
	if es[len(es)-1].ID != res.ID {
		t.Fatalf("the aborted result is not the last entry: %+v", es)
	}
}
