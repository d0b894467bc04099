package runtime

import (
	"context"
	"iter"

	"gopi/internal/pijson"
	"gopi/pkg/agent"
	"gopi/pkg/ai"
)

// inUse is the model a Runtime sends its requests to and the thinking
// level they ask for: Deps.Model and Config's at first, another after
// SetModel or SetThinking. Each request reads it as it is sent, so a
// switch during a run reaches the run's next request, as pi's does.
type inUse struct {
	model    ai.Model
	info     ai.Info
	thinking ai.ThinkingLevel
	// runLevel is the level the run going on was started with: its
	// answers are marked with the level in use when it differs.
	runLevel ai.ThinkingLevel
}

// using returns the model in use, its description and thinking level.
func (r *Runtime) using() inUse {
	r.useMu.Lock()
	defer r.useMu.Unlock()
	return r.use
}

// info describes the model in use.
func (r *Runtime) info() ai.Info { return r.using().info }

// Model describes the model the next request goes to.
func (r *Runtime) Model() ai.Info { return r.info() }

// Thinking is the thinking level the next request asks for.
func (r *Runtime) Thinking() ai.ThinkingLevel { return r.using().thinking }

// current is the model in use as an ai.Model: each request goes to the
// one in use when it is sent.
type current struct{ r *Runtime }

func (c current) Stream(ctx context.Context, req *ai.Request) iter.Seq[ai.Event] {
	return c.r.using().model.Stream(ctx, req)
}

// SetModel makes m, described by info, the model of every request from
// the next one on, also the next one of a run going on (pi's set_model
// during a run), and level the thinking level ("" keeps it). The
// model_change and thinking_level_change entries the path then lacks
// are written at once under the current leaf, as pi writes them, and
// are in the store when it returns; the run's next entry follows them.
func (r *Runtime) SetModel(m ai.Model, info ai.Info, level ai.ThinkingLevel) error {
	if m == nil {
		return r.SetThinking(level)
	}
	if r.member != nil {
		m = r.member.counted(m)
	}
	return r.set(func(u *inUse) {
		u.model, u.info = m, info
		if level != "" {
			u.thinking = level
		}
	})
}

// SetThinking makes level the thinking level of every request from the
// next one on, as SetModel does the model.
func (r *Runtime) SetThinking(level ai.ThinkingLevel) error {
	return r.set(func(u *inUse) {
		if level != "" {
			u.thinking = level
		}
	})
}

// set changes what is in use, for the next run's loop too, and records
// it.
func (r *Runtime) set(change func(*inUse)) error {
	r.mu.Lock()
	disposed := r.disposed
	r.mu.Unlock()
	if disposed {
		return ErrDisposed
	}
	r.useMu.Lock()
	change(&r.use)
	level := r.use.thinking
	r.useMu.Unlock()
	r.agent.Configure(func(o *agent.Options) { o.Thinking = level })
	return r.recordSettings()
}

// startRun notes the level a run starts with.
func (r *Runtime) startRun() {
	r.useMu.Lock()
	defer r.useMu.Unlock()
	r.use.runLevel = r.use.thinking
}

// marked is an answer's final message marked with the thinking level
// its request asked for, when a switch during the run made it other
// than the run's (the loop marks the run's own).
func marked(e ai.Event, u inUse) ai.Event {
	if !e.Terminal() || e.Message == nil || u.thinking == u.runLevel || e.Message.Extra["thinkingLevel"] != nil {
		return e
	}
	m := e.Message.Clone()
	level := u.thinking
	if level == "" {
		level = ai.ThinkingOff
	}
	pijson.AddExtra(&m.Extra, "thinkingLevel", pijson.AppendString(nil, string(level)))
	e.Message = &m
	return e
}
