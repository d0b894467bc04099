// Package sandbox confines what a run's tools may do: a policy of where
// they may write and whether commands may use the network, enforced by
// the kernel for every command bash and custom tools start (Landlock on
// Linux: a helper — the gopi binary itself started once per run as
// `gopi __sandbox POLICY` — confines itself and then starts each command
// it is sent over a socket, so every command and every process it starts
// inherits the confinement), and checked
// in process by the file tools on a path's real location. Permission
// rules (Claude Code's `Bash(git *)` style) allow and deny tool calls.
// Nothing here ever waits for an approval: a refused call is an error
// result that names the rule and the flag that would allow it, and a
// Denial in the run's log.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Mode is how much a run's tools may write.
type Mode string

// The modes.
const (
	// ReadOnly: read anything readable, write only the private temp folder.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite: write under the writable roots (the working
	// directory and any --add-dir) and the private temp folder.
	WorkspaceWrite Mode = "workspace-write"
	// Off: no sandbox.
	Off Mode = "off"
)

// ParseMode reads a mode's name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ReadOnly, WorkspaceWrite, Off:
		return m, nil
	}
	return "", fmt.Errorf("%q is not a sandbox mode: use read-only, workspace-write or off", s)
}

// Policy is what a sandboxed command may do. It travels to the helper as
// JSON on its command line.
type Policy struct {
	Mode Mode `json:"mode"`
	// Writable are the folders a workspace-write command may write under
	// (absolute, symbolic links resolved).
	Writable []string `json:"writable,omitempty"`
	// TempDir is the private temp folder: writable in every mode, and the
	// commands' TMPDIR.
	TempDir string `json:"tempDir"`
	// Cache is the workspace's build cache folder (CacheDir): writable by
	// workspace-write commands, and where their toolchains' cache
	// variables point (CacheEnv). "" leaves the variables as they are.
	Cache string `json:"cache,omitempty"`
	// AllowGit lets commands write the .git of a writable root; without
	// it a root's .git is read-only (a read-only bind mount in a private
	// mount namespace for commands, checked in process for the tools).
	AllowGit bool `json:"allowGit,omitempty"`
	// AllowConfig lets commands and the file tools change the project's
	// own configuration at the top of a writable root (ConfigNames:
	// settings, hooks, MCP servers, skills, prompts); without it those
	// entries are read-only as .git is, since later runs start what they
	// hold outside the sandbox.
	AllowConfig bool `json:"allowConfig,omitempty"`
	// Network lets commands connect and bind TCP sockets.
	Network bool `json:"network,omitempty"`
	// ReadOnlyOutside has the helper, in its own user and mount
	// namespace, mount everything but the writable folders read-only
	// (set by the helper's starter: off only where the kernel refuses
	// the namespace and nothing else needs it).
	ReadOnlyOutside bool `json:"readOnlyOutside,omitempty"`
	// ReadOnlyPaths are the entries a command's helper mounts read-only
	// (filled in for each command: .git, the project's configuration and
	// the run's session folder, each when it exists in a writable root).
	ReadOnlyPaths []string `json:"readOnlyPaths,omitempty"`
	// CommandIDs, set by the helper's starter when gopi is not root, are
	// gopi's user and group: the helper is root of its own user namespace
	// (mapped to gopi's user) so that it may mount, and starts the
	// commands' helper in a nested one where they are these ids again.
	CommandIDs *IDs `json:"commandIds,omitempty"`
}

// IDs are a user id and a group id.
type IDs struct {
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// Enforced reports whether the policy confines anything.
func (p Policy) Enforced() bool { return p.Mode == ReadOnly || p.Mode == WorkspaceWrite }

// MinABI is the Landlock ABI the policy needs: 1 for files (truncate is
// covered from 3), 4 for the network rules.
func (p Policy) MinABI() int {
	if !p.Network {
		return 4
	}
	return 3
}

// Probe reports the kernel's Landlock ABI version, or why there is none.
// KernelProbe asks the kernel; tests inject another.
type Probe func() (abi int, err error)

// Check says whether probe's kernel can enforce p: nil, or an error that
// names what is missing.
func Check(p Policy, probe Probe) error {
	if !p.Enforced() {
		return nil
	}
	if probe == nil {
		probe = KernelProbe
	}
	abi, err := probe()
	if err != nil {
		return err
	}
	if need := p.MinABI(); abi < need {
		what := "truncate rules"
		if !p.Network {
			what = "TCP network rules"
		}
		return fmt.Errorf("the kernel's Landlock ABI is %d; the sandbox needs ABI %d or later for its %s", abi, need, what)
	}
	return nil
}

// ErrUnsupported is the probe's answer where no sandbox can be built.
var ErrUnsupported = errors.New("no sandbox is available on this platform")

// realPath resolves every symbolic link of p, also when p (or its
// trailing part) does not exist yet: the nearest existing ancestor is
// resolved and the rest appended.
func realPath(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// RealPath is p with its symbolic links resolved (see realPath).
func RealPath(p string) string { return realPath(p) }

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	if path == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

// ConfigNames are the entries at the top of a project folder that gopi
// (and pi, and other agents' MCP clients) read as the project's own
// configuration: settings, hooks, MCP servers, skills and prompts.
var ConfigNames = []string{".gopi", ".pi", "mcp.json", ".mcp.json"}

// gitEntries are the .git entries (folders, or a worktree's file) of the
// writable roots.
func (p Policy) gitEntries() []string {
	return p.rootEntries([]string{".git"})
}

// rootEntries are the entries named names that exist at the top of the
// writable roots.
func (p Policy) rootEntries(names []string) []string {
	var out []string
	for _, r := range p.Writable {
		for _, n := range names {
			g := filepath.Join(r, n)
			if _, err := os.Lstat(g); err == nil {
				out = append(out, g)
			}
		}
	}
	return out
}

// readOnlyEntries are the existing entries of the writable roots that
// commands may not change: .git (unless AllowGit), the project's
// configuration (unless AllowConfig) and kept, the paths the guard keeps
// read-only (the run's session folder or file), those of them that lie
// in a writable root.
func (p Policy) readOnlyEntries(kept []string) []string {
	if p.Mode != WorkspaceWrite {
		return nil
	}
	var out []string
	if !p.AllowGit {
		out = p.gitEntries()
	}
	if !p.AllowConfig {
		out = append(out, p.rootEntries(ConfigNames)...)
	}
	for _, k := range kept {
		if p.inWritable(k) {
			if _, err := os.Lstat(k); err == nil {
				out = append(out, k)
			}
		}
	}
	return out
}

// writablePaths are the folders commands may write under, every one
// that the helper's Landlock rules grant writes to (apply): the private
// temp folder and, in workspace-write, the writable roots and the build
// cache folder. With
// ReadOnlyOutside they alone stay writable mounts.
func (p Policy) writablePaths() []string {
	out := []string{p.TempDir}
	if p.Mode == WorkspaceWrite {
		out = append(out, p.Writable...)
		if p.Cache != "" {
			out = append(out, p.Cache)
		}
	}
	return out
}

// inWritable reports whether path is in one of the writable roots.
func (p Policy) inWritable(path string) bool {
	for _, r := range p.Writable {
		if within(path, r) {
			return true
		}
	}
	return false
}

// Rules a write may be refused by, as writeFlag tells them apart.
const (
	ruleGit     = "sandbox workspace-write: .git is read-only"
	ruleConfig  = "sandbox workspace-write: the project's configuration"
	ruleSession = "sandbox workspace-write: the run's session"
)

// writeRule returns "" when p lets a write to the real path real happen,
// else the rule that refuses it; kept are the paths the guard keeps
// read-only (the run's session).
func (p Policy) writeRule(real string, kept []string) string {
	if !p.Enforced() {
		return ""
	}
	if p.TempDir != "" && within(real, p.TempDir) {
		return ""
	}
	if p.Mode == WorkspaceWrite && p.Cache != "" && within(real, p.Cache) {
		return ""
	}
	if p.Mode == ReadOnly {
		return "sandbox read-only: nothing but the private temp folder is writable"
	}
	for _, r := range p.Writable {
		if !within(real, r) {
			continue
		}
		if !p.AllowGit && within(real, filepath.Join(r, ".git")) {
			return ruleGit
		}
		if !p.AllowConfig {
			for _, n := range ConfigNames {
				if within(real, filepath.Join(r, n)) {
					return ruleConfig + " (" + filepath.Join(r, n) + ") is read-only"
				}
			}
		}
		for _, k := range kept {
			if within(real, k) {
				return ruleSession + " (" + k + ") is read-only"
			}
		}
		return ""
	}
	cache := ""
	if p.Cache != "" {
		cache = ", the build cache " + p.Cache
	}
	return "sandbox workspace-write: writable are only " + strings.Join(p.Writable, ", ") + cache + " and the private temp folder"
}

// writeFlag names what would allow a write the policy refuses.
func (p Policy) writeFlag(real string, rule string) string {
	switch {
	case rule == ruleGit:
		return `settings "sandbox": {"allowGit": true}, or --sandbox off`
	case strings.HasPrefix(rule, ruleConfig):
		return `settings "sandbox": {"allowConfig": true}, or --sandbox off`
	case strings.HasPrefix(rule, ruleSession):
		return "--session-dir outside the writable folders, --no-session, or --sandbox off"
	}
	if p.Mode == ReadOnly {
		return "--sandbox workspace-write (the working folder), or --sandbox off"
	}
	return "--add-dir " + filepath.Dir(real) + ", or --sandbox off"
}
