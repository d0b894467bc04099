package extension

import (
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"

	"gopi/pkg/tools"
)

// killTreeOnCancel starts cmd in its own process group (a Ctrl-C reaches
// gopi, not the hook) and has a cancel end the hook and every process it
// started (taskkill /T), then the hook itself should taskkill be missing.
func killTreeOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	cmd.Cancel = func() error {
		_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid)).Run()
		return cmd.Process.Kill()
	}
}

// defaultShell is the bash tool's shell: bash on PATH (Git for Windows,
// WSL), else pwsh, else powershell.exe; there is no /bin/sh.
func defaultShell() string { return tools.DefaultShell() }
