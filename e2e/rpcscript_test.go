package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"gopi/internal/rpcdrive"
)

// cmdRPC plays a script of RPC commands to a program (internal/rpcdrive:
// send, wait, touch, signal, close) and writes every record it printed,
// split at LF only as pi's client splits them, one a line, to OUT; its
// stderr goes to OUT.err. The program must exit with CODE (default 0).
//
//	rpc [-code N] [-bg NAME] OUT SCRIPT PROG ARGS...
//
// With -bg it runs in the background until rpcwait NAME, which fails as
// rpc would have.
func cmdRPC(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "rpc")
	want, bg := 0, ""
	for len(args) > 1 && (args[0] == "-code" || args[0] == "-bg") {
		if args[0] == "-bg" {
			bg, args = args[1], args[2:]
			continue
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		want, args = n, args[2:]
	}
	if len(args) < 3 {
		ts.Fatalf("usage: rpc [-code N] [-bg NAME] OUT SCRIPT PROG ARGS...")
	}
	steps, err := rpcdrive.Parse(ts.ReadFile(args[1]))
	ts.Check(err)
	if bg == "" {
		ts.Check(playRPC(ts, steps, want, args))
		return
	}
	done := make(chan error, 1)
	rpcs(ts)[bg] = done
	go func() { done <- playRPC(ts, steps, want, args) }()
	ts.Defer(func() {
		if ch, ok := rpcs(ts)[bg]; ok {
			<-ch
		}
	})
}

type rpcsKey struct{}

func rpcs(ts *testscript.TestScript) map[string]chan error {
	return ts.Value(rpcsKey{}).(map[string]chan error)
}

// cmdRPCWait waits for an rpc -bg NAME to end.
func cmdRPCWait(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "rpcwait")
	if len(args) != 1 {
		ts.Fatalf("usage: rpcwait NAME")
	}
	ch, ok := rpcs(ts)[args[0]]
	if !ok {
		ts.Fatalf("rpcwait: no rpc -bg %s", args[0])
	}
	delete(rpcs(ts), args[0])
	ts.Check(<-ch)
}

// playRPC is rpc's work; it returns what went wrong instead of failing,
// so that it may run in the background.
func playRPC(ts *testscript.TestScript, steps []rpcdrive.Step, want int, args []string) error {
	path, err := exec.LookPath(args[2])
	if err != nil {
		return err
	}
	c := exec.Command(path, args[3:]...)
	c.Dir = ts.MkAbs(".")
	for _, k := range startEnv {
		if v := ts.Getenv(k); v != "" {
			c.Env = append(c.Env, k+"="+v)
		}
	}
	var stderr strings.Builder
	c.Stderr = &stderr
	in, err := c.StdinPipe()
	if err != nil {
		return err
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return err
	}
	if err := c.Start(); err != nil {
		return err
	}
	sigs := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP}
	recs, runErr := rpcdrive.RunWith(steps, c.Dir, in, fullPipe{out.(*os.File), c.Process.Pid}, waitLimit, func(name string) error {
		sig, ok := sigs[name]
		if !ok {
			return fmt.Errorf("signal %s: use INT, TERM or HUP", name)
		}
		return c.Process.Signal(sig)
	}, map[string]string{"WORK": ts.Getenv("WORK")})
	if runErr != nil {
		_ = c.Process.Kill()
	}
	waited := make(chan error, 1)
	go func() { waited <- c.Wait() }()
	var werr error
	select {
	case werr = <-waited:
	case <-time.After(waitLimit):
		// A process whose stdout is not read (stall) must still end.
		_ = c.Process.Kill()
		<-waited
		if runErr == nil {
			runErr = fmt.Errorf("%s still ran %v after the script's end", args[2], waitLimit)
		}
	}
	var b strings.Builder
	for _, r := range recs {
		b.Write(r)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(ts.MkAbs(args[0]+".err"), []byte(stderr.String()), 0o644); err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("rpc: %v\nstderr:\n%s\nrecords:\n%s", runErr, stderr.String(), b.String())
	}
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(werr, &ee):
		got = ee.ExitCode()
	case werr != nil:
		return fmt.Errorf("rpc: %v", werr)
	}
	if got != want {
		return fmt.Errorf("%s exited %d, want %d\nstderr:\n%s", args[2], got, want, stderr.String())
	}
	return nil
}

// cmdBashDeltas checks that the bash_execution_update deltas of one
// command id in an rpc output file, joined, are exactly the text of
// WANT (a file): all of the command's output, whatever pieces it came in.
func cmdBashDeltas(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: bashdeltas OUT ID WANT")
	}
	var got strings.Builder
	n := 0
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		var rec struct {
			Type  string  `json:"type"`
			ID    *string `json:"id"`
			Delta string  `json:"delta"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Type != "bash_execution_update" || rec.ID == nil || *rec.ID != args[1] {
			continue
		}
		got.WriteString(rec.Delta)
		n++
	}
	want := ts.ReadFile(args[2])
	if same := n > 0 && got.String() == want; same == neg {
		ts.Fatalf("bashdeltas: %d updates of id %s joined to %d bytes %q; want %q (%d bytes)", n, args[1], got.Len(), trimShow(got.String()), trimShow(want), len(want))
	}
}

// trimShow shortens a long text for a message: its start and end.
func trimShow(s string) string {
	if len(s) <= 200 {
		return s
	}
	return s[:100] + "…" + s[len(s)-100:]
}

// fullPipe is the process's stdout, which can tell when its pipe is full
// (rpcdrive's stall).
type fullPipe struct {
	*os.File
	pid int
}

func (p fullPipe) Full() (bool, error) { return stdoutFull(p.pid) }
