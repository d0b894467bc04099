package resources

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"gopi/pkg/ai"
)

// KindAgent is a sub-agent's definition: NAME.md in an agents folder.
const KindAgent Kind = "agent"

// Agent is a sub-agent the task tool offers. The model chooses it by
// Description; Prompt (the file's body) is the child run's system prompt.
type Agent struct {
	Name        string
	Description string
	// Tools narrow the parent's tools for the child; nil: the parent's.
	Tools []string
	// Model is "provider/id" (or an id); "" for the parent's.
	Model    string
	Thinking string // "" for the parent's level
	MaxSteps int    // 0 for the parent's
	Prompt   string
	// NoContextFiles ("noContextFiles: true") leaves the project's
	// context files out of the child's system prompt (AgentPrompt).
	NoContextFiles bool
	Path           string
	Source         string // "project" or "user"
}

// agentDirs are the agents folders by precedence: the project's
// .gopi/agents (nearest first), its .pi/agents, then $GOPI_HOME/agents.
func (l *loader) agentDirs() []skillDir {
	var dirs []skillDir
	for _, p := range l.projectPlaces("agents") {
		dirs = append(dirs, skillDir{p, "project"})
	}
	if l.opts.GopiHome != "" {
		dirs = append(dirs, skillDir{filepath.Join(l.opts.GopiHome, "agents"), "user"})
	}
	return dirs
}

func (l *loader) loadAgents() {
	byName := map[string]Agent{}
	for _, d := range l.agentDirs() {
		if !l.isDir(d.dir) {
			continue
		}
		entries, err := l.readDir(d.dir)
		if err != nil {
			l.skip(KindAgent, d.dir, fmt.Sprintf("folder cannot be read (%v)", err))
			continue
		}
		for _, e := range entries {
			name := e.Name()
			p := filepath.Join(d.dir, name)
			if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md") || !l.candidate(p) {
				continue
			}
			text, ok := l.readResource(KindAgent, p)
			if !ok {
				continue
			}
			a, err := parseAgent(text, strings.TrimSuffix(name, ".md"))
			if err != nil {
				l.skip(KindAgent, p, err.Error())
				continue
			}
			if prev, dup := byName[a.Name]; dup {
				l.skip(KindAgent, p, fmt.Sprintf("name %q is already taken by %s, which wins (project agents before user agents; nearer folders first); rename one of them", a.Name, prev.Path))
				continue
			}
			a.Path, a.Source = p, d.source
			byName[a.Name] = a
			l.cat.Agents = append(l.cat.Agents, a)
			l.found(KindAgent, p, a.Name, a.Source)
		}
	}
}

// parseAgent reads an agent file's frontmatter: name (default: the file's
// name), description (required), tools (a list or a comma-separated
// string), model, thinking, maxSteps and noContextFiles.
func parseAgent(text, defaultName string) (Agent, error) {
	fm, body, err := parseFrontmatter(text)
	if err != nil {
		return Agent{}, err
	}
	a := Agent{Prompt: body}
	if a.Name, err = fm.str("name"); err != nil {
		return Agent{}, err
	}
	if a.Name == "" {
		a.Name = defaultName
	}
	if msgs := validateSkillName(a.Name); len(msgs) > 0 {
		return Agent{}, fmt.Errorf("%s", strings.Join(msgs, "; "))
	}
	if a.Description, err = fm.str("description"); err != nil {
		return Agent{}, err
	}
	if strings.TrimSpace(a.Description) == "" {
		return Agent{}, fmt.Errorf("it has no description: add a description line to its frontmatter (the model chooses agents by it)")
	}
	if a.Tools, err = agentTools(fm["tools"]); err != nil {
		return Agent{}, err
	}
	switch v := fm["noContextFiles"].(type) {
	case nil:
	case bool:
		a.NoContextFiles = v
	default:
		return Agent{}, fmt.Errorf("frontmatter field \"noContextFiles\" must be true or false")
	}
	if a.Model, err = fm.str("model"); err != nil {
		return Agent{}, err
	}
	if a.Thinking, err = fm.str("thinking"); err != nil {
		return Agent{}, err
	}
	if a.Thinking != "" && !slices.Contains(ai.ThinkingLevels, ai.ThinkingLevel(a.Thinking)) {
		levels := make([]string, len(ai.ThinkingLevels))
		for i, l := range ai.ThinkingLevels {
			levels[i] = string(l)
		}
		return Agent{}, fmt.Errorf("frontmatter field \"thinking\" is %q: use one of %s", a.Thinking, strings.Join(levels, ", "))
	}
	switch n := fm["maxSteps"].(type) {
	case nil:
	case int:
		if n < 1 {
			return Agent{}, fmt.Errorf("frontmatter field \"maxSteps\" must be a positive whole number")
		}
		a.MaxSteps = n
	default:
		return Agent{}, fmt.Errorf("frontmatter field \"maxSteps\" must be a positive whole number")
	}
	return a, nil
}

// agentTools reads the frontmatter field "tools": a list, or a
// comma-separated string; nil when absent (the parent's tools).
func agentTools(v any) ([]string, error) {
	var tools []string
	switch t := v.(type) {
	case nil:
	case string:
		tools = []string{}
		for _, s := range strings.Split(t, ",") {
			if s = strings.TrimSpace(s); s != "" {
				tools = append(tools, s)
			}
		}
	case []any:
		tools = []string{}
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("frontmatter field \"tools\" must list tool names")
			}
			tools = append(tools, strings.TrimSpace(s))
		}
	default:
		return nil, fmt.Errorf("frontmatter field \"tools\" must be a list of tool names or a comma-separated string")
	}
	return tools, nil
}
