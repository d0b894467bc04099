package assemble

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"gopi/internal/said"
	"gopi/pkg/mcp"
	"gopi/pkg/sandbox"
	"gopi/pkg/tools"
)

// holdings are what an Assembly holds for its whole life beside the
// session: the spill folder, the process groups bash calls leave
// running, the sandbox guard and the MCP servers. The children the task
// tool starts share their parent's; the top-level Assembly's Close
// releases them.
type holdings struct {
	spill  string
	groups *tools.Groups
	guard  *sandbox.Guard
	swept  func() // waits for the background sweep Open started; nil: not started

	mcpOnce sync.Once
	mu      sync.Mutex
	mcp     *mcp.Manager // the MCP servers started, once the first Runtime is built
	said    *said.Set    // warnings said: Env.Said, or the Assembly's own
}

// groupKillWait bounds the wait for background processes after SIGKILL.
const groupKillWait = 2 * time.Second

// newHoldings names the spill folder (made by bash on its first spill)
// and builds the sandbox guard of s.
func newHoldings(s *Settings, env Env) (*holdings, error) {
	h := &holdings{spill: s.SpillDir, groups: &tools.Groups{}, said: env.Said}
	if h.said == nil {
		h.said = &said.Set{}
	}
	if h.spill == "" {
		h.spill = NewSpillDir()
	}
	g, err := NewGuard(s.Sandbox, h.spill, env)
	if err != nil {
		return nil, err
	}
	h.guard = g
	return h, nil
}

// Guard is the sandbox and permission rules every tool runs under; nil
// without Settings.Sandbox.
func (a *Assembly) Guard() *sandbox.Guard {
	if a.held == nil {
		return nil
	}
	return a.held.guard
}

// SpillDir is the folder bash's spill files go to.
func (a *Assembly) SpillDir() string { return a.held.spill }

// Close releases everything the Assembly holds, in this order: the
// process groups bash calls left running (SIGKILL, a bounded wait), the
// MCP servers, the sandbox's helper, the spill folder (kept when the
// session names it, and earlier runs' kept folders swept once old), and
// last the session store and its lock. A child's Close (the task tool's)
// releases only its own session store. Close is for one caller, once.
func (a *Assembly) Close() {
	if h := a.held; h != nil && a.parent.depth == 0 {
		a.release(h)
	}
	if a.store != nil {
		a.store.Close()
	}
}

func (a *Assembly) release(h *holdings) {
	if left := h.groups.Kill(groupKillWait); left > 0 {
		fmt.Fprintf(a.env.Stderr, "gopi: warning: %d process group(s) started by bash did not end within %v of SIGKILL\n", left, groupKillWait)
	}
	h.mu.Lock()
	m := h.mcp
	h.mcp = nil
	h.mu.Unlock()
	stopMCP(a.env, m)
	h.guard.Close()
	if !a.SpillKept() {
		_ = os.RemoveAll(h.spill)
	}
	if h.swept != nil {
		h.swept()
	} else {
		sweepSpillDirs(filepath.Dir(h.spill), filepath.Base(h.spill), a.now())
	}
}

// Kill ends at once, without waiting, the process groups bash calls left
// running and the MCP servers' processes: for a process on its way out
// (a second interrupt). Close is then still the way to release the rest.
func (a *Assembly) Kill() {
	h := a.held
	if h == nil {
		return
	}
	h.groups.Kill(0)
	h.mu.Lock()
	m := h.mcp
	h.mu.Unlock()
	if m != nil {
		m.Kill()
	}
}

// stopMCP stops the servers m started: never left running when gopi
// exits.
func stopMCP(env Env, m *mcp.Manager) {
	if m == nil {
		return
	}
	if left := m.Close(); len(left) > 0 {
		fmt.Fprintf(env.Stderr, "gopi: warning: MCP server(s) %s did not end within the wait after SIGKILL\n", strings.Join(left, ", "))
	}
}
