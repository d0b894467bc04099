package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"gopi/pkg/ai"
)

// Registry is the set of tools offered to the model, bound to one Env.
type Registry struct {
	env     Env
	tools   []Tool
	byName  map[string]Tool
	schemas map[string]*schema

	// sources' tools, taken in by Specs (dynamic.go).
	mu      sync.RWMutex
	sources []Source
	dyn     []Tool
	dynBy   map[string]Tool
}

// NewRegistry compiles the tools' schemas. Two tools with one name, or a
// schema that does not compile, is an error.
func NewRegistry(env Env, tools ...Tool) (*Registry, error) {
	r := &Registry{env: env, byName: map[string]Tool{}, schemas: map[string]*schema{}}
	for _, t := range tools {
		spec := t.Spec()
		if _, dup := r.byName[spec.Name]; dup {
			return nil, fmt.Errorf("tool %q registered twice", spec.Name)
		}
		sch, err := compileToolSchema(spec)
		if err != nil {
			return nil, err
		}
		r.tools = append(r.tools, t)
		r.byName[spec.Name] = t
		r.schemas[spec.Name] = sch
	}
	return r, nil
}

func compileToolSchema(spec ai.ToolSpec) (*schema, error) {
	params := spec.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object"}`)
	}
	sch, err := compileSchema(params)
	if err != nil {
		return nil, fmt.Errorf("tool %s: parameters schema: %w", spec.Name, err)
	}
	return sch, nil
}

// Env returns the registry's environment.
func (r *Registry) Env() Env { return r.env }

// Secrets returns what the loop scrubs from this registry's results.
func (r *Registry) Secrets() *Secrets { return r.env.Secrets }

// Specs returns the tools' descriptions in registration order.
// A source's tools follow the registry's own, read from the sources now.
func (r *Registry) Specs() []ai.ToolSpec {
	r.refresh()
	specs := make([]ai.ToolSpec, len(r.tools))
	for i, t := range r.tools {
		specs[i] = t.Spec()
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, t := range r.dyn {
		specs = append(specs, t.Spec())
	}
	return specs
}

// Names returns the tools' names in registration order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Spec().Name
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, t := range r.dyn {
		names = append(names, t.Spec().Name)
	}
	return names
}

// Execute runs one tool call and always returns a result: an unknown tool,
// arguments that fail the schema, a tool error and a panic all become error
// results that say what went wrong. update receives partial results; it
// may be nil.
func (r *Registry) Execute(ctx context.Context, call ai.Content, update func(Result)) (res Result) {
	t, ok := r.lookup(call.Name)
	if !ok {
		names := r.Names()
		slices.Sort(names)
		return ErrorResult(fmt.Sprintf("Tool %q not found. Available tools: %s.", call.Name, strings.Join(names, ", ")))
	}
	args := call.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if msg := r.validate(t, call.Name, args); msg != "" {
		return ErrorResult(msg)
	}
	if update == nil {
		update = func(Result) {}
	}
	defer func() {
		if p := recover(); p != nil {
			res = ErrorResult(fmt.Sprintf("Tool %s crashed: %v\n%s", call.Name, p, firstLines(string(debug.Stack()), 12)))
		}
	}()
	env := r.env
	if err := permit(t, &env, call.Name, args); err != nil {
		return ErrorResult(err.Error())
	}
	out, err := t.Run(ctx, Call{ID: call.ID, Name: call.Name, Args: args, Env: &env, Update: update})
	if err != nil {
		if len(out.Content) == 0 {
			out.Content = []ai.Content{ai.TextContent(err.Error())}
		}
		out.IsError = true
	}
	return out
}

// maxArgsPreview bounds how much of invalid arguments is echoed back.
const maxArgsPreview = 500

func (r *Registry) validate(t Tool, name string, args json.RawMessage) string {
	var raw map[string]json.RawMessage
	if json.Unmarshal(args, &raw) == nil && len(raw) == 1 {
		if v, bad := raw[ai.InvalidArgumentsKey]; bad {
			var text string
			_ = json.Unmarshal(v, &text)
			return fmt.Sprintf("Invalid arguments for tool %s: not a JSON object.\nReceived: %s", name, preview(text))
		}
	}
	var err error
	if v, ok := t.(Validator); ok {
		err = v.Validate(args)
	} else if sch := r.schemas[name]; sch != nil {
		err = sch.validateJSON(args)
	}
	if err == nil {
		return ""
	}
	return fmt.Sprintf("Invalid arguments for tool %s: %s\nReceived: %s", name, preview(strings.TrimSpace(err.Error())), preview(string(args)))
}

func preview(s string) string {
	if len(s) <= maxArgsPreview {
		return s
	}
	cut := maxArgsPreview
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(s))
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
