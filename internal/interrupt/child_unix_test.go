//go:build unix

package interrupt

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The process's own stdout is what Pipes and a run's trap work on, so
// these tests run a child of the test binary with the stdout they need
// (childScenarios); it reports on fd 3.

const childEnv = "GOPI_INTERRUPT_CHILD"

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		report := os.NewFile(3, "report")
		childScenarios[name](report)
		report.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var childScenarios = map[string]func(report io.Writer){
	"pipe":         boundStdoutPipe,
	"shared":       boundSharedPipe,
	"file":         fileStdout,
	"run":          runOnPipe,
	"trap-stop":    trapThenStop,
	"run-stop":     trapRunThenStop,
	"sigpipe":      sigpipeCaughtWhileTrapped,
	"force-exit":   forceExitWithoutExitFunc,
	"nonblocking":  inheritedNonblocking,
	"force-shared": forceExitOnASharedFullPipe,
}

// blocking reports whether fd is in blocking mode.
func blocking(fd int) bool {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_NONBLOCK == 0
}

// stuckWrite writes more than a pipe holds to w and reports whether it
// failed as stuck, and within about StopWait.
func stuckWrite(w io.Writer) string {
	start := time.Now()
	_, err := w.Write(make([]byte, 1<<20))
	d := time.Since(start)
	return fmt.Sprintf("stuck=%v in-time=%v", IsStuck(err), d >= StopWait/2 && d < 3*StopWait)
}

func boundStdoutPipe(report io.Writer) {
	// Another pipe than stdout is not the process's stdout: not bounded.
	_, other, _ := os.Pipe()
	o := NewPipes(other, os.Stderr)
	fmt.Fprintf(report, "other pipe bounder=%v\n", o.Bounder() != nil)
	p := NewPipes(os.Stdout, os.Stderr)
	fmt.Fprintf(report, "bounder=%v out-is-stdout=%v err-is-stderr=%v blocking=%v\n",
		p.Bounder() != nil, p.Out == io.Writer(os.Stdout), p.Err == io.Writer(os.Stderr), blocking(1))
	// A write already waiting for the reader is bounded too.
	done := make(chan string, 1)
	go func() { done <- stuckWrite(p.Out) }()
	time.Sleep(200 * time.Millisecond)
	select {
	case r := <-done:
		fmt.Fprintf(report, "unbounded write ended: %s\n", r)
		return
	default:
	}
	p.Bound(true)
	fmt.Fprintln(report, <-done)
	p.Restore()
	fmt.Fprintf(report, "restored blocking=%v\n", blocking(1))
}

func boundSharedPipe(report io.Writer) {
	var other bytes.Buffer
	q := NewPipes(os.Stdout, &other)
	fmt.Fprintf(report, "other stderr kept=%v\n", q.Err == io.Writer(&other))
	p := NewPipes(os.Stdout, os.Stderr)
	fmt.Fprintf(report, "err-is-stderr=%v\n", p.Err == io.Writer(os.Stderr))
	p.Bound(true)
	fmt.Fprintln(report, stuckWrite(p.Err))
	p.Restore()
}

func fileStdout(report io.Writer) {
	p := NewPipes(os.Stdout, os.Stderr)
	fmt.Fprintf(report, "bounder=%v out-is-stdout=%v\n", p.Bounder() != nil, p.Out == io.Writer(os.Stdout))
}

func inheritedNonblocking(report io.Writer) {
	p := NewPipes(os.Stdout, os.Stderr)
	fmt.Fprintf(report, "bounder=%v\n", p.Bounder() != nil)
	p.Bound(true)
	fmt.Fprintln(report, stuckWrite(p.Out))
	p.Restore()
	fmt.Fprintf(report, "blocking=%v\n", blocking(1))
}

func runOnPipe(report io.Writer) {
	ctx, cancel := context.WithCancel(context.Background())
	r := TrapRun(ctx, Config{Stdout: os.Stdout, Stderr: os.Stderr})
	r.Ready()
	cancel()
	time.Sleep(50 * time.Millisecond)
	fmt.Fprintln(report, stuckWrite(r.Stdout()))
	fmt.Fprintf(report, "lost=%q\n", r.Stdout().Lost(false))
	r.Stop()
	fmt.Fprintf(report, "restored blocking=%v\n", blocking(1))
}

// After stop, SIGINT is no longer caught: the child dies of it.
func trapThenStop(report io.Writer) {
	_, stop := Trap(context.Background(), Config{Signals: true, Stderr: os.Stderr})
	stop()
	fmt.Fprintln(report, "stopped")
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	time.Sleep(2 * time.Second)
	fmt.Fprintln(report, "survived")
}

func trapRunThenStop(report io.Writer) {
	// Stopped at once, before the signals may be registered: Stop waits
	// for them, then releases them.
	r := TrapRun(context.Background(), Config{Signals: true, Stdout: io.Discard, Stderr: os.Stderr})
	r.Stop()
	fmt.Fprintln(report, "stopped")
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	time.Sleep(2 * time.Second)
	fmt.Fprintln(report, "survived")
}

// While trapped, a write to a stdout whose reader is gone fails with
// EPIPE; after stop, SIGPIPE kills as it does by default.
func sigpipeCaughtWhileTrapped(report io.Writer) {
	r := TrapRun(context.Background(), Config{Signals: true, Stdout: os.Stdout, Stderr: os.Stderr})
	_, err := r.Stdout().Write([]byte("x\n"))
	fmt.Fprintf(report, "trapped epipe=%v gone=%v cancelled=%v\n", IsBrokenPipe(err), r.Stdout().Gone(), r.Context().Err() != nil)
	r.Stop()
	os.Stdout.Write([]byte("y\n"))
	time.Sleep(time.Second)
	fmt.Fprintln(report, "survived")
}

func forceExitWithoutExitFunc(report io.Writer) {
	var words bytes.Buffer
	r := TrapRun(context.Background(), Config{Signals: true, Stdout: io.Discard, Stderr: report})
	r.OnForce(func() { fmt.Fprintln(report, "last words") })
	r.Ready()
	_ = words
	for range 2 {
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	fmt.Fprintln(report, "survived")
}

// The forced exit's message waits for a slow reader of stdout's pipe
// that stderr shares (2>&1), as the run's own writes do.
func forceExitOnASharedFullPipe(report io.Writer) {
	r := TrapRun(context.Background(), Config{Signals: true, Stdout: os.Stdout, Stderr: os.Stderr})
	r.Ready()
	go r.Stdout().Write(make([]byte, 1<<20)) // fills the pipe
	time.Sleep(100 * time.Millisecond)
	for range 2 {
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(3 * time.Second)
	fmt.Fprintln(report, "survived")
}

// child runs scenario in a child with the given stdout and stderr and
// returns its report and how it ended.
func child(t *testing.T, scenario string, stdout, stderr *os.File) (string, *os.ProcessState) {
	t.Helper()
	rr, rw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+scenario)
	cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = stdout, stderr, []*os.File{rw}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	out, _ := io.ReadAll(rr)
	cmd.Wait()
	return string(out), cmd.ProcessState
}

// unreadPipe is a pipe nobody reads: its writer for the child.
func unreadPipe(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return w
}

func devNull(t *testing.T) *os.File {
	t.Helper()
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func want(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("child reported:\n%s\nwant:\n%s", got, want)
	}
}

func TestPipesBoundAStdoutPipe(t *testing.T) {
	t.Parallel()
	got, _ := child(t, "pipe", unreadPipe(t), devNull(t))
	want(t, got, "other pipe bounder=false\nbounder=true out-is-stdout=false err-is-stderr=true blocking=false\nstuck=true in-time=true\nrestored blocking=true\n")
}

func TestPipesBoundStderrOnStdoutsPipe(t *testing.T) {
	t.Parallel()
	w := unreadPipe(t)
	got, _ := child(t, "shared", w, w)
	want(t, got, "other stderr kept=true\nerr-is-stderr=false\nstuck=true in-time=true\n")
}

func TestPipesBoundAStdoutSocket(t *testing.T) {
	t.Parallel()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "mine"), os.NewFile(uintptr(fds[1]), "theirs")
	defer mine.Close()
	defer theirs.Close()
	got, _ := child(t, "pipe", theirs, devNull(t))
	want(t, got, "other pipe bounder=false\nbounder=true out-is-stdout=false err-is-stderr=true blocking=false\nstuck=true in-time=true\nrestored blocking=true\n")
}

func TestPipesOfAFileAreNotBounded(t *testing.T) {
	t.Parallel()
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, _ := child(t, "file", f, devNull(t))
	want(t, got, "bounder=false out-is-stdout=true\n")
}

func TestPipesOfAnInheritedNonblockingPipe(t *testing.T) {
	t.Parallel()
	// os/exec would put the pipe in blocking mode (File.Fd): the child is
	// started with the raw descriptors, the pipe's as the parent has it
	// (non-blocking).
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	rr, rw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	fds := make([]uintptr, 0, 4)
	for _, f := range []*os.File{devNull(t), pw, devNull(t), rw} {
		c, err := f.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		c.Control(func(fd uintptr) { fds = append(fds, fd) })
	}
	if blocking(int(fds[1])) {
		t.Skip("os.Pipe gave a blocking pipe")
	}
	pid, err := syscall.ForkExec(os.Args[0], []string{os.Args[0], "-test.run=^$"}, &syscall.ProcAttr{
		Env: append(os.Environ(), childEnv+"=nonblocking"), Files: fds})
	if err != nil {
		t.Fatal(err)
	}
	rw.Close()
	got, _ := io.ReadAll(rr)
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
	// Polled already: left as it was found.
	want(t, string(got), "bounder=true\nstuck=true in-time=true\nblocking=false\n")
}

func TestCancelledRunBoundsItsStdout(t *testing.T) {
	t.Parallel()
	got, _ := child(t, "run", unreadPipe(t), devNull(t))
	want(t, got, "stuck=true in-time=true\nlost=\""+StuckLine+"\"\nrestored blocking=true\n")
}

func diedOfSIGINT(t *testing.T, st *os.ProcessState) {
	t.Helper()
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("child ended %v, want killed by SIGINT", st)
	}
}

func TestTrapStopReleasesTheSignals(t *testing.T) {
	t.Parallel()
	got, st := child(t, "trap-stop", devNull(t), devNull(t))
	want(t, got, "stopped\n")
	diedOfSIGINT(t, st)
}

func TestTrapRunStopReleasesTheSignals(t *testing.T) {
	t.Parallel()
	got, st := child(t, "run-stop", devNull(t), devNull(t))
	want(t, got, "stopped\n")
	diedOfSIGINT(t, st)
}

func TestSIGPIPECaughtOnlyWhileTrapped(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	got, st := child(t, "sigpipe", w, devNull(t))
	want(t, got, "trapped epipe=true gone=true cancelled=true\n")
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGPIPE {
		t.Fatalf("child ended %v, want killed by SIGPIPE", st)
	}
}

func TestForcedExitExitsTheProcess(t *testing.T) {
	t.Parallel()
	got, st := child(t, "force-exit", devNull(t), devNull(t))
	want(t, got, "gopi: interrupted again: exiting at once\nlast words\n")
	if st.ExitCode() != ExitCode {
		t.Fatalf("exit code %d, want %d", st.ExitCode(), ExitCode)
	}
}

func TestForcedExitMessageWaitsForASlowSharedPipe(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	read := make(chan []byte, 1)
	go func() {
		time.Sleep(400 * time.Millisecond)
		b, _ := io.ReadAll(r)
		read <- b
	}()
	got, st := child(t, "force-shared", w, w)
	w.Close()
	out := <-read
	want(t, got, "")
	if st.ExitCode() != ExitCode || !bytes.Contains(out, []byte("gopi: interrupted again: exiting at once\n")) {
		t.Fatalf("exit %d; the message is not in the %d bytes read", st.ExitCode(), len(out))
	}
}
