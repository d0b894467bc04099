package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// refusalMark finds, in a line of a command's output, how the kernel's
// refusals are printed: EACCES and EPERM (Landlock's answer to a write or
// a TCP connect it does not allow), EROFS (a read-only .git) and EXDEV
// (Landlock's answer to a link or move out of a writable folder), in
// the words of coreutils, bash and Python ("Permission denied"), Go
// ("permission denied") and Node ("EACCES: permission denied, open
// '…'").
var refusalMark = regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system|cross-device link`)

// quoted finds the quoted names coreutils, Python and Node print:
// 'name', ‘name’, "name".
var quoted = regexp.MustCompile(`'([^']+)'|‘([^’]+)’|"([^"]+)"`)

// maxPathDenials bounds the denials one command's output records by
// path (a build can print a refusal for each file it tried).
const maxPathDenials = 10

// Explain looks at a sandboxed command's output once it has ended: only
// a command that failed (exited with another status than 0) can have
// been refused. Each line showing a kernel refusal of a path the policy
// does not let commands write is a denial of that path (one per path);
// a refusal that names no path (a TCP connect, a program's own words)
// is one denial of the command. A refusal of a path the policy lets
// commands write is the file's own permissions, not the sandbox's, and
// is none. dir is the command's working folder, against which relative
// names are read. Explain returns the note for the model (the rules and
// the flags that allow more), or "" when nothing was refused.
func (g *Guard) Explain(tool, command, dir, output string, failed bool) string {
	if g == nil || !g.policy.Enforced() || !failed {
		return ""
	}
	p := g.policy
	kept := g.keptPaths()
	var paths []string
	seen := map[string]bool{}
	pathless := false
	for line := range strings.Lines(output) {
		if !refusalMark.MatchString(line) {
			continue
		}
		name := refusedName(line)
		if name == "" {
			pathless = true
			continue
		}
		rel := !filepath.IsAbs(name)
		if rel {
			name = filepath.Join(dir, name)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		if p.writeRule(resolveName(name), kept) == "" {
			// A writable path: the file's own permissions, not the
			// sandbox. A relative name may have been read from another
			// folder than dir (the command changed folders): the
			// sandbox may have refused it.
			pathless = pathless || rel
			continue
		}
		if len(paths) < maxPathDenials {
			paths = append(paths, name)
		}
	}
	if len(paths) == 0 && !pathless {
		return ""
	}
	var notes []string
	for _, name := range paths {
		real := resolveName(name)
		rule := p.writeRule(real, kept)
		d := Denial{Tool: tool, Operation: "write", Target: name, Rule: rule, Allow: p.writeFlag(real, rule)}
		if real != name {
			d.Target += " (" + real + ")"
		}
		g.record(d)
		notes = append(notes, fmt.Sprintf("[operation not permitted by the sandbox: write %s (%s). If the command needs it, tell the user it is allowed by %s]", d.Target, d.Rule, d.Allow))
	}
	if pathless && len(paths) == 0 {
		rule, allow := p.commandRule(kept)
		g.record(Denial{Tool: tool, Operation: "run", Target: command, Rule: rule, Allow: allow})
		notes = append(notes, fmt.Sprintf("[operation not permitted by the sandbox, probably: %s. If the command needs more, tell the user it is allowed by %s]", rule, allow))
	}
	return strings.Join(notes, "\n")
}

// resolveName is name's real location: its symbolic links (a
// /proc/self/cwd among them) followed before any ".." after them is
// applied, also when name or its last part does not exist.
func resolveName(name string) string {
	if r, err := filepath.EvalSymlinks(name); err == nil {
		return r
	}
	if i := strings.LastIndexByte(name, '/'); i > 0 {
		if r, err := filepath.EvalSymlinks(name[:i]); err == nil {
			return filepath.Join(r, name[i+1:])
		}
	}
	return realPath(name)
}

// refusedName is the file a refusal line names, or "": the first quoted
// name (coreutils' 'name', Python's and Node's), else the name before
// the refusal in Go's and bash's "op NAME: permission denied" and
// "bash: NAME: Permission denied". A bare word without a slash or a dot
// (Go's "connect: permission denied") and bash's /dev/tcp pseudo-files
// are no file.
func refusedName(line string) string {
	if m := quoted.FindStringSubmatch(line); m != nil {
		for _, s := range m[1:] {
			if s != "" {
				return pathName(s)
			}
		}
	}
	loc := refusalMark.FindStringIndex(line)
	before, ok := strings.CutSuffix(strings.TrimRight(line[:loc[0]], " "), ":")
	if !ok {
		return ""
	}
	if i := strings.LastIndex(before, ": "); i >= 0 {
		before = before[i+2:]
	}
	if i := strings.LastIndexAny(before, " \t"); i >= 0 {
		before = before[i+1:]
	}
	if !strings.ContainsAny(before, "/.") {
		return ""
	}
	return pathName(before)
}

// pathName is s when it may name a file, else "".
func pathName(s string) string {
	if s == "" || strings.HasPrefix(s, "/dev/tcp/") || strings.HasPrefix(s, "/dev/udp/") || strings.ContainsAny(s, "\n\x00") {
		return ""
	}
	return s
}

// commandRule is the policy in words, and what allows more, for a
// refusal that names no path; kept are the paths the guard keeps
// read-only (the run's session).
func (p Policy) commandRule(kept []string) (rule, allow string) {
	switch p.Mode {
	case ReadOnly:
		rule = "sandbox read-only: writes only to the private temp folder ($TMPDIR)"
		allow = "--sandbox workspace-write or --sandbox off"
	default:
		rule = "sandbox workspace-write: writes only under " + strings.Join(p.Writable, ", ")
		if p.Cache != "" {
			rule += ", the build cache " + p.Cache
		}
		rule += " and $TMPDIR"
		allow = "--add-dir DIR, --sandbox off"
		if !p.AllowGit && len(p.gitEntries()) > 0 {
			rule += ", .git read-only"
			allow += `, settings "sandbox": {"allowGit": true}`
		}
		if !p.AllowConfig && len(p.rootEntries(ConfigNames)) > 0 {
			rule += ", the project's configuration (" + strings.Join(ConfigNames, ", ") + ") read-only"
			allow += `, settings "sandbox": {"allowConfig": true}`
		}
		if len(kept) > 0 {
			rule += ", the run's session read-only"
		}
	}
	if !p.Network {
		rule += "; no TCP connect or bind"
		allow += ", --allow-network"
	}
	return rule, allow
}
