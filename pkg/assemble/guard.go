package assemble

import (
	"fmt"
	"os"
	"path/filepath"

	"gopi/pkg/ai"
	"gopi/pkg/sandbox"
)

// SandboxSettings are the sandbox and permission rules as read from
// flags and settings; the Assembly builds its Guard from them.
type SandboxSettings struct {
	// Policy is the sandbox asked for; its TempDir is set from the spill
	// folder.
	Policy sandbox.Policy
	Rules  *sandbox.Rules
	// Origin names where the mode came from, for messages ("--sandbox",
	// "GOPI_SANDBOX", `"sandbox.mode" in settings`).
	Origin string
	// Explicit: the mode was asked for, so a kernel that cannot give it
	// stops the run; otherwise one stderr line says the run goes without.
	Explicit bool
}

// NewGuard builds the guard of ss, its private temp folder under
// spillDir. A sandbox asked for that the kernel (env.SandboxProbe)
// cannot give is an ai.ClassRequired error before anything is sent
// (exit 10); when only the default cannot be had, one stderr line says
// so and the guard enforces nothing. ss nil is no guard.
func NewGuard(ss *SandboxSettings, spillDir string, env Env) (*sandbox.Guard, error) {
	if ss == nil {
		return nil, nil
	}
	p := ss.Policy
	m := p.Mode
	p.TempDir = filepath.Join(sandbox.RealPath(filepath.Dir(spillDir)), filepath.Base(spillDir), "tmp")
	if err := sandbox.Check(p, env.SandboxProbe); err != nil {
		if ss.Explicit {
			return nil, &Error{Class: ai.ClassRequired, Err: fmt.Errorf("%s %s cannot be applied: %v; nothing was run (--sandbox off runs without a sandbox)", ss.Origin, m, err)}
		}
		fmt.Fprintf(env.Stderr, "gopi: warning: running without a sandbox: %v (set --sandbox off to say so, or a mode to require one)\n", err)
		p.Mode = sandbox.Off
	}
	self, err := os.Executable()
	if err != nil && p.Enforced() {
		return nil, &Error{Class: ai.ClassRequired, Err: fmt.Errorf("%s %s cannot be applied: the gopi executable is not found (%v); --sandbox off runs without a sandbox", ss.Origin, m, err)}
	}
	return sandbox.New(p, ss.Rules, self), nil
}
