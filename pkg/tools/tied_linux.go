package tools

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startTied starts cmd so that the kernel kills it (SIGKILL) when gopi
// ends in any way, a SIGKILL of gopi included: the parent-death signal.
// The kernel sends it when the thread that forked the command exits, not
// the process, so the command is started from a goroutine locked to its
// thread, which holds that thread until release is closed (when the
// command has ended): no locked goroutine exiting elsewhere can take the
// thread, and the command with it, while the command runs. Only the
// command's own process is tied: what it leaves running in the
// background is not (the sandbox's helper ends those too).
func startTied(cmd *exec.Cmd) (release chan<- struct{}, err error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	rel := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		started <- err
		if err == nil {
			<-rel
		}
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return rel, nil
}
