package tools

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"golang.org/x/sys/windows"

	"gopi/internal/wintest"
)

// testShellEnv makes this test binary act as a shell: `-c COMMAND`, where
// COMMAND is "echo TEXT", "exit N" or "tree PIDFILE" (start a child that
// sleeps, write its pid to PIDFILE, sleep).
const testShellEnv = "GOPI_TEST_SHELL"

func init() {
	if os.Getenv(testShellEnv) == "" {
		return
	}
	if len(os.Args) != 3 || os.Args[1] != "-c" {
		fmt.Fprintln(os.Stderr, "test shell: want -c COMMAND, got", os.Args[1:])
		os.Exit(2)
	}
	verb, arg, _ := strings.Cut(os.Args[2], " ")
	switch verb {
	case "echo":
		fmt.Println(arg)
		os.Exit(0)
	case "exit":
		n, _ := strconv.Atoi(arg)
		os.Exit(n)
	case "sleep":
		time.Sleep(time.Hour)
	case "tree":
		child := exec.Command(os.Args[0], "-c", "sleep")
		child.Env = os.Environ()
		if err := child.Start(); err != nil {
			fmt.Println("start child:", err)
			os.Exit(3)
		}
		if err := os.WriteFile(arg, []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
			os.Exit(4)
		}
		fmt.Println("child started")
		time.Sleep(time.Hour)
	}
	os.Exit(5)
}

// shellEnv is an Env whose bash tool runs this binary as its shell.
func shellEnv(t *testing.T) (*Env, *BashTool) {
	t.Helper()
	env := testEnv(t)
	env.Environ = append(os.Environ(), testShellEnv+"=1")
	return env, NewBash(Options{Shell: os.Args[0]})
}

func TestWindowsBashRunsAndReportsExitCode(t *testing.T) {
	env, tool := shellEnv(t)
	res := runTool(t, env, tool, map[string]any{"command": "echo hello from windows"})
	if res.IsError || strings.TrimSpace(text(res)) != "hello from windows" {
		t.Fatalf("echo: %q (error %v)", text(res), res.IsError)
	}
	res = runTool(t, env, tool, map[string]any{"command": "exit 3"})
	if !res.IsError || !strings.HasSuffix(text(res), "Command exited with code 3") {
		t.Fatalf("exit 3: %q", text(res))
	}
}

// The timeout ends the shell and the child it started (the job), within
// the bounded wait.
func TestWindowsBashTimeoutKillsTree(t *testing.T) {
	env, tool := shellEnv(t)
	pidFile := filepath.Join(tempDir(t), "pid")
	res := runTool(t, env, tool, map[string]any{"command": "tree " + pidFile, "timeout": 3})
	if !res.IsError || !strings.Contains(text(res), "child started") || !strings.HasSuffix(text(res), "Command timed out after 3 seconds") {
		t.Fatalf("got %q", text(res))
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	if !wintest.Ended(pid, 10*time.Second) {
		_ = exec.Command("taskkill", "/F", "/PID", strconv.Itoa(pid)).Run()
		t.Fatalf("the child %d outlived the timeout", pid)
	}
}

// An abort (the context) ends the tree the same way.
func TestWindowsBashAbortKillsTree(t *testing.T) {
	env, tool := shellEnv(t)
	pidFile := filepath.Join(tempDir(t), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	updates := make(chan struct{}, 1)
	go func() {
		<-updates
		cancel()
	}()
	res := runToolCtx(t, ctx, env, tool, map[string]any{"command": "tree " + pidFile}, func(Result) {
		select {
		case updates <- struct{}{}:
		default:
		}
	})
	cancel()
	if !res.IsError || !strings.HasSuffix(text(res), "Command aborted") {
		t.Fatalf("got %q", text(res))
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	if !wintest.Ended(pid, 10*time.Second) {
		t.Fatalf("the child %d outlived the abort", pid)
	}
}

// The shell: bash on PATH first, then pwsh, then Windows PowerShell; the
// description says which.
func TestWindowsShellChoice(t *testing.T) {
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := tempDir(t)
	put := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, self, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Setenv("PATH", dir)
	pwsh := put("pwsh.exe")
	desc := NewBash(Options{}).Spec().Description
	if !strings.Contains(desc, "PowerShell ("+pwsh+"), not bash") {
		t.Errorf("with pwsh only, description %q", desc)
	}
	bash := put("bash.exe")
	desc = NewBash(Options{}).Spec().Description
	if !strings.HasSuffix(desc, "commands run in "+bash+".") {
		t.Errorf("with bash and pwsh, description %q", desc)
	}
}

func TestPowerShellGetsTheCommandEncoded(t *testing.T) {
	command := `Write-Output "a \"quoted\" word" | % { $_ }`
	cmd := exec.Command(`C:\Program Files\PowerShell\7\pwsh.exe`, "-c", command)
	newProcTree(cmd)
	args := cmd.Args
	if len(args) != 7 || args[5] != "-EncodedCommand" {
		t.Fatalf("args %q", args)
	}
	raw, err := base64.StdEncoding.DecodeString(args[6])
	if err != nil {
		t.Fatal(err)
	}
	u := make([]uint16, len(raw)/2)
	for i := range u {
		u[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	if script := string(utf16.Decode(u)); !strings.HasSuffix(script, "\n"+command) {
		t.Errorf("script %q does not end with the command", script)
	}
	bash := exec.Command(`C:\Program Files\Git\bin\bash.exe`, "-c", command)
	newProcTree(bash)
	if len(bash.Args) != 3 || bash.Args[2] != command {
		t.Errorf("bash args changed: %q", bash.Args)
	}
}

// fakeJobs is a jobAPI whose steps can fail, and which records them; it
// delegates to the real one otherwise.
type fakeJobs struct {
	winJobs
	failCreate, failAssign, failResume bool
	steps                              []string
	activeN                            int
}

func (f *fakeJobs) create() (windows.Handle, error) {
	f.steps = append(f.steps, "create")
	if f.failCreate {
		return 0, errors.New("no job")
	}
	return f.winJobs.create()
}

func (f *fakeJobs) assign(job windows.Handle, pid int) error {
	f.steps = append(f.steps, "assign")
	if f.failAssign {
		return windows.ERROR_ACCESS_DENIED
	}
	return f.winJobs.assign(job, pid)
}

func (f *fakeJobs) resume(pid int) error {
	f.steps = append(f.steps, "resume")
	if f.failResume {
		return errors.New("resume refused")
	}
	return f.winJobs.resume(pid)
}

func (f *fakeJobs) terminate(job windows.Handle) error {
	f.steps = append(f.steps, "terminate")
	return f.winJobs.terminate(job)
}

func (f *fakeJobs) active(windows.Handle) (int, error) { return f.activeN, nil }

func useJobs(t *testing.T, f jobAPI) {
	old := jobs
	jobs = f
	t.Cleanup(func() { jobs = old })
}

// Where no job can be had (create or assign refused, as on a Windows that
// refuses nested jobs), the command still runs, and a timeout ends it.
func TestWindowsBashWithoutJob(t *testing.T) {
	for _, f := range []*fakeJobs{{failCreate: true}, {failAssign: true}} {
		useJobs(t, f)
		env, tool := shellEnv(t)
		if res := runTool(t, env, tool, map[string]any{"command": "echo untracked"}); strings.TrimSpace(text(res)) != "untracked" {
			t.Fatalf("%+v: got %q", f, text(res))
		}
		res := runTool(t, env, tool, map[string]any{"command": "sleep", "timeout": 0.5})
		if !strings.HasSuffix(text(res), "Command timed out after 0.5 seconds") {
			t.Fatalf("%+v: got %q", f, text(res))
		}
		for _, s := range f.steps {
			if s == "terminate" {
				t.Errorf("%+v: terminated a job it does not have: %v", f, f.steps)
			}
		}
	}
}

// A command that cannot be resumed is killed and reported, not left
// suspended.
func TestWindowsBashResumeRefused(t *testing.T) {
	useJobs(t, &fakeJobs{failResume: true})
	env, tool := shellEnv(t)
	res := runTool(t, env, tool, map[string]any{"command": "echo never"})
	if !res.IsError || !strings.Contains(text(res), "Cannot run the command: resume") {
		t.Fatalf("got %q", text(res))
	}
}

// A job whose processes outlive the shell is kept, and Kill ends it.
func TestWindowsGroupsKeepAndKill(t *testing.T) {
	f := &fakeJobs{activeN: 1}
	useJobs(t, f)
	env, tool := shellEnv(t)
	env.Groups = &Groups{}
	runTool(t, env, tool, map[string]any{"command": "echo kept"})
	if env.Groups.Len() != 1 {
		t.Fatalf("kept %d jobs, want 1", env.Groups.Len())
	}
	f.activeN = 0
	if left := env.Groups.Kill(time.Second); left != 0 || env.Groups.Len() != 0 {
		t.Fatalf("left %d, kept %d", left, env.Groups.Len())
	}
	if last := f.steps[len(f.steps)-1]; last != "terminate" {
		t.Errorf("steps %v: Kill did not terminate the job", f.steps)
	}
	var nilGroups *Groups
	if nilGroups.Len() != 0 || nilGroups.Kill(0) != 0 {
		t.Error("a nil Groups keeps something")
	}
}
