package resources

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Limits of the Agent Skills specification.
const (
	MaxSkillNameLen        = 64
	MaxSkillDescriptionLen = 1024
)

// maxSkillDepth bounds the folder walk (symbolic links can make loops).
const maxSkillDepth = 12

// Skill is one usable skill. Only its name, description and location go
// into the system prompt; the model reads the body itself.
type Skill struct {
	Name        string
	Description string
	Path        string // the SKILL.md (or .md) file
	Dir         string // the folder relative references resolve against
	Source      string // "project" or "user"
	// DisableModelInvocation keeps the skill out of the prompt; it can
	// still be inlined with /skill:name.
	DisableModelInvocation bool
}

type skillDir struct{ dir, source string }

// skillDirs lists the skills folders by precedence, so that the first of
// two skills with one name wins: the project's .gopi/skills folders
// (nearest first), then its .pi/skills folders, then its .agents/skills
// folders, then the user's $GOPI_HOME/skills and ~/.agents/skills.
func (l *loader) skillDirs() []skillDir {
	userAgents := ""
	if l.opts.Home != "" {
		userAgents = filepath.Join(l.opts.Home, ".agents", "skills")
	}
	var dirs []skillDir
	for _, p := range l.projectPlaces("skills") {
		dirs = append(dirs, skillDir{p, "project"})
	}
	for _, d := range l.agentsAncestors() {
		if p := filepath.Join(d, ".agents", "skills"); p != userAgents {
			dirs = append(dirs, skillDir{p, "project"})
		}
	}
	if l.opts.GopiHome != "" {
		dirs = append(dirs, skillDir{filepath.Join(l.opts.GopiHome, "skills"), "user"})
	}
	if userAgents != "" {
		dirs = append(dirs, skillDir{userAgents, "user"})
	}
	return dirs
}

func (l *loader) loadSkills() {
	byName := map[string]Skill{}
	seenFile := map[string]bool{}
	for _, d := range l.skillDirs() {
		if !l.isDir(d.dir) {
			continue
		}
		for _, s := range l.skillsIn(d.dir, d.source, true, 0) {
			if seenFile[s.Path] {
				continue
			}
			seenFile[s.Path] = true
			if prev, dup := byName[s.Name]; dup {
				l.skip(KindSkill, s.Path, fmt.Sprintf("name %q is already taken by %s, which wins (project skills before user skills; .gopi, then .pi, then .agents folders; nearer folders first); rename one of them", s.Name, prev.Path))
				continue
			}
			byName[s.Name] = s
			l.cat.Skills = append(l.cat.Skills, s)
			l.found(KindSkill, s.Path, s.Name, s.Source)
		}
	}
}

// skillsIn walks one skills folder as pi does: a folder holding SKILL.md
// is one skill and is not searched further; .md files directly in the
// root are skills too; hidden entries and node_modules are ignored.
func (l *loader) skillsIn(dir, source string, root bool, depth int) []Skill {
	if depth > maxSkillDepth {
		l.skip(KindSkill, dir, fmt.Sprintf("nested deeper than %d folders (a link loop?); move the skill up", maxSkillDepth))
		return nil
	}
	if p := filepath.Join(dir, "SKILL.md"); l.candidate(p) {
		return l.skillAt(p, filepath.Base(dir), source)
	}
	entries, err := l.readDir(dir)
	if err != nil {
		l.skip(KindSkill, dir, fmt.Sprintf("folder cannot be read (%v)", err))
		return nil
	}
	var out []Skill
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		p := filepath.Join(dir, name)
		switch {
		case l.isDir(p):
			out = append(out, l.skillsIn(p, source, false, depth+1)...)
		case root && strings.HasSuffix(name, ".md") && l.candidate(p):
			out = append(out, l.skillAt(p, strings.TrimSuffix(name, ".md"), source)...)
		}
	}
	return out
}

// skillAt reads and validates one skill file; an invalid one is skipped
// with every reason, a usable one with problems is kept with a warning.
func (l *loader) skillAt(p, defaultName, source string) []Skill {
	text, ok := l.readResource(KindSkill, p)
	if !ok {
		return nil
	}
	s, problems, warnings := parseSkill(text, defaultName)
	if len(problems) > 0 {
		l.skip(KindSkill, p, strings.Join(problems, "; "))
		return nil
	}
	for _, w := range warnings {
		l.warn(KindSkill, p, w)
	}
	s.Path, s.Dir, s.Source = p, filepath.Dir(p), source
	return []Skill{s}
}

// parseSkill validates a skill file's frontmatter. problems make the skill
// unusable; warnings do not.
func parseSkill(text, defaultName string) (s Skill, problems, warnings []string) {
	fm, _, err := parseFrontmatter(text)
	if err != nil {
		return s, []string{err.Error() + "; fix the header between the --- lines"}, nil
	}
	name, err := fm.str("name")
	if err != nil {
		problems = append(problems, err.Error())
	}
	desc, err := fm.str("description")
	if err != nil {
		problems = append(problems, err.Error())
	}
	if name == "" {
		name = defaultName
	}
	problems = append(problems, validateDescription(desc)...)
	problems = append(problems, validateSkillName(name)...)
	if name != defaultName && len(problems) == 0 {
		warnings = append(warnings, fmt.Sprintf("name %q does not match its folder or file name %q", name, defaultName))
	}
	s = Skill{Name: name, Description: desc, DisableModelInvocation: fm.flag("disable-model-invocation")}
	return s, problems, warnings
}

// validateSkillName applies the Agent Skills name rules.
func validateSkillName(name string) []string {
	var out []string
	if n := len(name); n > MaxSkillNameLen {
		out = append(out, fmt.Sprintf("name is %d characters long; at most %d are allowed", n, MaxSkillNameLen))
	}
	if name == "" || strings.IndexFunc(name, notNameRune) >= 0 {
		out = append(out, fmt.Sprintf("name %q may only hold lowercase letters a-z, digits 0-9 and hyphens", name))
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		out = append(out, fmt.Sprintf("name %q must not start or end with a hyphen", name))
	}
	if strings.Contains(name, "--") {
		out = append(out, fmt.Sprintf("name %q must not contain consecutive hyphens", name))
	}
	return out
}

func notNameRune(r rune) bool {
	return (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-'
}

func validateDescription(desc string) []string {
	if strings.TrimSpace(desc) == "" {
		return []string{"description is required: add `description: <what the skill is for>` to the frontmatter"}
	}
	if n := len([]rune(desc)); n > MaxSkillDescriptionLen {
		return []string{fmt.Sprintf("description is %d characters long; at most %d are allowed", n, MaxSkillDescriptionLen)}
	}
	return nil
}
