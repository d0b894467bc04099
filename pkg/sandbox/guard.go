package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
)

// HelperArg is the first argument that makes the gopi binary the
// sandbox helper instead of the CLI.
const HelperArg = "__sandbox"

// Denial is one refused operation, as the result object lists it.
type Denial struct {
	Tool string `json:"tool"`
	// Operation is what was refused: write, read, run (a command) or
	// call (a tool by its name).
	Operation string `json:"operation"`
	// Target is the path or the command ("" for a call).
	Target string `json:"target"`
	// Rule is the rule that refused it.
	Rule string `json:"rule"`
	// Allow names the flag or setting that would allow it.
	Allow string `json:"allow"`
}

// Guard is one run's sandbox policy and permission rules, and the log of
// what they refused. A nil *Guard allows everything.
type Guard struct {
	policy Policy
	rules  *Rules
	helper string // the executable started as the helper

	mu      sync.Mutex
	denials []Denial
	madeTmp bool
	ask     func(Denial) bool // asks whether a call the rules refuse may run; nil: never

	hmu     sync.Mutex         // guards helpers and closed
	helpers map[string]*helper // by policy (JSON)
	closed  bool
}

// New returns the guard of one run: policy (its paths already real and
// absolute), rules (nil: none) and the helper executable (the running
// gopi binary), which sandboxed commands start through. Close stops the
// helpers when the run ends.
func New(policy Policy, rules *Rules, helper string) *Guard {
	return &Guard{policy: policy, rules: rules, helper: helper}
}

// SetAsk makes every call the permission rules refuse a question to ask
// (an editor asks its user): ask returns true to let the call run, false
// to refuse it as the rule does. It must return within a bounded time.
// The sandbox policy is not asked about: a write it refuses stays
// refused. Nil asks nothing.
func (g *Guard) SetAsk(ask func(Denial) bool) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ask = ask
}

// Mode is the sandbox mode the run has.
func (g *Guard) Mode() Mode {
	if g == nil || !g.policy.Enforced() {
		return Off
	}
	return g.policy.Mode
}

// Policy returns the guard's policy.
func (g *Guard) Policy() Policy {
	if g == nil {
		return Policy{Mode: Off}
	}
	return g.policy
}

// Denials returns what was refused so far, in order (never nil).
func (g *Guard) Denials() []Denial {
	if g == nil {
		return []Denial{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Denial{}, g.denials...)
}

func (g *Guard) record(d Denial) {
	g.mu.Lock()
	g.denials = append(g.denials, d)
	g.mu.Unlock()
}

// DeniedError is a refused operation: its text is what the model sees.
type DeniedError struct{ Denial Denial }

func (e *DeniedError) Error() string {
	d := e.Denial
	what := d.Operation + " " + d.Target
	if d.Target == "" {
		what = d.Operation + " " + d.Tool
	}
	return fmt.Sprintf("operation not permitted by the %s: %s (%s; allowed by %s)", e.kind(), what, d.Rule, d.Allow)
}

func (e *DeniedError) kind() string {
	if strings.HasPrefix(e.Denial.Rule, "sandbox") {
		return "sandbox"
	}
	return "permission rules"
}

// Op is what a tool call does with its target.
type Op int

// The operations a call is checked for.
const (
	OpNone    Op = iota // a tool without a path or command: its name alone
	OpRead              // reads the path (read, ls, grep, find)
	OpWrite             // writes the path (write, edit)
	OpCommand           // runs the command (bash)
)

var opNames = map[Op]string{OpNone: "call", OpRead: "read", OpWrite: "write", OpCommand: "run"}

// Permit checks one tool call against the permission rules and, for a
// write, the sandbox policy on the path's real location (symbolic links
// followed); target is the absolute path or the command. A refusal is
// recorded and returned as a *DeniedError.
func (g *Guard) Permit(tool string, op Op, target string) error {
	if g == nil {
		return nil
	}
	var alt string
	if op == OpRead || op == OpWrite {
		alt = realPath(target)
	}
	if rule, denied := g.rules.Check(tool, target, alt); denied {
		d := Denial{Tool: tool, Operation: opNames[op], Target: target, Rule: rule, Allow: "removing the rule (--deny-tools or \"permissions.deny\" in settings)"}
		if strings.HasPrefix(rule, "not allowed") {
			d.Allow = "a matching --allow-tools pattern or \"permissions.allow\" in settings"
		}
		g.mu.Lock()
		ask := g.ask
		g.mu.Unlock()
		if ask == nil || !ask(d) {
			g.record(d)
			return &DeniedError{d}
		}
	} else if rule, asks := g.rules.Asks(tool, target, alt); asks {
		d := Denial{Tool: tool, Operation: opNames[op], Target: target, Rule: rule,
			Allow: "an answer where gopi asks (gopi acp asks the editor), or removing the rule (\"permissions.ask\" in settings)"}
		g.mu.Lock()
		ask := g.ask
		g.mu.Unlock()
		if ask == nil || !ask(d) {
			g.record(d)
			return &DeniedError{d}
		}
	}
	if op == OpWrite {
		if rule := g.policy.writeRule(alt); rule != "" {
			d := Denial{Tool: tool, Operation: "write", Target: target, Rule: rule, Allow: g.policy.writeFlag(alt, rule)}
			if alt != target {
				d.Target += " (" + alt + ")"
			}
			g.record(d)
			return &DeniedError{d}
		}
	}
	return nil
}

// Start starts c in the sandbox: through the run's helper for the
// policy (started at the first command, and again for the commands after
// one ended), which is confined by Landlock and, where a root's .git must
// stay read-only, has its own user and mount namespace; c inherits that.
// c's TMPDIR becomes the private temp folder, and its toolchains' cache
// variables point into the cache folder (CacheEnv). Start fails, and nothing
// runs, when the helper cannot be started or has ended, or after Close.
// Only a guard whose Mode is not Off starts commands.
func (g *Guard) Start(c Command) (*Process, error) {
	if g == nil || !g.policy.Enforced() {
		return nil, errors.New("sandbox: no sandbox to start the command in")
	}
	if err := g.makeTemp(); err != nil {
		return nil, err
	}
	p := g.policy
	if !p.AllowGit && p.Mode == WorkspaceWrite {
		p.ReadOnlyPaths = p.gitEntries()
	}
	c.Env = p.CacheEnv(append(withoutVar(c.Env, "TMPDIR"), "TMPDIR="+p.TempDir))
	h, err := g.helperFor(p)
	if err != nil {
		return nil, err
	}
	return h.start(c)
}

// helperFor returns the running helper of p, starting one when there is
// none (or the last one ended). Each distinct policy — the .git entries
// to keep read-only are part of it — has its own helper: a helper is
// never asked to run under rules other than its own.
func (g *Guard) helperFor(p Policy) (*helper, error) {
	doc, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	key := string(doc)
	g.hmu.Lock()
	defer g.hmu.Unlock()
	if g.closed {
		return nil, ErrClosed
	}
	if h := g.helpers[key]; h != nil {
		if !h.ended() {
			return h, nil
		}
		h.stop()
		delete(g.helpers, key)
	}
	h, err := startHelper(g.helper, p)
	if err != nil {
		return nil, fmt.Errorf("%w; the command did not run", err)
	}
	if g.helpers == nil {
		g.helpers = map[string]*helper{}
	}
	g.helpers[key] = h
	return h, nil
}

// Close stops the run's helpers (they exit when told, or are killed
// after a bounded wait) and makes later Starts fail. Commands still
// running keep their confinement.
func (g *Guard) Close() {
	if g == nil {
		return
	}
	g.hmu.Lock()
	hs := g.helpers
	g.helpers, g.closed = nil, true
	g.hmu.Unlock()
	for _, h := range hs {
		h.stop()
	}
}

// makeTemp makes the private temp folder and the cache folder (0700)
// once.
func (g *Guard) makeTemp() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.madeTmp {
		return nil
	}
	if err := os.MkdirAll(g.policy.TempDir, 0o700); err != nil {
		return fmt.Errorf("sandbox: private temp folder: %w", err)
	}
	if c := g.policy.Cache; c != "" && g.policy.Mode == WorkspaceWrite {
		if err := os.MkdirAll(c, 0o700); err != nil {
			return fmt.Errorf("sandbox: cache folder %s: %w", c, err)
		}
	}
	g.madeTmp = true
	return nil
}

func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
