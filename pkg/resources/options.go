package resources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Options is everything Load needs, as plain values. The CLI resolves
// flags, environment and settings into one Options value.
type Options struct {
	// FS is the filesystem every path below is looked up in, addressed by
	// absolute slash-separated paths ("/home/u/x" is "home/u/x" in FS).
	// Nil means the real filesystem (os.DirFS("/")). Tests mount a fixture
	// tree here so that paths in golden files do not depend on the machine.
	FS fs.FS
	// Cwd is the absolute working directory of the session. Required.
	Cwd string
	// Home is the user's home folder (for ~/.agents/skills); "" skips it.
	Home string
	// GopiHome is $GOPI_HOME (global AGENTS.md, SYSTEM.md, skills/,
	// prompts/); "" skips the global resources.
	GopiHome string
	// Now gives the date at the end of the system prompt, formatted in
	// the location of the time it returns. Nil means time.Now.
	Now func() time.Time

	// SystemPrompt replaces the built-in prompt: the path of a file
	// (absolute or relative to Cwd) when one exists there, otherwise the
	// text itself, as pi reads --system-prompt. "" means discover
	// .gopi/SYSTEM.md, then $GOPI_HOME/SYSTEM.md.
	SystemPrompt string
	// AppendSystemPrompt is added after the base prompt; read like
	// SystemPrompt, discovered as APPEND_SYSTEM.md when "".
	AppendSystemPrompt string

	// ActiveTools are the names of the tools the model is offered, in
	// order (the registry's Names). Empty means no tools: the built-in
	// prompt lists "(none)" and the skills block is left out.
	ActiveTools []string

	NoSkills       bool // --no-skills
	NoTemplates    bool // --no-prompt-templates
	NoContextFiles bool // --no-context-files
	// Bare switches off every discovery: context files, SYSTEM.md and
	// APPEND_SYSTEM.md, skills and templates. Explicit SystemPrompt and
	// AppendSystemPrompt values still apply.
	Bare bool
}

// ProjectDir is the folder of a project's own gopi resources, in Cwd or
// one of its parents up to the repository root (see ProjectRoots).
const ProjectDir = ".gopi"

// maxInlineLen bounds a --system-prompt value that may still be a path;
// longer text, or text with a line break, is never looked up as a file.
const maxInlineLen = 4096

// loader carries the validated options through one Load.
type loader struct {
	opts Options
	fsys fs.FS
	cat  *Catalog
	// root is the repository root's index in the cwd's ancestors (-1:
	// none), once rootKnown (loader.repoRoot).
	root      int
	rootKnown bool
}

func newLoader(opts Options) (*loader, error) {
	if opts.Cwd == "" || !filepath.IsAbs(opts.Cwd) {
		return nil, fmt.Errorf("resources: working directory %q is not an absolute path: pass the session's absolute cwd", opts.Cwd)
	}
	for name, p := range map[string]string{"home": opts.Home, "GOPI_HOME": opts.GopiHome} {
		if p != "" && !filepath.IsAbs(p) {
			return nil, fmt.Errorf("resources: %s %q is not an absolute path: resolve it before loading", name, p)
		}
	}
	opts.Cwd = filepath.Clean(opts.Cwd)
	if opts.Home != "" {
		opts.Home = filepath.Clean(opts.Home)
	}
	if opts.GopiHome != "" {
		opts.GopiHome = filepath.Clean(opts.GopiHome)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &loader{opts: opts, fsys: opts.FS, cat: &Catalog{now: opts.Now, cwd: opts.Cwd}}, nil
}

// rel maps an absolute path to its name in the FS.
func rel(abs string) string {
	p := strings.TrimPrefix(filepath.Clean(abs), "/")
	if p == "" {
		return "."
	}
	return p
}

// stat reports what is at an absolute path; a missing entry is (nil, nil).
func (l *loader) stat(abs string) (fs.FileInfo, error) {
	fi, err := l.statFS(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return fi, err
}

// isDir reports whether a folder (or a link to one) is at abs.
func (l *loader) isDir(abs string) bool {
	fi, err := l.stat(abs)
	return err == nil && fi != nil && fi.IsDir()
}

// readText reads a file as text with Windows line ends normalised,
// through ReadFile: never more than MaxFileSize, never a named pipe.
func (l *loader) readText(abs string) (string, error) {
	b, err := ReadFile(l.opts.FS, abs, MaxFileSize)
	if err != nil {
		return "", err
	}
	return normalizeNewlines(string(b)), nil
}

func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// abs resolves p against the working directory.
func (l *loader) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(l.opts.Cwd, p)
}

// ancestors returns dir and each of its parents up to the root, nearest first.
func ancestors(dir string) []string {
	var out []string
	for {
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// statFS stats an absolute path in Options.FS, or on the real filesystem
// by its native name (a drive letter on Windows) when there is none.
func (l *loader) statFS(abs string) (fs.FileInfo, error) {
	if l.fsys == nil {
		return os.Stat(abs)
	}
	return fs.Stat(l.fsys, rel(abs))
}

// readDir lists a folder as statFS finds it.
func (l *loader) readDir(dir string) ([]fs.DirEntry, error) {
	if l.fsys == nil {
		return os.ReadDir(dir)
	}
	return fs.ReadDir(l.fsys, rel(dir))
}
