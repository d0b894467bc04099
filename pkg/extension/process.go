package extension

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"gopi/pkg/tools"
)

// Bounds of one command hook run.
const (
	// maxHookOutput bounds what is kept of a hook's stdout and of its
	// stderr; more stdout than this denies the call.
	maxHookOutput = 1 << 20
	// pipeWait bounds the wait for output after the hook exited or was
	// killed, when a process it started keeps the pipes open.
	pipeWait = 500 * time.Millisecond
)

// runResult is how one hook run ended and what it printed.
type runResult struct {
	exitCode int
	signal   string
	timedOut bool
	aborted  bool
	startErr error
	stdout   limitedBuffer
	stderr   limitedBuffer
	timeout  time.Duration
}

// run starts the command in its own process group (a job object on
// Windows), feeds it input and waits for it, its timeout or ctx; the
// group is killed on either.
func (c *commandHook) run(ctx context.Context, input []byte) *runResult {
	res := &runResult{timeout: c.timeout}
	if ctx.Err() != nil {
		res.aborted = true
		return res
	}
	runCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	shell := c.env.Shell
	if shell == "" {
		shell = defaultShell()
	}
	cmd := exec.CommandContext(runCtx, shell)
	cmd.Args = tools.ShellArgs(shell, c.command)
	cmd.Dir = c.dir
	cmd.Env = hookEnv(c.env, c.dir)
	cmd.Stdin = bytes.NewReader(input)
	cmd.Stdout, cmd.Stderr = &res.stdout, &res.stderr
	tree := newHookTree(cmd)
	cmd.WaitDelay = pipeWait
	err := tree.run()
	switch {
	case ctx.Err() != nil:
		res.aborted = true
	case runCtx.Err() != nil:
		res.timedOut = true
	}
	res.setEnding(cmd, err)
	res.scrub(c.env.Secrets)
	return res
}

// setEnding records the exit code or signal. A hook that exited while a
// child kept its pipes open (exec.ErrWaitDelay) still has its exit code.
func (r *runResult) setEnding(cmd *exec.Cmd, err error) {
	st := cmd.ProcessState
	if st == nil {
		if err == nil {
			err = errors.New("the command did not start")
		}
		r.startErr = err
		return
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.signal = ws.Signal().String()
		return
	}
	r.exitCode = st.ExitCode()
}

// hookEnv is the hook's environment: the injected one without
// credentials, plus the project folder under gopi's and Claude Code's
// names so that hooks written for either work.
func hookEnv(env CommandEnv, project string) []string {
	out := make([]string, 0, len(env.Environ)+2)
	for _, kv := range env.Environ {
		name, _, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		if isSecretName(up) || up == "GOPI_PROJECT_DIR" || up == "CLAUDE_PROJECT_DIR" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GOPI_PROJECT_DIR="+project, "CLAUDE_PROJECT_DIR="+project)
}

// secretNames are provider credentials that do not end in _API_KEY.
var secretNames = map[string]bool{
	"API_KEY":                 true,
	"ANTHROPIC_AUTH_TOKEN":    true,
	"ANTHROPIC_OAUTH_TOKEN":   true,
	"CLAUDE_CODE_OAUTH_TOKEN": true,
}

// isSecretName reports an upper-cased variable name that holds a provider
// credential: any *_API_KEY, and the known token variables.
func isSecretName(up string) bool {
	return strings.HasSuffix(up, "_API_KEY") || secretNames[up]
}

// limitedBuffer keeps the first maxHookOutput bytes written to it and
// remembers that more came.
type limitedBuffer struct {
	buf      bytes.Buffer
	overflow bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxHookOutput - b.buf.Len(); len(p) > room {
		b.overflow = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) String() string { return b.buf.String() }
