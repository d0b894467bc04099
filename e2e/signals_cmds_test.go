package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The script commands of the signal tests:
//
//	waitfile FILE               wait until FILE exists
//	waitgrep PATTERN FILE       wait until FILE exists and a line of it matches the regexp PATTERN
//	gone PIDFILE                every pid in PIDFILE (one a line) ends (a zombie counts as ended)
//	startpipe [-full] [-2] NAME FILE PROG ARGS...
//	                            start PROG in the background (as start does) with stdout a pipe
//	                            whose reader reads nothing and goes away once FILE exists; with
//	                            -full the reader stays, reading nothing, and creates FILE once the
//	                            pipe is full (PROG's next write waits); with -2 stderr goes to the
//	                            same pipe (2>&1)

// pollEvery is how often the signal tests' waits look again.
const pollEvery = 20 * time.Millisecond

func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "waitfile")
	if len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	path := ts.MkAbs(args[0])
	if !poll(func() bool { _, err := os.Stat(path); return err == nil }) {
		ts.Fatalf("%s did not appear within %v", args[0], waitLimit)
	}
}

func cmdWaitGrep(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "waitgrep")
	if len(args) != 2 {
		ts.Fatalf("usage: waitgrep PATTERN FILE")
	}
	re, err := regexp.Compile("(?m)" + args[0])
	ts.Check(err)
	path := ts.MkAbs(args[1])
	if !poll(func() bool { b, err := os.ReadFile(path); return err == nil && re.Match(b) }) {
		ts.Fatalf("no line of %s matched %q within %v", args[1], args[0], waitLimit)
	}
}

func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "gone")
	if len(args) != 1 {
		ts.Fatalf("usage: gone PIDFILE")
	}
	pids := strings.Fields(ts.ReadFile(args[0]))
	if len(pids) == 0 {
		ts.Fatalf("%s holds no pid", args[0])
	}
	for _, pid := range pids {
		if _, err := strconv.Atoi(pid); err != nil {
			ts.Fatalf("%s: %q is not a pid", args[0], pid)
		}
		if !poll(func() bool { return ended(pid) }) {
			ts.Fatalf("process %s still runs %v later", pid, waitLimit)
		}
	}
}

// ended reports that process pid no longer runs: it is gone, or a zombie
// nobody reaped yet.
func ended(pid string) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// poll reports whether ok became true within waitLimit.
func poll(ok func() bool) bool {
	deadline := time.Now().Add(waitLimit)
	for !ok() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
	return true
}

func cmdStartPipe(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "startpipe")
	full, both := false, false
	for len(args) > 0 && (args[0] == "-full" || args[0] == "-2") {
		full, both = full || args[0] == "-full", both || args[0] == "-2"
		args = args[1:]
	}
	if len(args) < 3 {
		ts.Fatalf("usage: startpipe [-full] [-2] NAME FILE PROG ARGS...")
	}
	name, until := args[0], ts.MkAbs(args[1])
	if _, dup := procs(ts)[name]; dup {
		ts.Fatalf("startpipe: %s is already running", name)
	}
	path, err := exec.LookPath(args[2])
	ts.Check(err)
	r, w, err := os.Pipe()
	ts.Check(err)
	p := &bgProc{cmd: exec.Command(path, args[3:]...), done: make(chan struct{})}
	p.cmd.Dir = ts.MkAbs(".")
	for _, k := range startEnv {
		if v := ts.Getenv(k); v != "" {
			p.cmd.Env = append(p.cmd.Env, k+"="+v)
		}
	}
	p.cmd.Stdin = strings.NewReader("")
	p.cmd.Stdout, p.cmd.Stderr = w, &p.stderr
	if both {
		p.cmd.Stderr = w
	}
	ts.Check(p.cmd.Start())
	w.Close()
	switch {
	case full:
		go func() {
			// The reader stalls: it keeps the pipe and reads nothing.
			defer r.Close()
			pid := p.cmd.Process.Pid
			if poll(func() bool { full, err := stdoutFull(pid); return err != nil || full }) {
				if full, _ := stdoutFull(pid); full {
					_ = os.WriteFile(until, nil, 0o644)
				}
			}
			<-p.done
		}()
	default:
		go func() {
			// The reader gives up as head -c1 does, once it has seen enough.
			poll(func() bool { _, err := os.Stat(until); return err == nil })
			r.Close()
		}()
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	procs(ts)[name] = p
	ts.Defer(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
}
