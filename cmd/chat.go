package cmd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/mcp"
	"gopi/pkg/mode"
	"gopi/pkg/resources"
	"gopi/pkg/session"
)

// chatOptions are gopi chat's flags: run's session, model and tool flags
// plus the display.
type chatOptions struct {
	runOptions
	noColor bool
	// lockWait: how long an existing session's lock held elsewhere is
	// waited for (rpc: rpcLockWait).
	lockWait time.Duration
	// moreMCP are MCP servers started beside the settings' (an ACP
	// client's, given with its session).
	moreMCP []mcp.Server
}

func newChatCmd(sys *System) *cobra.Command {
	o := &chatOptions{}
	c := &cobra.Command{
		Use:   "chat [flags] [PROMPT...]",
		Short: "Talk with the agent in the terminal",
		Long: `Talk with the agent in the terminal: one prompt per line, the answer streams as it
arrives, tool calls show as one line each. While a run is active a typed line steers
it and Alt-Enter queues a follow-up; Ctrl-C aborts the run. /help lists the commands.
PROMPT, the words joined by spaces, is sent at once as the first message; an
@FILE argument attaches a file to it as gopi run does (text inlined with its
path, an image attached; a missing file is a usage error).

Bare gopi starts a chat when stdin and stdout are terminals. For scripts and pipes
use gopi run.`,
		Example: `  gopi chat
  gopi chat "why does the build fail?"
  gopi chat -c                      # continue the newest session of this folder
  gopi chat --session ID --leaf ENTRY`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.args = args
			return runChat(c.Context(), sys, c, o)
		},
	}
	addAgentFlags(c.Flags(), &o.runOptions)
	c.Flags().BoolVar(&o.noColor, "no-color", false, "no colours (also when NO_COLOR is set)")
	registerAgentCompletions(c, sys)
	return c
}

// runChat refuses without a terminal, then prepares the first Runtime as
// gopi run does and hands the terminal to the interactive mode.
func runChat(ctx context.Context, sys *System, c *cobra.Command, o *chatOptions) error {
	ctx, untrap := trapChat(ctx, sys)
	defer untrap()
	if err := checkConflicts(c.Flags()); err != nil {
		return err
	}
	if !sys.StdinTTY || !sys.StdoutTTY {
		return usageErr("gopi chat needs a terminal on stdin and stdout; for pipes and scripts use gopi run " +
			"(e.g. gopi run \"fix the tests\", or echo PROMPT | gopi run)")
	}
	h, err := newChatHost(ctx, sys, c, o)
	if err != nil {
		return err
	}
	defer h.close()
	first := mode.Opened{Runtime: h.a.Runtime(), Model: h.a.Model().Info, File: h.a.File()}
	for _, w := range first.Runtime.Warnings() {
		fmt.Fprintf(sys.Stderr, "gopi: warning: %s\n", w)
	}
	term, err := openTerminal(sys, filepath.Join(h.s.cfg.Home(), "chat_history"))
	if err != nil {
		return err
	}
	defer term.Close()
	stop := context.AfterFunc(ctx, term.Interrupt)
	defer stop()
	chat := mode.NewChat(term, term.Out(), first, mode.ChatDeps{Open: h.open, Expand: h.cat.Expand, Tree: h.tree},
		mode.ChatOptions{Color: !o.noColor && sys.getenv("NO_COLOR") == "", Width: term.Width, Thinking: h.a.Thinking(), Now: sys.Now,
			First: h.words, FirstFiles: h.files, FirstImages: h.images, Sandbox: sandboxBanner(h.s.guard.Policy(), sys.getenv("HOME"))})
	err = chat.Run(ctx)
	if ctx.Err() != nil {
		return &reported{code: ExitInterrupted}
	}
	return err
}

// chatHost builds the chat's Runtimes: the first from the flags, later
// ones for /leaf, /model, /thinking and /new on the same settings.
type chatHost struct {
	sys *System
	s   *runSettings
	o   *chatOptions
	cat *resources.Catalog
	a   *assemble.Assembly
	// the first prompt: its words, the text of its @file arguments, their images
	words, files string
	images       []ai.Content
}

// newChatHost builds the first Runtime as gopi run does.
func newChatHost(ctx context.Context, sys *System, c *cobra.Command, o *chatOptions) (*chatHost, error) {
	s, err := readSettings(sys, c, &o.runOptions)
	if err != nil {
		return nil, err
	}
	s.mcp.servers = append(s.mcp.servers, o.moreMCP...)
	ms, err := s.cfg.Model(o.apiKey)
	if err != nil {
		return nil, err
	}
	cat, err := loadResources(sys, s, &o.runOptions)
	if err != nil {
		return nil, err
	}
	// As in run: a new session's model is chosen before anything touches
	// the disk; a resumed one falls back to the model it last used.
	set := s.assembly(&o.runOptions, ms, cat.SystemPrompt(), nil)
	if set.Subagents, set.Tools, err = s.cfg.Subagents(cat, set.Tools, o.excludeTools); err != nil {
		return nil, err
	}
	if len(set.Tools) != len(s.tools) { // defined agents offer task: the prompt says so
		set.SystemPrompt = cat.SystemPromptFor(set.Tools)
	}
	// As pi's chat and rpc: --session on a session with entries continues
	// from its newest one (gopi run asks for --leaf or -c).
	set.Session.Newest = true
	set.ClampThinking = true
	set.Session.LockWait = o.lockWait
	set.MoreTools = mcpTools(ctx, sys, s)
	a, err := assemble.New(set, sys.env())
	if err != nil {
		return nil, err
	}
	h := &chatHost{sys: sys, s: s, o: o, cat: cat, a: a}
	// A missing @file is a usage error before any session is written.
	if h.words, h.files, h.images, err = chatFirst(sys, s, o.args, a.Secrets()); err != nil {
		return nil, err
	}
	if err := a.Open(); err != nil {
		h.close()
		return nil, err
	}
	tracePrompts(sys, s.telemetry, a, a.Runtime()) // telemetry.go
	return h, nil
}

// close releases the session store (and its lock).
func (h *chatHost) close() {
	killGroups(h.sys, h.s.groups)
	h.s.guard.Close() // the sandbox's helper
	finishRunDir(h.s.spillDir, h.a.SpillKept(), h.sys.Now())
	h.a.Close()
}

// open builds a Runtime for w. The store stays open and locked; a new
// session replaces it only once its Runtime is built.
func (h *chatHost) open(w mode.Want) (mode.Opened, error) {
	want := assemble.Want{Leaf: w.Leaf, Thinking: w.Thinking, NewSession: w.NewSession, Parent: w.Parent}
	if w.Model != "" {
		choice, err := h.chooseModel(w.Model)
		if err != nil {
			return mode.Opened{}, err
		}
		want.Model = &choice
	}
	rt, err := h.a.Reopen(want)
	if err != nil {
		return mode.Opened{}, err
	}
	tracePrompts(h.sys, h.s.telemetry, h.a, rt) // telemetry.go
	return mode.Opened{Runtime: rt, Model: h.a.Model().Info, File: h.a.File(), Thinking: h.a.Thinking()}, nil
}

// chooseModel resolves "provider/id" against the settings, as --model
// does; the settings are not changed.
func (h *chatHost) chooseModel(ref string) (assemble.Choice, error) {
	prov, id, _ := strings.Cut(ref, "/")
	if prov == "" || id == "" {
		return assemble.Choice{}, usageErr("/model %q: give provider/id, e.g. anthropic/claude-sonnet-4-5 (gopi models lists them)", ref)
	}
	id, _, err := h.s.cfg.CutThinking(id, h.s.cfg.DeclaredProviders())
	if err != nil {
		return assemble.Choice{}, err
	}
	choice, err := h.a.ChooseModel(prov, id)
	if err != nil {
		return assemble.Choice{}, err
	}
	if choice.Note != "" {
		fmt.Fprintln(h.sys.Stderr, choice.Note)
	}
	return choice, nil
}

// tree draws the store's entries as gopi session tree does.
func (h *chatHost) tree(w io.Writer, store session.Store) error {
	f := &session.File{Path: h.a.File(), Header: store.Header(), Entries: store.Entries()}
	if len(f.Entries) == 0 {
		_, err := fmt.Fprintln(w, "(no entries yet)")
		return err
	}
	return drawTree(w, f, buildTree(f.Entries))
}
