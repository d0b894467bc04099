package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// confine takes from the helper, on every thread, what Landlock leaves
// open to its commands: a file's metadata. Landlock has no rule for
// chmod, chown, utime or extended attributes, and a command run by root
// holds the capabilities that let it change them on any file. So:
//
//   - every capability goes: bounding set, ambient, inheritable,
//     permitted, effective (with no_new_privs, nothing regains one
//     through a setuid or file-capability program). A command may then
//     change the mode and times only of files its own user owns, and the
//     owner of none;
//   - a seccomp filter refuses (EPERM) setting a setuid or setgid bit by
//     chmod or at creation, and every change of an extended attribute,
//     where the file's path cannot be looked at; openat2, whose mode it
//     cannot read, and io_uring, whose operations it does not see, answer
//     ENOSYS (callers fall back to openat and plain calls);
//   - the helper becomes not dumpable, so no command can trace it or read
//     its memory.
//
// It runs after the mounts and Landlock, which need capabilities.
func confine() error {
	if err := allThreads(unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := installFilter(); err != nil {
		return err
	}
	for c := uintptr(0); c < 64; c++ {
		err := allThreads(unix.SYS_PRCTL, unix.PR_CAPBSET_DROP, c, 0)
		if errors.Is(err, unix.EINVAL) {
			break // past the kernel's last capability
		}
		if err != nil && !errors.Is(err, unix.EPERM) { // EPERM: none to drop (checked below)
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	if err := allThreads(unix.SYS_PRCTL, unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := allThreads(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); err != nil {
		return fmt.Errorf("dropping capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("making the helper not dumpable: %w", err)
	}
	return checkNoCaps()
}

// allThreads makes one system call on every thread of the helper (psx,
// as go-landlock applies Landlock): a command inherits the state of
// whichever thread starts it.
func allThreads(nr, a1, a2, a3 uintptr) error {
	if _, _, e := psx.Syscall6(nr, a1, a2, a3, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// checkNoCaps fails unless the helper holds no capability and can gain
// none: an empty permitted set, and an empty bounding set unless
// no_new_privs alone keeps the bounding set from being used.
func checkNoCaps() error {
	f, err := os.Open("/proc/thread-self/status")
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		v = strings.TrimSpace(v)
		if ok && (k == "CapPrm" || k == "CapEff" || k == "CapInh" || k == "CapAmb") && strings.Trim(v, "0") != "" {
			return fmt.Errorf("the helper still holds capabilities (%s %s)", k, v)
		}
	}
	return sc.Err()
}

// Seccomp's view of a system call: struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16 // args[i] at 16+8*i; the low half first (little-endian)
)

// modeBits are the bits no sandboxed command may set.
const modeBits = unix.S_ISUID | unix.S_ISGID

// sysRule is what the filter does with one system call: refuse it with
// errno when modeArg is -1, else refuse it when its argument modeArg
// holds a setuid or setgid bit.
type sysRule struct {
	nr      uint32
	modeArg int
	errno   unix.Errno
}

// filter is the seccomp program: calls of another architecture (and
// amd64's x32 calls) answer ENOSYS; rules as sysRules says; the rest
// are allowed.
func filter() []unix.SockFilter {
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k} }
	ld := func(off uint32) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off}
	}
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jt: jt, Jf: jf}
	}
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e)&unix.SECCOMP_RET_DATA }
	prog := []unix.SockFilter{
		ld(offArch),
		jeq(auditArch, 1, 0),
		ret(errno(unix.ENOSYS)),
		ld(offNr),
	}
	if nativeOnly != 0 {
		prog = append(prog,
			unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: nativeOnly, Jt: 0, Jf: 1},
			ret(errno(unix.ENOSYS)))
	}
	for _, r := range sysRules {
		if r.modeArg < 0 {
			prog = append(prog, ld(offNr), jeq(r.nr, 0, 1), ret(errno(r.errno)))
			continue
		}
		prog = append(prog, ld(offNr), jeq(r.nr, 0, 4),
			ld(uint32(offArgs+8*r.modeArg)),
			unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, K: modeBits, Jt: 0, Jf: 1},
			ret(errno(r.errno)),
			ret(unix.SECCOMP_RET_ALLOW))
	}
	return append(prog, ret(unix.SECCOMP_RET_ALLOW))
}

// installFilter applies filter to every thread of the helper (TSYNC).
func installFilter() error {
	if auditArch == 0 {
		return errors.New("the sandbox has no seccomp filter for this processor architecture")
	}
	prog := filter()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return fmt.Errorf("seccomp filter: %w", e)
	}
	return nil
}

// xattrRules refuse every change of an extended attribute.
func xattrRules(nrs ...uint32) []sysRule {
	out := make([]sysRule, len(nrs))
	for i, nr := range nrs {
		out[i] = sysRule{nr: nr, modeArg: -1, errno: unix.EPERM}
	}
	return out
}
