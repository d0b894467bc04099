package cmd_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"

	"gopi/internal/rpcdrive"
)

// cmdRPC plays a script of RPC commands to a program (internal/rpcdrive:
// send, wait, touch, signal, close) and writes every record it printed,
// split at LF only as pi's client splits them, one a line, to OUT; its
// stderr goes to OUT.err. The program must exit with CODE (default 0).
//
//	rpc [-code N] OUT SCRIPT PROG ARGS...
func cmdRPC(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "rpc")
	want := 0
	if len(args) > 1 && args[0] == "-code" {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		want, args = n, args[2:]
	}
	if len(args) < 3 {
		ts.Fatalf("usage: rpc [-code N] OUT SCRIPT PROG ARGS...")
	}
	steps, err := rpcdrive.Parse(ts.ReadFile(args[1]))
	ts.Check(err)
	path, err := exec.LookPath(args[2])
	ts.Check(err)
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
	ts.Check(err)
	out, err := c.StdoutPipe()
	ts.Check(err)
	ts.Check(c.Start())
	sigs := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP}
	recs, runErr := rpcdrive.Run(steps, c.Dir, in, out, waitLimit, func(name string) error {
		sig, ok := sigs[name]
		if !ok {
			return fmt.Errorf("signal %s: use INT, TERM or HUP", name)
		}
		return c.Process.Signal(sig)
	})
	if runErr != nil {
		_ = c.Process.Kill()
	}
	werr := c.Wait()
	var b strings.Builder
	for _, r := range recs {
		b.Write(r)
		b.WriteByte('\n')
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]+".err"), []byte(stderr.String()), 0o644))
	if runErr != nil {
		ts.Fatalf("rpc: %v\nstderr:\n%s\nrecords:\n%s", runErr, stderr.String(), b.String())
	}
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(werr, &ee):
		got = ee.ExitCode()
	case werr != nil:
		ts.Fatalf("rpc: %v", werr)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d\nstderr:\n%s", args[2], got, want, stderr.String())
	}
}
