package tools

import "encoding/json"

// Source supplies tools that may change while the registry is in use (an
// MCP server's). The registry reads them when Specs is called, that is
// before each model request, so one request's tools and the calls its
// answer makes see the same set.
type Source interface {
	Tools() []Tool
}

// Validator is a tool that checks its own arguments (against a schema the
// registry's subset does not read); the registry then calls it instead
// of its own check. A source's tool that is not one is not checked.
type Validator interface {
	Validate(args json.RawMessage) error
}

// AddSource adds the tools of s after the registry's own. A source's tool
// whose name another tool has is left out.
func (r *Registry) AddSource(s Source) {
	r.mu.Lock()
	r.sources = append(r.sources, s)
	r.mu.Unlock()
	r.refresh()
}

// refresh reads the sources' tools.
func (r *Registry) refresh() {
	r.mu.RLock()
	sources := r.sources
	r.mu.RUnlock()
	if len(sources) == 0 {
		return
	}
	var dyn []Tool
	by := map[string]Tool{}
	for _, s := range sources {
		for _, t := range s.Tools() {
			name := t.Spec().Name
			if _, own := r.byName[name]; own {
				continue
			}
			if _, dup := by[name]; dup {
				continue
			}
			by[name] = t
			dyn = append(dyn, t)
		}
	}
	r.mu.Lock()
	r.dyn, r.dynBy = dyn, by
	r.mu.Unlock()
}

// lookup finds a tool by name: the registry's own, then the sources'
// as last read.
func (r *Registry) lookup(name string) (Tool, bool) {
	if t, ok := r.byName[name]; ok {
		return t, true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.dynBy[name]
	return t, ok
}
