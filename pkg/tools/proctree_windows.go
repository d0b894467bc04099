package tools

import (
	"encoding/base64"
	"fmt"
	"os/exec"
	"syscall"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procTree is a command and every process it starts: on Windows, a job
// object the command is put in before it runs (it starts suspended), so
// that its children, which inherit the job, end with it.
type procTree struct {
	cmd *exec.Cmd
	api jobAPI
	job windows.Handle // 0: not tracked; kill ends the command alone
}

// jobAPI is what a process tree needs of Windows: tests put a fake in
// its place where Wine does not behave as Windows does.
type jobAPI interface {
	// create makes a job whose processes die when its last handle closes.
	create() (windows.Handle, error)
	// assign puts the (suspended) process pid in the job.
	assign(job windows.Handle, pid int) error
	// resume starts the threads of the suspended process pid.
	resume(pid int) error
	// terminate ends every process of the job.
	terminate(job windows.Handle) error
	// active counts the job's processes still running.
	active(job windows.Handle) (int, error)
	close(job windows.Handle)
}

// jobs is the jobAPI of new process trees.
var jobs jobAPI = winJobs{}

// newProcTree prepares cmd to start suspended in a process group of its
// own (a Ctrl-C in gopi's console reaches gopi, which ends the tree). A
// PowerShell gets the command as -EncodedCommand, which no quoting rule
// of the command line can mangle, with its output in UTF-8.
func newProcTree(cmd *exec.Cmd) *procTree {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
	if isPowerShell(cmd.Path) && len(cmd.Args) == 3 && cmd.Args[1] == "-c" {
		cmd.Args = powerShellArgs(cmd.Args[0], cmd.Args[2])
	}
	return &procTree{cmd: cmd, api: jobs}
}

// powerShellArgs runs command in PowerShell without profile or prompts.
func powerShellArgs(shell, command string) []string {
	script := "$ProgressPreference = 'SilentlyContinue'\n" +
		"[Console]::OutputEncoding = [System.Text.Encoding]::UTF8\n" + command
	u := utf16.Encode([]rune(script))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		b[2*i], b[2*i+1] = byte(c), byte(c>>8)
	}
	return []string{shell, "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass",
		"-EncodedCommand", base64.StdEncoding.EncodeToString(b)}
}

// start starts the command suspended, puts it in a new job and lets it
// run. Where no job can be had (an old Windows that refuses nested jobs),
// the command runs untracked and kill ends it alone.
func (t *procTree) start() error {
	job, jobErr := t.api.create()
	if err := t.cmd.Start(); err != nil {
		if jobErr == nil {
			t.api.close(job)
		}
		return err
	}
	pid := t.cmd.Process.Pid
	if jobErr == nil {
		if err := t.api.assign(job, pid); err != nil {
			t.api.close(job)
		} else {
			t.job = job
		}
	}
	if err := t.api.resume(pid); err != nil {
		t.kill()
		_ = t.cmd.Wait()
		t.close()
		return fmt.Errorf("resume %s: %w", t.cmd.Path, err)
	}
	return nil
}

// kill ends the whole tree: the job, or the command alone.
func (t *procTree) kill() {
	if t.job != 0 {
		if t.api.terminate(t.job) == nil {
			return
		}
	}
	_ = t.cmd.Process.Kill()
}

// keepIn hands the job to g when processes outlive the shell.
func (t *procTree) keepIn(g *Groups) {
	if g == nil || t.job == 0 {
		return
	}
	if n, err := t.api.active(t.job); err == nil && n > 0 {
		g.keepJob(t.job, t.api)
		t.job = 0
	}
}

// close lets go of the job; processes still in it die.
func (t *procTree) close() {
	if t.job != 0 {
		t.api.close(t.job)
		t.job = 0
	}
}

// winJobs is the real jobAPI.
type winJobs struct{}

func (winJobs) create() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

func (winJobs) assign(job windows.Handle, pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.AssignProcessToJobObject(job, h)
}

// resume resumes every thread of pid (a process started suspended has one).
func (winJobs) resume(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("no thread of process %d found", pid)
	}
	return nil
}

func (winJobs) terminate(job windows.Handle) error { return windows.TerminateJobObject(job, 1) }

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}

func (winJobs) active(job windows.Handle) (int, error) {
	var info jobAccounting
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0, err
	}
	return int(info.ActiveProcesses), nil
}

func (winJobs) close(job windows.Handle) { windows.CloseHandle(job) }
