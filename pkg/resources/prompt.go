package resources

import (
	"slices"
	"strings"
	"time"
	"unicode"
)

// toolLines are the one-line descriptions of the built-in tools in the
// built-in prompt; another tool is listed by its name.
var toolLines = map[string]string{
	"read":  "Read file contents",
	"bash":  "Execute bash commands (ls, grep, find, etc.)",
	"edit":  "Make surgical edits to files (find exact text and replace)",
	"write": "Create or overwrite files",
	"grep":  "Search file contents for patterns (respects .gitignore)",
	"find":  "Find files by glob pattern (respects .gitignore)",
	"ls":    "List directory contents",
	"task":  "Delegate a self-contained job to a sub-agent with its own context",
}

const builtinIntro = "You are an expert coding assistant operating inside gopi, a coding agent harness. " +
	"You help users by reading files, executing commands, editing code, and writing new files."

const customToolsNote = "In addition to the tools above, you may have access to other custom tools depending on the project."

// SystemPrompt assembles the system prompt: the base (a replacement or
// the built-in prompt), the appended text, the context files under
// "# Project Context", the skills block when the read tool is active, and
// last the current date and working directory.
func (c *Catalog) SystemPrompt() string {
	var b strings.Builder
	if c.Base != "" {
		b.WriteString(trimEnd(c.Base))
	} else {
		b.WriteString(builtinPrompt(c.ActiveTools))
	}
	if c.Append != "" {
		b.WriteString("\n\n" + trimEnd(c.Append))
	}
	c.writeContext(&b)
	if slices.Contains(c.ActiveTools, "read") {
		b.WriteString(SkillsBlock(c.Skills))
	}
	c.writeWhereWhen(&b)
	return b.String()
}

// AgentPrompt is the system prompt of a defined agent's child run: the
// agent file's body, then the project's context files (as the parent's
// prompt has them) unless the agent opts out with noContextFiles, then
// the current date and working directory. An agent file with no body
// has "" (the child keeps a general child's prompt).
func (c *Catalog) AgentPrompt(a Agent) string {
	if strings.TrimSpace(a.Prompt) == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(trimEnd(a.Prompt))
	if !a.NoContextFiles {
		c.writeContext(&b)
	}
	c.writeWhereWhen(&b)
	return b.String()
}

// writeContext writes the context files under "# Project Context".
func (c *Catalog) writeContext(b *strings.Builder) {
	if len(c.ContextFiles) == 0 {
		return
	}
	b.WriteString("\n\n# Project Context\n\nProject-specific instructions and guidelines:")
	for _, f := range c.ContextFiles {
		b.WriteString("\n\n## " + f.Path + "\n\n" + trimEnd(f.Content))
	}
}

// writeWhereWhen writes the current date and working directory.
func (c *Catalog) writeWhereWhen(b *strings.Builder) {
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	b.WriteString("\n\nCurrent date: " + now().Format("2006-01-02"))
	b.WriteString("\nCurrent working directory: " + c.cwd)
}

// SystemPromptFor is SystemPrompt for a run offered other tools (a
// sub-agent's).
func (c *Catalog) SystemPromptFor(tools []string) string {
	cc := *c
	cc.ActiveTools = tools
	return cc.SystemPrompt()
}

// trimEnd drops the trailing white space of a file's text, so that the
// sections are separated by exactly one blank line. (pi keeps it and its
// prompts have runs of blank lines; nothing depends on them.)
func trimEnd(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }

// builtinPrompt is the prompt used when no SYSTEM.md or --system-prompt
// replaces it: the active tools and the guidelines that fit them.
func builtinPrompt(tools []string) string {
	list := "(none)"
	if len(tools) > 0 {
		lines := make([]string, len(tools))
		for i, name := range tools {
			desc, ok := toolLines[name]
			if !ok {
				desc = name
			}
			lines[i] = "- " + name + ": " + desc
		}
		list = strings.Join(lines, "\n")
	}
	guides := guidelines(tools)
	for i, g := range guides {
		guides[i] = "- " + g
	}
	return builtinIntro + "\n\nAvailable tools:\n" + list + "\n\n" + customToolsNote +
		"\n\nGuidelines:\n" + strings.Join(guides, "\n")
}

// guidelines are pi's guideline bullets for a set of tools.
func guidelines(tools []string) []string {
	has := func(n string) bool { return slices.Contains(tools, n) }
	bash, edit, write := has("bash"), has("edit"), has("write")
	explore := has("grep") || has("find") || has("ls")
	var out []string
	switch {
	case bash && !explore:
		out = append(out, "Use bash for file operations like ls, rg, find")
	case bash && explore:
		out = append(out, "Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)")
	}
	if has("read") && edit {
		out = append(out, "Use read to examine files before editing. You must use this tool instead of cat or sed.")
	}
	if edit {
		out = append(out, "Use edit for precise changes (old text must match exactly)")
	}
	if write {
		out = append(out, "Use write only for new files or complete rewrites")
	}
	if edit || write {
		out = append(out, "When summarizing your actions, output plain text directly - do NOT use cat or bash to display what you did")
	}
	return append(out, "Be concise in your responses", "Show file paths clearly when working with files")
}

// SkillsBlock formats skills for the system prompt in the Agent Skills
// XML form, every value XML-escaped. Skills that disable model invocation
// are left out; with none left the block is "".
func SkillsBlock(skills []Skill) string {
	var visible []Skill
	for _, s := range skills {
		if !s.DisableModelInvocation {
			visible = append(visible, s)
		}
	}
	if len(visible) == 0 {
		return ""
	}
	lines := []string{
		"\n\nThe following skills provide specialized instructions for specific tasks.",
		"Use the read tool to load a skill's file when the task matches its description.",
		"When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
		"",
		"<available_skills>",
	}
	for _, s := range visible {
		lines = append(lines,
			"  <skill>",
			"    <name>"+escapeXML(s.Name)+"</name>",
			"    <description>"+escapeXML(s.Description)+"</description>",
			"    <location>"+escapeXML(s.Path)+"</location>",
			"  </skill>")
	}
	lines = append(lines, "</available_skills>")
	return strings.Join(lines, "\n")
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func escapeXML(s string) string { return xmlEscaper.Replace(s) }
