package tools

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"gopi/pkg/sandbox"
)

// Bounded waits of a bash call.
const (
	// drainWait is how long the pipe may stay empty after the shell
	// exited before the reader stops, when a background process keeps
	// the pipe open.
	drainWait = 250 * time.Millisecond
	// killWait bounds the wait for the process group after SIGKILL, and
	// the wait for the reader after the shell ended.
	killWait = 2 * time.Second
)

// ending is how a command ended.
type ending struct {
	code     int
	signal   string
	timedOut bool
	aborted  bool
	startErr error
}

// failed reports whether the command ran and exited with a status other
// than 0 (not a timeout, an abort or a signal).
func (e ending) failed() bool {
	return e.startErr == nil && !e.aborted && !e.timedOut && e.signal == "" && e.code != 0
}

// process runs one command with its output going to sink.
type process struct {
	shell  string
	env    *Env
	sink   *outputSink
	update func()
	// output, when set, receives the whole output as text (WithOutput).
	output func(string)
	// A command tool's extras: what its stdin reads (nil: stdin is
	// closed), variables added to its environment, and where its stderr
	// goes (nil: into sink with stdout, in order).
	stdin    []byte
	extraEnv []string
	errSink  *outputSink
}

// run starts the command and waits for it, the timeout or ctx.
func (p *process) run(ctx context.Context, command string, timeout time.Duration) ending {
	defer p.sink.close()
	if ctx.Err() != nil {
		return ending{aborted: true}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return ending{startErr: err}
	}
	defer r.Close()
	cmd := p.command(command, w)
	var er, ew *os.File
	if p.errSink != nil {
		defer p.errSink.close()
		if er, ew, err = os.Pipe(); err != nil {
			w.Close()
			return ending{startErr: err}
		}
		defer er.Close()
		cmd.Stderr = ew
	}
	tree := p.tree(cmd)
	err = tree.start()
	w.Close()
	if ew != nil {
		ew.Close()
	}
	if err != nil {
		return ending{startErr: err}
	}
	defer tree.close()
	readDone := make(chan struct{})
	go p.read(r, p.sink, p.update, p.output, readDone)
	if er != nil {
		errDone := make(chan struct{})
		go p.read(er, p.errSink, func() {}, nil, errDone)
		defer awaitOrClose(errDone, er, drainWait, killWait)
	}
	return p.await(ctx, tree, timeout, readDone, r)
}

// command is the shell running command, its output (stdout and stderr)
// to w.
func (p *process) command(command string, w *os.File) *exec.Cmd {
	cmd := exec.Command(p.shell, "-c", command)
	cmd.Dir = p.env.Cwd
	cmd.Env = append(commandEnv(p.env.Environ), p.extraEnv...)
	cmd.Stdout, cmd.Stderr = w, w // one pipe: output keeps its order
	if p.stdin != nil {
		cmd.Stdin = bytes.NewReader(p.stdin)
		// A command that leaves its stdin unread to a background child
		// must not hold Wait: the copy is dropped this long after exit.
		cmd.WaitDelay = drainWait
	}
	return cmd
}

// tree runs cmd in the sandbox when the guard has one.
func (p *process) tree(cmd *exec.Cmd) procRunner {
	if p.env.Guard.Mode() != sandbox.Off {
		return newSandboxTree(p.env.Guard, cmd, p.stdin)
	}
	return newProcTree(cmd)
}

// await waits for the started tree to exit, the timeout or ctx's end,
// killing the tree in the latter two, and for the output read from r
// (readDone) to end.
func (p *process) await(ctx context.Context, tree procRunner, timeout time.Duration, readDone <-chan struct{}, r *os.File) ending {
	waitDone := make(chan ending, 1)
	go func() { waitDone <- tree.wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var end ending
	select {
	case end = <-waitDone:
		awaitOrClose(readDone, r, drainWait, killWait)
		tree.keepIn(p.env.Groups) // a `server &` may serve later calls
		return end
	case <-timer.C:
		end.timedOut = true
	case <-ctx.Done():
		end.aborted = true
	}
	tree.kill()
	deadline := time.NewTimer(killWait)
	defer deadline.Stop()
	select {
	case <-waitDone:
	case <-deadline.C:
	}
	awaitOrClose(readDone, r, killWait/4, killWait)
	return end
}

// procRunner is a started command and every process it starts.
type procRunner interface {
	start() error
	// wait waits for the command (not its background processes) to end.
	wait() ending
	// kill ends the whole tree.
	kill()
	// keepIn hands the tree to g when processes outlive the command.
	keepIn(g *Groups)
	close()
}

func (t *procTree) wait() ending { return exitEnding(t.cmd.Wait()) }

// read copies the pipe into sink, the secrets scrubbed, until EOF or the
// pipe is closed, calling update after each piece; output (when set) gets
// every scrubbed piece too, the last before done is closed.
func (p *process) read(r *os.File, sink *outputSink, update func(), output func(string), done chan<- struct{}) {
	defer close(done)
	emit := sink.write
	if output != nil {
		text := &runeCut{out: output}
		defer text.flush() // after the scrubber's flush below
		emit = func(b []byte) {
			sink.write(b)
			text.write(b)
		}
	}
	scrub := p.env.Secrets.Stream(emit)
	defer scrub.Flush()
	buf := make([]byte, readChunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			scrub.Write(buf[:n])
			update()
		}
		if err != nil {
			return
		}
	}
}

// awaitOrClose waits for the reader to reach EOF. When a process still
// holds the pipe open, the reader is stopped once the pipe has stayed
// empty for d, or after limit in all: output already in the pipe is read
// however slowly the reader runs, but a background process that keeps the
// pipe (or keeps writing to it) does not keep the call open.
func awaitOrClose(done <-chan struct{}, r *os.File, d, limit time.Duration) {
	deadline := time.Now().Add(limit)
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		if pipeEmpty(r) || !time.Now().Before(deadline) {
			break
		}
		t.Reset(d)
	}
	_ = r.Close()
	<-done
}

func exitEnding(err error) ending {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return ending{startErr: err}
		}
		return ending{}
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ending{signal: ws.Signal().String()}
	}
	return ending{code: ee.ExitCode()}
}

// commandEnv is the environment a command sees: env minus credentials,
// never the process's own (a nil environ gives an empty environment).
func commandEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !isSecretName(name) {
			out = append(out, kv)
		}
	}
	return out
}

// secretNames are provider credentials that do not end in _API_KEY.
var secretNames = map[string]bool{
	"ANTHROPIC_AUTH_TOKEN":    true,
	"ANTHROPIC_OAUTH_TOKEN":   true,
	"CLAUDE_CODE_OAUTH_TOKEN": true,
	"API_KEY":                 true,
}

// isSecretName reports a variable that holds a provider credential.
func isSecretName(name string) bool {
	up := strings.ToUpper(name)
	return strings.HasSuffix(up, "_API_KEY") || secretNames[up]
}
