//go:build unix

package tools

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Groups keeps the process groups of bash calls whose shell exited while
// other members of its group still ran (`server &`), so that Kill can end
// them when gopi is done: a background process may serve the run's later
// calls, but no child of a bash call outlives gopi. A process that left
// its group (setsid, a double fork into a new session) is beyond it.
// The zero value is ready; a nil *Groups keeps nothing.
type Groups struct {
	mu    sync.Mutex
	pgids map[int]bool
}

// keep records pgid when its group still has a member.
func (g *Groups) keep(pgid int) {
	if g == nil || !groupAlive(pgid) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pgids == nil {
		g.pgids = map[int]bool{}
	}
	g.pgids[pgid] = true
}

// Len is the number of groups kept.
func (g *Groups) Len() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.pgids)
}

// Kill sends SIGKILL to every group kept and waits up to wait, in all, for
// them to be gone. It returns how many groups were still alive after the
// wait (0 unless something blocks a process in the kernel).
func (g *Groups) Kill(wait time.Duration) int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	pgids := g.pgids
	g.pgids = nil
	g.mu.Unlock()
	for pgid := range pgids {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(wait)
	left := 0
	for pgid := range pgids {
		for groupAlive(pgid) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if groupAlive(pgid) {
			left++
		}
	}
	return left
}

// groupAlive reports whether the group has a member that is not a zombie
// waiting to be reaped: kill(2) with signal 0 tells whether it has any
// member, /proc (where there is one) whether one is more than a zombie
// (a container's init may never reap them).
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err != nil {
		return false // ESRCH: none; EPERM: none we could end anyway
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if state, group, ok := parseStat(stat); ok && group == pgid && state != 'Z' {
			return true
		}
	}
	return false
}

// parseStat reads the state and process group of a /proc/PID/stat line:
// "pid (comm) S ppid pgrp ..."; comm may hold spaces and parentheses.
func parseStat(b []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(f[2])
	return f[0][0], pgrp, err == nil
}
