package interrupt

import "sync"

// Killer is what a forced exit stops at once (an Assembly: bash's
// process groups and the MCP servers).
type Killer interface{ Kill() }

// Kills are the Killers of one invocation that are open (ACP opens an
// Assembly per session); Config.Kill can be their KillAll. A nil *Kills
// keeps none. Safe for concurrent use.
type Kills struct {
	mu  sync.Mutex
	set map[Killer]bool
}

// Add keeps k until Remove.
func (ks *Kills) Add(k Killer) {
	if ks == nil {
		return
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.set == nil {
		ks.set = map[Killer]bool{}
	}
	ks.set[k] = true
}

// Remove forgets k (closed).
func (ks *Kills) Remove(k Killer) {
	if ks == nil {
		return
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	delete(ks.set, k)
}

// KillAll kills every Killer kept, without waiting.
func (ks *Kills) KillAll() {
	if ks == nil {
		return
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	for k := range ks.set {
		k.Kill()
	}
}
