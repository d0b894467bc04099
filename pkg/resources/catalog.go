package resources

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Kind names a sort of resource.
type Kind string

// The kinds of resources Load looks for.
const (
	KindContext  Kind = "context"  // AGENTS.md or CLAUDE.md
	KindSystem   Kind = "system"   // a replacement system prompt
	KindAppend   Kind = "append"   // text appended to the system prompt
	KindSkill    Kind = "skill"    // a SKILL.md or a .md file in a skills folder
	KindTemplate Kind = "template" // a prompt template
)

// Item is one resource Load found and uses.
type Item struct {
	Kind Kind
	// Path is the file's absolute path; "" for text given as a value.
	Path string
	// Name is the skill's or template's name; "" for other kinds.
	Name string
	// Source says where it came from: "project", "user", "global" or "flag".
	Source string
}

// Skipped is a resource Load found and does not use, or a discovery that
// was switched off (then Path is "").
type Skipped struct {
	Kind   Kind
	Path   string
	Reason string
}

// String is the line the CLI prints on stderr.
func (s Skipped) String() string {
	if s.Path == "" {
		return fmt.Sprintf("%s: %s", s.Kind, s.Reason)
	}
	return fmt.Sprintf("%s %s skipped: %s", s.Kind, s.Path, s.Reason)
}

// Warning is a problem with a resource that is still used.
type Warning struct {
	Kind    Kind
	Path    string
	Message string
}

// String is the line the CLI prints on stderr.
func (w Warning) String() string { return fmt.Sprintf("%s %s: %s", w.Kind, w.Path, w.Message) }

// ContextFile is one AGENTS.md or CLAUDE.md, in prompt order.
type ContextFile struct {
	Path    string
	Content string
}

// Catalog is what Load found. It is read-only after Load and safe for
// concurrent use.
type Catalog struct {
	ContextFiles []ContextFile
	Skills       []Skill
	Templates    []Template
	// Agents are the sub-agents defined in agents folders.
	Agents []Agent
	// Base is the replacement of the built-in prompt ("" for none);
	// Append the text appended after it ("" for none).
	Base, Append string
	// ActiveTools are the tool names the prompt was built for.
	ActiveTools []string

	// Found lists every resource in use, in discovery order; Skipped every
	// one left out, with why; Warnings problems with resources in use.
	// `gopi context` prints them, and the CLI reports Skipped and
	// Warnings on stderr.
	Found    []Item
	Skipped  []Skipped
	Warnings []Warning

	now  func() time.Time
	cwd  string
	read func(abs string) (string, error)
}

// Load discovers the resources described by opts. Problems with a
// project's files are recorded in the Catalog, never returned; the error
// is for unusable Options, among them a SystemPrompt or
// AppendSystemPrompt naming a file ReadFile refuses (*PromptFileError).
func Load(opts Options) (*Catalog, error) {
	l, err := newLoader(opts)
	if err != nil {
		return nil, err
	}
	c := l.cat
	c.ActiveTools = append([]string(nil), opts.ActiveTools...)
	c.read = l.readText
	if err := l.loadPrompts(); err != nil {
		return nil, err
	}
	l.switchable(opts.NoContextFiles, KindContext, "--no-context-files", l.loadContextFiles)
	l.switchable(opts.NoSkills, KindSkill, "--no-skills", l.loadSkills)
	l.switchable(opts.NoTemplates, KindTemplate, "--no-prompt-templates", l.loadTemplates)
	l.loadAgents()
	return c, nil
}

// PromptFileError is a SystemPrompt or AppendSystemPrompt value naming a
// file that is not a regular file or is larger than MaxFileSize: the
// person asked for that file, so it is neither skipped nor used as text.
type PromptFileError struct {
	Kind Kind   // KindSystem or KindAppend
	Path string // the file's absolute path
	Err  error  // why it is refused (errors.Is ErrRefused)
}

func (e *PromptFileError) Error() string {
	flag := "--system-prompt"
	if e.Kind == KindAppend {
		flag = "--append-system-prompt"
	}
	return fmt.Sprintf("%s names %s, which %v: give a regular file of at most %s, or the text itself",
		flag, e.Path, e.Err, sizeText(MaxFileSize))
}

func (e *PromptFileError) Unwrap() error { return e.Err }

// switchable runs a discovery unless it is switched off, and records why not.
func (l *loader) switchable(off bool, kind Kind, flag string, discover func()) {
	switch {
	case l.opts.Bare:
		l.skip(kind, "", "discovery is off (--bare)")
	case off:
		l.skip(kind, "", "discovery is off ("+flag+")")
	default:
		discover()
	}
}

func (l *loader) found(kind Kind, p, name, source string) {
	l.cat.Found = append(l.cat.Found, Item{Kind: kind, Path: p, Name: name, Source: source})
}

func (l *loader) skip(kind Kind, p, reason string) {
	l.cat.Skipped = append(l.cat.Skipped, Skipped{Kind: kind, Path: p, Reason: reason})
}

func (l *loader) warn(kind Kind, p, msg string) {
	l.cat.Warnings = append(l.cat.Warnings, Warning{Kind: kind, Path: p, Message: msg})
}

// loadPrompts resolves the base and appended prompt: the option's value,
// else the nearest project file (.gopi before .pi), else the global one.
func (l *loader) loadPrompts() error {
	var err error
	if l.cat.Base, err = l.promptText(KindSystem, l.opts.SystemPrompt, "SYSTEM.md", "--system-prompt"); err != nil {
		return err
	}
	l.cat.Append, err = l.promptText(KindAppend, l.opts.AppendSystemPrompt, "APPEND_SYSTEM.md", "--append-system-prompt")
	return err
}

func (l *loader) promptText(kind Kind, value, file, flag string) (string, error) {
	if value != "" {
		return l.flagText(kind, value, flag)
	}
	if l.opts.Bare {
		return "", nil
	}
	type place struct{ p, source string }
	var places []place
	for _, p := range l.projectPlaces(file) {
		places = append(places, place{p, "project"})
	}
	if l.opts.GopiHome != "" {
		places = append(places, place{filepath.Join(l.opts.GopiHome, file), "global"})
	}
	for _, c := range places {
		if !l.candidate(c.p) {
			continue
		}
		if text, ok := l.readResource(kind, c.p); ok {
			l.found(kind, c.p, "", c.source)
			return text, nil
		}
	}
	return "", nil
}

// flagText reads a flag's value as pi does: a file when one exists at
// that path, otherwise the text itself. A path naming something ReadFile
// refuses is an error: the person meant that file, and its name is not
// the prompt they want.
func (l *loader) flagText(kind Kind, value, flag string) (string, error) {
	if len(value) <= maxInlineLen && !strings.ContainsAny(value, "\n\x00") {
		p := l.abs(value)
		if l.candidate(p) {
			text, err := l.readText(p)
			if err == nil {
				l.found(kind, p, "", "flag")
				return text, nil
			}
			if errors.Is(err, ErrRefused) {
				return "", &PromptFileError{Kind: kind, Path: p, Err: err}
			}
			l.warn(kind, p, fmt.Sprintf("%s names a file that cannot be read (%v); its value is used as text", flag, err))
		}
	}
	l.found(kind, "", "", "flag")
	return value, nil
}
