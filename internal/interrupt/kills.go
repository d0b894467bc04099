package interrupt

import "sync"

// Killer is what a forced exit stops at once (an Assembly: bash's
// process groups and the MCP servers).
type Killer interface{ Kill() }

// Abandoner is a Killer that also has something to send before the
// process exits (an Assembly: its runs' traces, ended as the forced
// exit ends them, with its exit code).
type Abandoner interface{ Abandon(exitCode int) }

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

// AbandonAll calls Abandon of every Killer kept that is an Abandoner, all
// at once, and returns when they have: each bounds its own wait (the
// telemetry's flush), and the forced exit bounds them all (FlushWait).
func (ks *Kills) AbandonAll(exitCode int) {
	if ks == nil {
		return
	}
	ks.mu.Lock()
	var all []Abandoner
	for k := range ks.set {
		if a, ok := k.(Abandoner); ok {
			all = append(all, a)
		}
	}
	ks.mu.Unlock()
	var wg sync.WaitGroup
	for _, a := range all {
		wg.Go(func() { a.Abandon(exitCode) })
	}
	wg.Wait()
}
