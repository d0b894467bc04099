package sandbox

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The helper's protocol. The control socket (SOCK_SEQPACKET, the
// helper's fd 3) carries one message from the helper when it is ready
// (readyMsg, or why the policy could not be applied), then one message
// per command from gopi: a byte with a new socket (SOCK_STREAM) attached,
// on which that command's request and replies travel. The request is a
// 4-byte big-endian length and the JSON of a request, with the command's
// stdout, stderr and (when request.Stdin) stdin attached; the replies are
// JSON lines: the pid (or an error: nothing was started), then the wait
// status. When gopi closes the control socket (or dies) the helper exits.
const (
	helperFD   = 3
	readyMsg   = "ready"
	maxRequest = 16 << 20
)

// request is one command for the helper.
type request struct {
	Path  string   `json:"path"`
	Args  []string `json:"args"`
	Env   []string `json:"env"`
	Dir   string   `json:"dir"`
	Stdin bool     `json:"stdin,omitempty"`
}

// reply is one of the helper's answers about a command.
type reply struct {
	Pid    int    `json:"pid,omitempty"`
	Status *int   `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

// controlConn is the socket at fd, closed on exec so that no command
// inherits it.
func controlConn(fd int) (*net.UnixConn, error) {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	return fileConn(fd, "sandbox-control")
}

// fileConn makes the socket fd a *net.UnixConn (fd itself is closed).
func fileConn(fd int, name string) (*net.UnixConn, error) {
	f := os.NewFile(uintptr(fd), name)
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("%s is not a Unix socket", name)
	}
	return uc, nil
}

// serve starts a goroutine for each command socket received on ctl,
// until ctl's other end is closed.
func serve(ctl *net.UnixConn) {
	buf := make([]byte, 16)
	oob := make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := ctl.ReadMsgUnix(buf, oob)
		if err != nil || (n == 0 && oobn == 0) {
			return
		}
		fds := rights(oob[:oobn])
		if len(fds) != 1 {
			closeFDs(fds)
			continue
		}
		go runOne(fds[0])
	}
}

// runOne reads one command's request from the socket fd, starts the
// command as the leader of a process group of its own, and reports its
// pid and then its wait status.
func runOne(fd int) {
	conn, err := fileConn(fd, "sandbox-command")
	if err != nil {
		return
	}
	defer conn.Close()
	enc := json.NewEncoder(conn)
	req, files, err := readRequest(conn)
	if err != nil {
		_ = enc.Encode(reply{Error: err.Error()})
		return
	}
	// Pdeathsig: the command ends with the helper however it ends (no
	// goroutine of the helper locks its thread, so the thread that
	// started the command lives as long as the helper does).
	proc, err := os.StartProcess(req.Path, req.Args, &os.ProcAttr{Dir: req.Dir, Env: req.Env, Files: files,
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}})
	for _, f := range files {
		f.Close()
	}
	if err != nil {
		_ = enc.Encode(reply{Error: err.Error()})
		return
	}
	if err := enc.Encode(reply{Pid: proc.Pid}); err != nil {
		_, _ = proc.Wait() // gopi went away; the command still ends sandboxed
		return
	}
	st, err := proc.Wait()
	if err != nil {
		_ = enc.Encode(reply{Error: err.Error()})
		return
	}
	ws := int(st.Sys().(syscall.WaitStatus))
	_ = enc.Encode(reply{Status: &ws})
}

// readRequest reads a request and the files sent with it: stdin (or
// /dev/null), stdout and stderr, in that order.
func readRequest(conn *net.UnixConn) (request, []*os.File, error) {
	var req request
	hdr := make([]byte, 4)
	oob := make([]byte, unix.CmsgSpace(3*4))
	n, oobn, _, _, err := conn.ReadMsgUnix(hdr, oob)
	var files []*os.File
	for _, fd := range rights(oob[:oobn]) {
		files = append(files, os.NewFile(uintptr(fd), "stdio"))
	}
	fail := func(err error) (request, []*os.File, error) {
		for _, f := range files {
			f.Close()
		}
		return req, nil, err
	}
	if err == nil && n < len(hdr) {
		_, err = io.ReadFull(conn, hdr[n:])
	}
	if err != nil {
		return fail(err)
	}
	size := binary.BigEndian.Uint32(hdr)
	if size > maxRequest {
		return fail(fmt.Errorf("request of %d bytes is over the limit", size))
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(conn, body); err != nil {
		return fail(err)
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return fail(err)
	}
	want := 2
	if req.Stdin {
		want = 3
	}
	if len(files) != want || len(req.Args) == 0 {
		return fail(errors.New("malformed request"))
	}
	if !req.Stdin {
		null, err := os.Open(os.DevNull)
		if err != nil {
			return fail(err)
		}
		files = append(files, null)
	}
	// sent: stdout, stderr[, stdin]; wanted: stdin, stdout, stderr
	return req, []*os.File{files[2], files[0], files[1]}, nil
}

// endWait bounds how long the helper, told to stop, keeps killing the
// processes left (under helperStopWait, after which gopi kills it).
const endWait = time.Second

// endChildren kills what the commands left running when the helper
// stops: the helper is the subreaper of every process a command starts,
// so each one whose parent ended (a `server &`, a double fork, a setsid)
// is its child. Each live child is killed, with its process group when
// it leads one, again until no child runs (the children of a killed
// process come to the helper in turn), for at most endWait.
func endChildren() {
	self := os.Getpid()
	own, _ := unix.Getpgid(0)
	deadline := time.Now().Add(endWait)
	for {
		kids := liveChildren(self)
		if len(kids) == 0 || time.Now().After(deadline) {
			return
		}
		for _, k := range kids {
			// A group is killed whole only when the child leads it (a
			// command, a setsid): a command may have joined another group
			// of gopi's session, gopi's own among them.
			if k.pgid == k.pid && k.pgid != own {
				_ = unix.Kill(-k.pgid, unix.SIGKILL)
			}
			_ = unix.Kill(k.pid, unix.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type child struct{ pid, pgid int }

// liveChildren are the children of parent that are not zombies, from
// /proc.
func liveChildren(parent int) []child {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []child
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) S ppid pgrp ...": comm may hold spaces and ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		ppid, err1 := strconv.Atoi(f[1])
		pgid, err2 := strconv.Atoi(f[2])
		if err1 == nil && err2 == nil && ppid == parent {
			out = append(out, child{pid, pgid})
		}
	}
	return out
}

// rights are the file descriptors an SCM_RIGHTS message carried.
func rights(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
