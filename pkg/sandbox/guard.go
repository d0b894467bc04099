package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	kept    []string          // real paths kept read-only (KeepReadOnly)
	ask     func(Denial) bool // asks whether a call the rules refuse may run; nil: never
	// asked are the writes a person allowed through ask, by tool and
	// target, until OpenFolder checks the rules again for them.
	asked map[string]bool

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

// KeepReadOnly keeps the run's session file out of the reach of the
// tools and commands, as .git is: its folder when that lies below a
// writable root (every session there, and its lock, stay whole), else the
// file itself and its lock's sidecar (<file>.lock). A command that could
// write them could empty or forge the conversation a later run resumes,
// or let a second run write the session at the same time.
func (g *Guard) KeepReadOnly(sessionFile string) {
	if g == nil || sessionFile == "" {
		return
	}
	real := realPath(sessionFile)
	keep := []string{real, real + ".lock"}
	if dir := filepath.Dir(real); g.policy.inWritable(dir) && !slices.Contains(g.policy.Writable, dir) {
		keep = []string{dir}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range keep {
		if !slices.Contains(g.kept, k) {
			g.kept = append(g.kept, k)
		}
	}
}

// keptPaths are the paths KeepReadOnly keeps.
func (g *Guard) keptPaths() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.kept)
}

func (g *Guard) record(d Denial) {
	g.mu.Lock()
	g.denials = append(g.denials, d)
	g.mu.Unlock()
}

// DeniedError is a refused operation: its text is what the model sees.
type DeniedError struct {
	Denial Denial
	// Asked says the person was asked (SetAsk) and did not allow it: a
	// no, or no answer.
	Asked bool
}

func (e *DeniedError) Error() string {
	d := e.Denial
	what := d.Operation + " " + d.Target
	if d.Target == "" {
		what = d.Operation + " " + d.Tool
	}
	if e.Asked {
		return fmt.Sprintf("operation not permitted by the %s: %s (%s; the user was asked and did not allow it)", e.kind(), what, d.Rule)
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
		if err := g.askOrDeny(op, g.ruleDenialOf(tool, op, target, rule)); err != nil {
			return err
		}
	} else if rule, asks := g.rules.Asks(tool, target, alt); asks {
		d := Denial{Tool: tool, Operation: opNames[op], Target: target, Rule: rule,
			Allow: "an answer where gopi asks (gopi acp asks the editor), or removing the rule (\"permissions.ask\" in settings)"}
		if err := g.askOrDeny(op, d); err != nil {
			return err
		}
	}
	if op == OpWrite {
		return g.permitWrite(tool, target, alt)
	}
	return nil
}

// ruleDenialOf is a call the permission rules refuse, as a denial.
func (g *Guard) ruleDenialOf(tool string, op Op, target, rule string) Denial {
	d := Denial{Tool: tool, Operation: opNames[op], Target: target, Rule: rule, Allow: "removing the rule (--deny-tools or \"permissions.deny\" in settings)"}
	if strings.HasPrefix(rule, "not allowed") {
		d.Allow = "a matching --allow-tools pattern or \"permissions.allow\" in settings"
	}
	return d
}

// askOrDeny asks (SetAsk) whether the call d refuses may run; without a
// yes it records d and returns it as a *DeniedError. An allowed write is
// remembered for OpenFolder, which checks the rules again.
func (g *Guard) askOrDeny(op Op, d Denial) error {
	g.mu.Lock()
	ask := g.ask
	g.mu.Unlock()
	if ask != nil && ask(d) {
		if op == OpWrite {
			g.mu.Lock()
			if g.asked == nil {
				g.asked = map[string]bool{}
			}
			g.asked[d.Tool+"\x00"+d.Target] = true
			g.mu.Unlock()
		}
		return nil
	}
	g.record(d)
	return &DeniedError{Denial: d, Asked: ask != nil}
}

// allowedByAsk reports, once, whether a person allowed the write of
// target by tool through ask.
func (g *Guard) allowedByAsk(tool, target string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	key := tool + "\x00" + target
	ok := g.asked[key]
	delete(g.asked, key)
	return ok
}

// permitWrite checks a write to target, whose real path is real, against
// the policy.
func (g *Guard) permitWrite(tool, target, real string) error {
	rule := g.policy.writeRule(real, g.keptPaths())
	if rule == "" {
		return nil
	}
	d := Denial{Tool: tool, Operation: "write", Target: target, Rule: rule, Allow: g.policy.writeFlag(real, rule)}
	if real != target {
		d.Target += " (" + real + ")"
	}
	g.record(d)
	return &DeniedError{Denial: d}
}

// OpenFolder is how write and edit reach the folder of the file they
// replace: target is the absolute path asked for (as Permit got it), file
// the path they resolved from it (its links followed). With
// the sandbox on, the file's real path is checked again as Permit checks
// it, and its folder is opened from the writable folder that holds it
// without following a symbolic link at any step (openBeneath): the tool creates,
// writes and renames relative to that folder, so the write lands where
// the check looked even when a command swaps a folder for a link between
// the two. It returns the open folder (missing folders made) and the
// file's name in it; a refusal is a *DeniedError, recorded. With the
// sandbox off it returns nil and "": the tool opens the folder itself.
func (g *Guard) OpenFolder(tool, target, file string) (*os.File, string, error) {
	if g == nil || !g.policy.Enforced() {
		return nil, "", nil
	}
	real := realPath(file)
	allowed := g.allowedByAsk(tool, target)
	if rule, denied := g.rules.Check(tool, target, real); denied && !allowed {
		d := g.ruleDenialOf(tool, OpWrite, target, rule)
		g.record(d)
		return nil, "", &DeniedError{Denial: d}
	}
	if err := g.permitWrite(tool, target, real); err != nil {
		return nil, "", err
	}
	dir := filepath.Dir(real)
	root := ""
	for _, r := range g.policy.writablePaths() {
		if r != "" && within(dir, r) && (root == "" || len(r) < len(root)) {
			root = r
		}
	}
	if root == "" { // writeRule allowed it, so this does not happen
		return nil, "", fmt.Errorf("%s is in no writable folder", dir)
	}
	f, err := openBeneath(root, dir)
	if err != nil {
		return nil, "", err
	}
	return f, filepath.Base(real), nil
}

// Start starts c in the sandbox: through the run's helper for the
// policy (started at the first command, and again for the commands after
// one ended), which is confined by Landlock, read-only mounts outside the
// writable folders in its own user and mount namespace, no capabilities
// and a seccomp filter; c inherits that.
// c's TMPDIR becomes the private temp folder, and its toolchains' cache
// variables point into the cache folder (CacheEnv). Start fails, and nothing
// runs, when the helper cannot be started or has ended, or after Close.
// Only a guard whose Mode is not Off starts commands.
func (g *Guard) Start(c Command) (*Process, error) {
	if g == nil || !g.policy.Enforced() {
		return nil, errors.New("sandbox: no sandbox to start the command in")
	}
	g.hmu.Lock()
	closed := g.closed
	g.hmu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if err := g.makeTemp(); err != nil {
		return nil, err
	}
	p := g.policy
	p.ReadOnlyPaths = p.readOnlyEntries(g.keptPaths())
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
// after a bounded wait), each of which first kills every process its
// commands left running, and makes later Starts fail.
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
