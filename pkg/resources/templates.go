package resources

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Template is a prompt template: `/name args` expands to Content with the
// arguments substituted.
type Template struct {
	Name        string
	Description string // from frontmatter, else the body's first line
	Content     string // the body, frontmatter and trailing white space removed
	Path        string
	Source      string // "project" or "user"
}

// maxDescriptionPreview bounds a description taken from the first line.
const maxDescriptionPreview = 60

// loadTemplates reads the .md files of the project's prompts folders
// (.gopi nearest first, then .pi nearest first), then the user's; the
// first template of a name wins.
func (l *loader) loadTemplates() {
	var dirs []skillDir
	for _, p := range l.projectPlaces("prompts") {
		dirs = append(dirs, skillDir{p, "project"})
	}
	if l.opts.GopiHome != "" {
		dirs = append(dirs, skillDir{filepath.Join(l.opts.GopiHome, "prompts"), "user"})
	}
	byName := map[string]string{}
	for _, d := range dirs {
		for _, t := range l.templatesIn(d.dir, d.source) {
			if prev, dup := byName[t.Name]; dup {
				l.skip(KindTemplate, t.Path, fmt.Sprintf("name %q is already taken by %s, which wins (project templates before user templates; .gopi before .pi folders; nearer folders first); rename one of them", t.Name, prev))
				continue
			}
			byName[t.Name] = t.Path
			l.cat.Templates = append(l.cat.Templates, t)
			l.found(KindTemplate, t.Path, t.Name, t.Source)
		}
	}
}

// templatesIn reads the .md files directly in dir (not its subfolders).
func (l *loader) templatesIn(dir, source string) []Template {
	if !l.isDir(dir) {
		return nil
	}
	entries, err := l.readDir(dir)
	if err != nil {
		l.skip(KindTemplate, dir, fmt.Sprintf("folder cannot be read (%v)", err))
		return nil
	}
	var out []Template
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".md") || !l.candidate(p) {
			continue
		}
		text, ok := l.readResource(KindTemplate, p)
		if !ok {
			continue
		}
		t, err := templateAt(text, p, source)
		if err != nil {
			l.skip(KindTemplate, p, err.Error())
			continue
		}
		out = append(out, t)
	}
	return out
}

func templateAt(text, p, source string) (Template, error) {
	fm, body, err := parseFrontmatter(text)
	if err != nil {
		return Template{}, fmt.Errorf("%w; fix the header between the --- lines", err)
	}
	desc, err := fm.str("description")
	if err != nil {
		return Template{}, err
	}
	if desc == "" {
		desc = firstLine(body)
	}
	name := strings.TrimSuffix(filepath.Base(p), ".md")
	return Template{Name: name, Description: desc, Content: strings.TrimRight(body, " \t\n"), Path: p, Source: source}, nil
}

// firstLine is the first non-blank line, shortened as pi shortens it.
func firstLine(body string) string {
	for line := range strings.SplitSeq(body, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		r := []rune(line)
		if len(r) > maxDescriptionPreview {
			return string(r[:maxDescriptionPreview]) + "..."
		}
		return line
	}
	return ""
}
