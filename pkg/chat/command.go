package chat

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/session"
)

// Command is a chat command: /name followed by its argument.
type Command struct {
	Name string // without the slash
	Arg  string // the rest, trimmed
}

// commandNames are the chat's own commands; any other /name is a prompt
// template or /skill:name for Expand.
var commandNames = []string{"help", "tree", "leaf", "model", "thinking", "compact", "session", "new", "quit", "followup"}

const helpText = `Type a prompt and press Enter; end a line with \ to continue on the next.
While a run is active, a typed line steers it; Alt-Enter (or /followup TEXT)
queues a follow-up for when it would stop. Ctrl-C aborts the run; Ctrl-C twice
or Ctrl-D on an empty line quits.

  /help              this help
  /tree              the session's entries with their ids
  /leaf ID           continue from another entry (a new branch)
  /model [P/ID]      show or switch the model, e.g. /model anthropic/claude-sonnet-4-5
  /thinking [LEVEL]  show or set thinking: off, minimal, low, medium, high, xhigh
  /compact [FOCUS]   summarise the older conversation now
  /session           file, id, leaf, tokens and cost so far
  /new               start a new session
  /quit              leave (also Ctrl-D)
  /NAME ARGS         a prompt template; /skill:NAME ARGS inlines a skill`

// ParseCommand recognises the chat's own commands. Anything else,
// including prompt templates, is not a command.
func ParseCommand(line string) (Command, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "/") {
		return Command{}, false
	}
	name, arg, _ := strings.Cut(t[1:], " ")
	if i := strings.IndexAny(name, "\t\n"); i >= 0 {
		name, arg = name[:i], name[i:]+" "+arg
	}
	if !slices.Contains(commandNames, name) {
		return Command{}, false
	}
	if name == "quit" && strings.TrimSpace(arg) != "" {
		return Command{}, false
	}
	return Command{Name: name, Arg: strings.TrimSpace(arg)}, true
}

// command runs one command while idle; true means quit.
func (c *Chat) command(ctx context.Context, cmd Command) bool {
	switch cmd.Name {
	case "quit":
		return true
	case "help":
		c.scr.lines(helpText)
	case "tree":
		c.showTree()
	case "leaf":
		c.switchLeaf(cmd.Arg)
	case "model":
		c.switchModel(cmd.Arg)
	case "thinking":
		c.switchThinking(cmd.Arg)
	case "compact":
		c.compact(ctx, cmd.Arg)
	case "session":
		c.showSession()
	case "new":
		c.open(Want{NewSession: true}, "new session")
	case "followup":
		c.prompt(ctx, cmd.Arg)
	}
	return false
}

func (c *Chat) showTree() {
	rt := c.current().Runtime
	var b bytes.Buffer
	if err := c.deps.Tree(&b, rt.Session()); err != nil {
		c.scr.line(c.pal.red(err.Error()))
		return
	}
	c.scr.lines(b.String())
	if leaf := rt.Leaf(); leaf != "" {
		c.scr.line(c.pal.dim("you are at " + leaf + " (/leaf ID continues from another entry)"))
	}
}

func (c *Chat) switchLeaf(ref string) {
	if ref == "" {
		c.scr.line(c.pal.red("/leaf needs an entry id: /tree shows them"))
		return
	}
	entries := c.current().Runtime.Session().Entries()
	id, err := session.ResolveID(entries, ref)
	if err != nil {
		c.scr.line(c.pal.red(fmt.Sprintf("/leaf: %v", err)))
		return
	}
	c.open(Want{Leaf: id}, "continuing from "+id+" (the next prompt starts a new branch)")
}

func (c *Chat) switchModel(ref string) {
	if ref == "" {
		m := c.current().Model
		c.scr.line(fmt.Sprintf("model %s/%s · context %s", m.Provider, m.ID, formatTokens(int64(m.ContextWindow))))
		return
	}
	c.open(Want{Leaf: c.current().Runtime.Leaf(), Model: ref}, "")
}

func (c *Chat) switchThinking(level string) {
	if level == "" {
		c.scr.line("thinking " + string(c.level()))
		return
	}
	if !slices.Contains(ai.ThinkingLevels, ai.ThinkingLevel(level)) {
		c.scr.line(c.pal.red(fmt.Sprintf("/thinking %q: use off, minimal, low, medium, high or xhigh", level)))
		return
	}
	c.mu.Lock()
	old := c.thinking
	c.thinking = ai.ThinkingLevel(level)
	c.mu.Unlock()
	if !c.open(Want{Leaf: c.current().Runtime.Leaf()}, "thinking "+level) {
		c.mu.Lock()
		c.thinking = old
		c.mu.Unlock()
	}
}

func (c *Chat) level() ai.ThinkingLevel {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.thinking == "" {
		return ai.ThinkingOff
	}
	return c.thinking
}

// open asks for a new Runtime and switches to it; false when it failed
// (the current one stays).
func (c *Chat) open(w Want, done string) bool {
	w.Thinking = c.level()
	o, err := c.deps.Open(w)
	if err != nil {
		c.scr.line(c.pal.red(err.Error()))
		return false
	}
	c.swap(o)
	if done == "" {
		done = fmt.Sprintf("model %s/%s", o.Model.Provider, o.Model.ID)
	}
	if w.NewSession {
		done += " " + o.Runtime.Session().Header().ID
	}
	c.scr.line(c.pal.dim(done))
	return true
}

// showSession writes the file, id, leaf, model, and the tokens and cost
// of every answer in the session.
func (c *Chat) showSession() {
	cur := c.current()
	store := cur.Runtime.Session()
	var total ai.Usage
	for _, e := range store.Entries() {
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == ai.RoleAssistant {
			total = total.Add(e.Message.Usage)
		}
	}
	file := cur.File
	if file == "" {
		file = "(not saved: --no-session)"
	}
	leaf := cur.Runtime.Leaf()
	if leaf == "" {
		leaf = "(none yet)"
	}
	c.scr.lines(fmt.Sprintf("session %s\nfile    %s\nleaf    %s\nmodel   %s/%s · thinking %s\ntokens  ↑%s ↓%s · cost %s · ctx %s",
		store.Header().ID, file, leaf, cur.Model.Provider, cur.Model.ID, c.level(),
		formatTokens(total.Input+total.CacheRead+total.CacheWrite), formatTokens(total.Output), formatCost(total.Cost.Total),
		c.fill(cur.Runtime, cur.Runtime.Messages())))
}
