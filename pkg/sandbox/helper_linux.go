package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// KernelProbe asks the kernel for its Landlock ABI version.
func KernelProbe() (int, error) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0, fmt.Errorf("Landlock is not available in this kernel (%v): it needs Linux 6.7 or later with Landlock enabled (lsm=landlock)", err)
	}
	return abi, nil
}

// configs are go-landlock's configurations by ABI version.
var configs = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7,
	landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// devices are written to by ordinary commands in every mode.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom"}

// RunHelper is the sandbox helper: args are what follows HelperArg
// (POLICY), and file descriptor 3 is its end of a socket pair with the
// process that started it. It mounts the policy's read-only paths (in
// the mount namespace it was started in), restricts itself with Landlock,
// says whether that worked on the socket, and then starts the commands it
// is sent (serve), which inherit the restriction. It returns when the
// socket's other end is closed (0: gopi stopped it or died; every process
// the commands left is killed first) or the policy could not be applied.
// A helper started for a user other than root (Policy.CommandIDs) is two
// processes: see runOuter.
func RunHelper(args, environ []string, stderr io.Writer) int {
	if len(args) == 2 && args[1] == awaitArg {
		if n, _ := os.Stdin.Read(make([]byte, 1)); n != 1 {
			return 126 // the outer helper failed, and said why
		}
		args = args[:1]
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "gopi: sandbox helper: usage: gopi __sandbox POLICY (started by gopi, with its socket as fd 3)")
		return 2
	}
	onlyStdio()
	ctl, err := controlConn(helperFD)
	if err != nil {
		fmt.Fprintf(stderr, "gopi: sandbox helper: no control socket on fd %d: %v\n", helperFD, err)
		return 2
	}
	defer ctl.Close()
	var p Policy
	if err := json.Unmarshal([]byte(args[0]), &p); err != nil {
		_, _ = ctl.Write([]byte("bad policy: " + err.Error()))
		return 2
	}
	if p.CommandIDs != nil {
		return runOuter(p, ctl)
	}
	if err := mounts(p); err != nil {
		_, _ = ctl.Write([]byte(err.Error()))
		return 126
	}
	if err := apply(p); err != nil {
		_, _ = ctl.Write([]byte(err.Error()))
		return 126
	}
	if err := confine(); err != nil {
		_, _ = ctl.Write([]byte(err.Error()))
		return 126
	}
	// Every process a command starts and leaves behind comes to the
	// helper, which ends them all when gopi goes (endChildren).
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		_, _ = ctl.Write([]byte("the sandbox helper could not become its commands' subreaper: " + err.Error()))
		return 126
	}
	if _, err := ctl.Write([]byte(readyMsg)); err != nil {
		return 1
	}
	serve(ctl)
	endChildren()
	return 0
}

// onlyStdio marks every file descriptor above the helper's socket
// close-on-exec: a descriptor gopi inherited from whatever started it
// (an open file outside the writable folders, which Landlock would not
// stop a write through) never reaches a command. Commands get their own
// stdin, stdout and stderr.
func onlyStdio() {
	if unix.CloseRange(helperFD+1, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > helperFD {
			unix.CloseOnExec(fd)
		}
	}
}

// noMountPrefix starts the helper's answer when it could not mount at
// all in its namespace: the kernel refused it what a namespace gives
// (AppArmor's restrict_unprivileged_userns, for one). Any later failure
// is the sandbox's and fails it.
const noMountPrefix = "no mounts: "

// mounts makes the policy's read-only mounts in the helper's namespace.
func mounts(p Policy) error {
	if p.ReadOnlyOutside {
		if err := readOnlyOutside(p.writablePaths()); err != nil {
			return err
		}
	}
	for _, path := range p.ReadOnlyPaths {
		if err := mountReadOnly(path); err != nil {
			return fmt.Errorf("making %s read-only: %w", path, err)
		}
	}
	return nil
}

// runOuter is the helper of a user who is not root: root of its own user
// namespace (mapped to that user), it starts the helper proper — itself
// again, told to wait (awaitArg) — in a nested user namespace where the
// user's own ids map to its root, makes the mounts, gives up every
// capability (confine), and then lets the inner helper go on: the
// commands, its children, run as the user (npm, ssh and git behave as
// they do outside) and hold no capability. The mounts, made in a more
// privileged namespace, are locked for them: no namespace a command
// creates makes them writable or takes them away. The inner helper is
// started first because its id maps are files in /proc, which the mounts
// make read-only; the outer helper applies no Landlock, which would
// refuse those writes too, and needs none: it runs nothing else, holds no
// capability once the mounts are made and is not dumpable. It ends with
// the inner helper (and the inner helper with it: parent-death signal),
// with the inner helper's exit status.
func runOuter(p Policy, ctl *net.UnixConn) int {
	ids := *p.CommandIDs
	inner := p
	inner.ReadOnlyOutside, inner.ReadOnlyPaths, inner.CommandIDs = false, nil, nil
	doc, err := json.Marshal(inner)
	if err != nil {
		_, _ = ctl.Write([]byte(err.Error()))
		return 126
	}
	f, err := ctl.File() // a duplicate, the inner helper's fd 3
	if err != nil {
		_, _ = ctl.Write([]byte(err.Error()))
		return 126
	}
	defer f.Close()
	goR, goW, err := os.Pipe() // the inner helper's stdin: a byte when it may go on
	if err != nil {
		_, _ = ctl.Write([]byte(err.Error()))
		return 126
	}
	defer goW.Close()
	// The parent-death signal follows the thread that starts the inner
	// helper: this goroutine keeps it until the inner helper has ended.
	runtime.LockOSThread()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{"gopi", HelperArg, string(doc), awaitArg}, Env: []string{}, Dir: "/",
		Stdin: goR, Stdout: os.Stdout, Stderr: os.Stderr, ExtraFiles: []*os.File{f},
		SysProcAttr: &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER, Pdeathsig: syscall.SIGKILL, Setpgid: true,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: ids.UID, HostID: 0, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: ids.GID, HostID: 0, Size: 1}}}}
	err = cmd.Start()
	goR.Close()
	f.Close()
	if err != nil {
		_, _ = ctl.Write([]byte(noMountPrefix + "the commands' user namespace: " + err.Error()))
		return 126
	}
	err = mounts(p)
	if err == nil {
		err = confine()
	}
	if err == nil {
		_, err = goW.Write([]byte{1})
	}
	goW.Close() // without the byte the inner helper exits at once
	if err != nil {
		_, _ = ctl.Write([]byte(err.Error()))
	}
	ctl.Close()
	werr := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err != nil:
		return 126
	case werr == nil:
		return 0
	case errors.As(werr, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	}
	return 1
}

// awaitArg, after the policy, has the helper wait for a byte on its
// stdin before it applies the policy (runOuter).
const awaitArg = "await"

func apply(p Policy) error {
	abi, err := KernelProbe()
	if err != nil {
		return err
	}
	if need := p.MinABI(); abi < need {
		return fmt.Errorf("the kernel's Landlock ABI is %d, the sandbox needs %d", abi, need)
	}
	cfg := configs[min(abi, len(configs))-1]
	cfg.Scoped = 0 // signals between a run's commands stay possible
	if p.Network {
		cfg.HandledAccessNet = 0
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(devices...).IgnoreIfMissing(),
		landlock.RWDirs(p.TempDir).WithRefer(),
	}
	if p.Mode == WorkspaceWrite && len(p.Writable) > 0 {
		rules = append(rules, landlock.RWDirs(p.Writable...).WithRefer())
	}
	if p.Mode == WorkspaceWrite && p.Cache != "" {
		rules = append(rules, landlock.RWDirs(p.Cache).WithRefer())
	}
	return cfg.Restrict(rules...)
}

// readOnlyOutside makes every mount of the helper's namespace read-only
// but the writable folders rw (bound onto themselves first, so they stay
// writable mounts of their own): Landlock does not cover a file's mode,
// owner, times or extended attributes, a read-only mount refuses them all
// (EROFS), whatever the command's user owns. Mount points a path does not
// reach (hidden under another mount, or in a folder this user cannot
// enter) are left: no command reaches them either.
func readOnlyOutside(rw []string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("%sprivate mounts: %w", noMountPrefix, err)
	}
	for _, w := range rw {
		if err := unix.Mount(w, w, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("keeping %s writable: %w", w, err)
		}
	}
	points, err := mountPoints()
	if err != nil {
		return fmt.Errorf("reading the mounts: %w", err)
	}
	for _, m := range points {
		if slices.ContainsFunc(rw, func(w string) bool { return within(m, w) }) {
			continue
		}
		err := remountReadOnly(m)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ESTALE) {
			continue
		}
		if err != nil {
			return fmt.Errorf("making the mount %s read-only: %w", m, err)
		}
	}
	return nil
}

// mountPoints are the mount points of the helper's namespace, from
// /proc/self/mountinfo (its fifth field, octal escapes undone), each once.
func mountPoints() ([]string, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		if m := unescapeMount(f[4]); !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out, nil
}

// unescapeMount undoes mountinfo's \ooo escapes (space, tab, newline,
// backslash).
func unescapeMount(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountReadOnly bind-mounts path onto itself read-only, keeping the
// flags of the mount it is on (a user namespace may not clear them).
func mountReadOnly(path string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mounts: %w", err)
	}
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	return remountReadOnly(path)
}

// remountReadOnly makes the mount at path read-only, keeping its other
// flags (a user namespace may not clear them).
func remountReadOnly(path string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms int64 }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if int64(st.Flags)&f.st != 0 {
			flags |= uintptr(f.ms)
		}
	}
	return unix.Mount("", path, "", flags, "")
}

// namespaces starts the helper in a user and mount namespace of its
// own, where it may mount. When this process is root the same users and
// groups are seen inside (every range of its own maps) and nil is
// returned. Otherwise its user and group become root inside — only root
// of a namespace keeps its capabilities across exec, and mounting needs
// them — and the ids returned are those the commands get back
// (Policy.CommandIDs, runOuter).
func namespaces(a *syscall.SysProcAttr) *IDs {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		a.UidMappings = identityMap("/proc/self/uid_map")
		a.GidMappings = identityMap("/proc/self/gid_map")
		a.GidMappingsEnableSetgroups = true
		if len(a.UidMappings) > 0 && len(a.GidMappings) > 0 {
			return nil
		}
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	return &IDs{UID: uid, GID: gid}
}

// identityMap maps every id of this process's namespace to itself.
func identityMap(file string) []syscall.SysProcIDMap {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []syscall.SysProcIDMap
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			continue
		}
		inside, err1 := strconv.Atoi(fs[0])
		size, err2 := strconv.Atoi(fs[2])
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, syscall.SysProcIDMap{ContainerID: inside, HostID: inside, Size: size})
	}
	return out
}
