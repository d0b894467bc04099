package extension

import (
	"os/exec"

	"gopi/internal/winjob"
	"gopi/pkg/tools"
)

// hookTree is a hook's command and every process it starts, in a job
// object (winjob.Tree), so that its children end with it on a cancel, as
// the bash tool's and MCP servers' trees do; a Ctrl-C reaches gopi, not
// the hook.
type hookTree struct{ *winjob.Tree }

// newHookTree prepares cmd to start suspended and has a cancel end the
// whole tree.
func newHookTree(cmd *exec.Cmd) *hookTree {
	t := &hookTree{winjob.NewTree(cmd)}
	cmd.Cancel = t.Kill
	return t
}

// run starts the command and waits for it. What the hook left running
// when it exited runs on, as on Unix: the job is let go without ending it.
func (t *hookTree) run() error {
	if err := t.Start(); err != nil {
		return err
	}
	err := t.Cmd.Wait()
	t.Detach()
	return err
}

// defaultShell is the bash tool's shell: bash on PATH (Git for Windows,
// WSL), else pwsh, else powershell.exe; there is no /bin/sh.
func defaultShell() string { return tools.DefaultShell() }
