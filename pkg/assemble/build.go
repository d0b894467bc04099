package assemble

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/extension"
	"gopi/pkg/runtime"
	"gopi/pkg/session"
	"gopi/pkg/tools"
)

// clamp is the thinking level a Runtime of choice runs with: with
// Settings.ClampThinking, off for a model without reasoning, as pi
// clamps it (and records it).
func (a *Assembly) clamp(choice Choice, thinking ai.ThinkingLevel) ai.ThinkingLevel {
	if a.s.ClampThinking && !choice.Info.Reasoning && thinking != "" {
		return ai.ThinkingOff
	}
	return thinking
}

func (a *Assembly) resumedModel() session.ModelState {
	if a.leaf == "" {
		return session.ModelState{}
	}
	return session.ModelStateAt(a.store.Entries(), a.leaf)
}

// settle applies what the chosen model says about the run before it
// starts: the thinking level of "id:level" (a thinking level given as a
// flag wins, as in pi), the "not in the catalog" note (once per provider
// and model, see noteShown), and a word when thinking was asked of a
// model that has none.
func (a *Assembly) settle() {
	ch := a.choice
	if ch.Thinking != "" && !a.s.ThinkingExplicit {
		a.thinking = ch.Thinking
	}
	if ch.Note != "" {
		key := ch.Info.Provider + "/" + ch.Info.ID
		if a.s.Bare || !noteShown(a.s.Home, key) {
			fmt.Fprintln(a.env.Stderr, ch.Note)
		}
	}
	if a.thinking == "" || a.thinking == ai.ThinkingOff || ch.Info.Reasoning {
		return
	}
	from := "--thinking " + string(a.thinking)
	if ch.Thinking != "" && a.thinking == ch.Thinking {
		from = "the :" + string(a.thinking) + " of --model"
	}
	switch {
	case ch.Known:
		fmt.Fprintf(a.env.Stderr, "gopi: model %s does not support thinking; %s is ignored\n", ch.Info.ID, from)
	case ch.Info.Provider != "faux":
		// A model gopi does not know gets no thinking sent: say so, and
		// how to declare that it thinks.
		fmt.Fprintf(a.env.Stderr, "gopi: model %s is unknown, so %s is not sent: declare it with \"reasoning\": true under providers.%s.models in settings to send it\n",
			ch.Info.ID, from, ch.Info.Provider)
	}
}

// build assembles tools, hooks and a Runtime on store.
func (a *Assembly) build(choice Choice, thinking ai.ThinkingLevel, store session.Store, leaf, name string) (*runtime.Runtime, *tools.Changes, error) {
	s := &a.s
	changes := &tools.Changes{}
	if a.parent.changes != nil {
		changes = a.parent.changes // a child's changes are its parent's run's
	}
	env := a.toolEnv(choice, changes)
	live := &liveModel{chosen: choice.Info}
	env.Model = live.info
	reg, err := a.registry(env, store)
	if err != nil {
		return nil, nil, err
	}
	ext, err := a.hooks(env, store)
	if err != nil {
		return nil, nil, err
	}
	if s.Limits.USD > 0 && choice.Info.Prices == (ai.Prices{}) {
		return nil, nil, Usagef("%s: model %s/%s has no prices, so its spending cannot be counted in dollars: declare its prices under \"providers\" in settings, or use --max-budget-tokens",
			s.origin("maxBudgetUsd"), choice.Info.Provider, choice.Info.ID)
	}
	compactor, compactInfo, err := a.compactionModel(choice)
	if err != nil {
		return nil, nil, err
	}
	compaction := a.Compaction()
	compaction.Model = compactInfo
	rt, err := runtime.New(runtime.Config{
		ActiveLeaf: session.Ref(leaf), SystemPrompt: s.SystemPrompt, MaxSteps: s.MaxSteps, MaxTokens: s.MaxTokens,
		Thinking: thinking, Model: choice.Info, Compaction: compaction, Limits: s.Limits, OutputSchema: s.OutputSchema, SessionName: name,
	}, runtime.Deps{Model: choice.Model, CompactionModel: compactor, Tools: reg, Session: store, Extensions: ext, Secrets: env.Secrets, Now: a.env.Now, Stopwatch: stopwatch,
		Tree: a.parent.tree, TreeChild: a.parent.depth > 0})
	if err != nil {
		return nil, nil, Usagef("%v", err)
	}
	live.rt.Store(rt)
	return rt, changes, nil
}

// liveModel is the model in use as the tools ask for it when they run
// (tools.Env.Model): the Runtime's, which a switch during a run changes.
// The Runtime is made after its tools, before any call can run; until
// then it is the model chosen.
type liveModel struct {
	rt     atomic.Pointer[runtime.Runtime]
	chosen ai.Info
}

func (l *liveModel) info() ai.Info {
	if rt := l.rt.Load(); rt != nil {
		return rt.Model()
	}
	return l.chosen
}

// toolEnv is what the tools of a Runtime of choice run with: the
// environment without credentials, the spill folder, the process
// groups and the guard.
func (a *Assembly) toolEnv(choice Choice, changes *tools.Changes) tools.Env {
	s := &a.s
	return tools.Env{Cwd: s.Cwd, Environ: ScrubEnv(a.env.Environ, SecretNames(s.Model.Providers), choice.Key), TempDir: a.held.spill, Changes: changes,
		Secrets: toolSecrets(a.env, s, choice.Key), Groups: a.held.groups, Guard: a.held.guard}
}

// registry holds the built-in tools asked for, the custom ones, the task
// tool and the MCP servers' tools.
func (a *Assembly) registry(env tools.Env, store session.Store) (*tools.Registry, error) {
	s := &a.s
	var builtin []string
	for _, n := range s.Tools {
		if slices.Contains(tools.AllNames, n) {
			builtin = append(builtin, n)
		}
	}
	builtins, err := tools.Builtins(tools.Options{}, builtin...)
	if err != nil {
		return nil, Usagef("%v", err)
	}
	if len(builtin) == 0 {
		builtins = nil
	}
	all := append(builtins, s.Custom...)
	if task := a.taskTool(store); task != nil {
		all = append(all, task)
		if a.parent.tree == nil {
			a.parent.tree = runtime.NewTree()
		}
	}
	reg, err := tools.NewRegistry(env, all...)
	if err != nil {
		return nil, err
	}
	if err := a.addMCP(env.Environ, reg); err != nil {
		return nil, err
	}
	return reg, nil
}

// hooks are the settings' command hooks around tool calls; nil without
// any.
func (a *Assembly) hooks(env tools.Env, store session.Store) (runtime.Extensions, error) {
	s := &a.s
	hooks := s.Hooks
	if len(hooks.BeforeTool)+len(hooks.AfterTool) == 0 {
		return nil, nil
	}
	host := extension.NewHost(extension.Options{Report: func(d extension.Diagnostic) { fmt.Fprintf(a.env.Stderr, "gopi: hook: %s\n", d) }, Secrets: env.Secrets})
	id := store.Header().ID
	if err := host.AddCommandHooks(hooks, extension.CommandEnv{Cwd: s.Cwd, Environ: env.Environ, SessionID: func() string { return id }, Source: "settings", Secrets: env.Secrets}); err != nil {
		return nil, Usagef("hooks: %v", err)
	}
	return host, nil
}

// stopwatch measures with the monotonic clock: durationMs in the session.
func stopwatch() func() time.Duration {
	t0 := time.Now()
	return func() time.Duration { return time.Since(t0) }
}
