package resources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// PiDir is pi's folder of a project's resources; gopi reads its skills,
// prompts, SYSTEM.md and APPEND_SYSTEM.md after its own, so that a project
// set up for pi works unchanged.
const PiDir = ".pi"

// ProjectRoots returns the folders whose .gopi (and .pi) folders belong
// to the project at cwd, nearest first: cwd and each parent up to the
// repository root (the nearest folder holding .git, a folder or a file),
// the root pi's .agents/skills walk stops at. Outside a repository it is
// cwd alone: walking on to the filesystem root would let a .gopi folder in
// a shared parent such as /tmp, which anyone can create, bring settings
// and hooks into every run below it. fsys is the filesystem the absolute
// cwd is looked up in; nil is the real one.
func ProjectRoots(fsys fs.FS, cwd string) []string {
	all := ancestors(filepath.Clean(cwd))
	if i := repoRoot(fsys, all); i >= 0 {
		return all[:i+1]
	}
	return all[:1]
}

// repoRoot is the index in dirs (nearest first) of the first folder
// holding .git, or -1.
func repoRoot(fsys fs.FS, dirs []string) int {
	for i, d := range dirs {
		var err error
		if fsys == nil {
			_, err = os.Stat(filepath.Join(d, ".git"))
		} else {
			_, err = fs.Stat(fsys, rel(filepath.Join(d, ".git")))
		}
		if err == nil {
			return i
		}
	}
	return -1
}

// agentsAncestors are the folders searched for .agents/skills, as pi
// searches them: cwd and its parents up to the repository root, or to the
// filesystem root outside a repository.
func (l *loader) agentsAncestors() []string {
	all := ancestors(l.opts.Cwd)
	if i := l.repoRoot(all); i >= 0 {
		return all[:i+1]
	}
	return all
}

// repoRoot is repoRoot(l.opts.FS, dirs) for dirs, the ancestors of the
// loader's cwd, looked up once per load: skills, prompts, SYSTEM.md and
// APPEND_SYSTEM.md all ask.
func (l *loader) repoRoot(dirs []string) int {
	if !l.rootKnown {
		l.root, l.rootKnown = repoRoot(l.opts.FS, dirs), true
	}
	return l.root
}

// projectPlaces returns name (a file or folder) inside the project's .gopi
// folders, nearest first, then inside its .pi folders, nearest first: on a
// name clash gopi's own resources win over pi's. A .gopi folder that is
// $GOPI_HOME is left out: it holds the user's resources, read as such.
func (l *loader) projectPlaces(name string) []string {
	var gopi, pi []string
	roots := ancestors(l.opts.Cwd)
	if i := l.repoRoot(roots); i >= 0 {
		roots = roots[:i+1]
	} else {
		roots = roots[:1]
	}
	for _, root := range roots {
		if d := filepath.Join(root, ProjectDir); d != l.opts.GopiHome {
			gopi = append(gopi, filepath.Join(d, name))
		}
		pi = append(pi, filepath.Join(root, PiDir, name))
	}
	return append(gopi, pi...)
}

// candidate reports whether something other than a folder is at abs: a
// file to read, or one ReadFile refuses (a named pipe, a device), which
// is then listed as skipped with why instead of being passed over.
func (l *loader) candidate(abs string) bool {
	fi, err := l.stat(abs)
	return err == nil && fi != nil && !fi.IsDir()
}

// readResource reads a discovered file; one that cannot be read or is
// refused is recorded as skipped with why, and ok is false.
func (l *loader) readResource(kind Kind, p string) (text string, ok bool) {
	text, err := l.readText(p)
	if err != nil {
		l.skip(kind, p, unreadable(err))
		return "", false
	}
	return text, true
}

// unreadable says why a file was not read and what to do about it.
func unreadable(err error) string {
	if errors.Is(err, ErrRefused) {
		return refusedAdvice(err)
	}
	return fmt.Sprintf("cannot be read (%v); fix its permissions or remove it", err)
}
