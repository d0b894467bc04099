//go:build unix

package tools

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"gopi/pkg/sandbox"
)

// sandboxTree is a command the sandbox's helper starts (as the leader of
// a new process group, as procTree does) and every process it starts.
type sandboxTree struct {
	guard *sandbox.Guard
	cmd   *exec.Cmd // the command's program, arguments, folder, environment and output
	input []byte    // what its stdin reads (nil: stdin is closed)
	proc  *sandbox.Process
	// The copy of input into stdin's pipe: it may be cut short once the
	// command has ended (a background child left stdin unread).
	inW    *os.File
	inDone chan struct{}
}

func newSandboxTree(g *sandbox.Guard, cmd *exec.Cmd, input []byte) *sandboxTree {
	return &sandboxTree{guard: g, cmd: cmd, input: input}
}

func (t *sandboxTree) start() error {
	if t.cmd.Err != nil {
		return t.cmd.Err
	}
	c := sandbox.Command{Path: t.cmd.Path, Args: t.cmd.Args, Env: t.cmd.Env, Dir: t.cmd.Dir}
	c.Stdout, _ = t.cmd.Stdout.(*os.File)
	c.Stderr, _ = t.cmd.Stderr.(*os.File)
	var inR *os.File
	if t.input != nil {
		var err error
		if inR, t.inW, err = os.Pipe(); err != nil {
			return err
		}
		c.Stdin = inR
	}
	proc, err := t.guard.Start(c)
	if inR != nil {
		inR.Close()
	}
	if err != nil {
		if t.inW != nil {
			t.inW.Close()
		}
		return err
	}
	t.proc = proc
	if t.inW != nil {
		t.inDone = make(chan struct{})
		go func() {
			defer close(t.inDone)
			_, _ = t.inW.Write(t.input)
			_ = t.inW.Close()
		}()
	}
	return nil
}

// wait waits for the command's end, then lets the copy into its stdin
// finish for up to drainWait.
func (t *sandboxTree) wait() ending {
	exit, err := t.proc.Wait()
	if t.inDone != nil {
		timer := time.NewTimer(drainWait)
		select {
		case <-t.inDone:
		case <-timer.C:
			_ = t.inW.Close()
			<-t.inDone
		}
		timer.Stop()
	}
	switch {
	case err != nil:
		return ending{startErr: err}
	case exit.Signal != nil:
		return ending{signal: exit.Signal.String()}
	}
	return ending{code: exit.Code}
}

// kill sends SIGKILL to the whole group.
func (t *sandboxTree) kill() { _ = syscall.Kill(-t.proc.Pid, syscall.SIGKILL) }

// keepIn hands the group to g when members outlive the command.
func (t *sandboxTree) keepIn(g *Groups) { g.keep(t.proc.Pid) }

func (t *sandboxTree) close() {}
