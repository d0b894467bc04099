package resources

import (
	"path/filepath"
	"slices"
)

// contextNames are the context file names of one folder, by preference:
// the first that exists and can be read is the folder's context file.
var contextNames = []string{"AGENTS.md", "CLAUDE.md"}

// loadContextFiles collects $GOPI_HOME's context file first, then one per
// folder from the filesystem root down to the working directory.
func (l *loader) loadContextFiles() {
	seen := map[string]bool{}
	add := func(dir, source string) {
		cf, ok := l.contextFileIn(dir)
		if !ok || seen[cf.Path] {
			return
		}
		seen[cf.Path] = true
		l.cat.ContextFiles = append(l.cat.ContextFiles, cf)
		l.found(KindContext, cf.Path, "", source)
	}
	if l.opts.GopiHome != "" {
		add(l.opts.GopiHome, "global")
	}
	dirs := ancestors(l.opts.Cwd)
	slices.Reverse(dirs)
	for _, dir := range dirs {
		add(dir, "project")
	}
}

// contextFileIn returns the folder's context file, recording a candidate
// that exists and cannot be read or is refused (not a regular file, or
// larger than MaxFileSize).
func (l *loader) contextFileIn(dir string) (ContextFile, bool) {
	for _, name := range contextNames {
		p := filepath.Join(dir, name)
		if !l.candidate(p) {
			continue
		}
		if text, ok := l.readResource(KindContext, p); ok {
			return ContextFile{Path: p, Content: text}, true
		}
	}
	return ContextFile{}, false
}
