// Package catalog describes the models gopi knows: context window, output
// limit, prices and reasoning, per provider, with each provider's API,
// base URL and default model. The data is catalog.json, embedded; edit it
// to update prices or add models.
//
// Any model id is accepted for a known provider (local and compatible
// servers name their own models): Resolve then returns default limits
// (128k context, 16k output, price 0) and reports the id as unknown so the
// caller can say so. Every value returned is a copy.
//
// The binary carries the catalog as Go data (builtin.go, generated from
// catalog.json by `go generate`), so that no run spends its start-up
// parsing JSON; the tests fail while builtin.go and catalog.json differ.
package catalog

//go:generate go run gen.go

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"gopi/pkg/ai"
)

// Limits given to a model the catalog does not know.
const (
	DefaultContextWindow   = 128000
	DefaultMaxOutputTokens = 16384
)

// Provider describes a model provider.
type Provider struct {
	Name string `json:"name"`
	API  string `json:"api"` // the API of its models, unless a model names another
	// APIs are the other APIs some of its models are served by only (the
	// Responses API for OpenAI's codex and -pro models); such a model's
	// api says which.
	APIs         []string `json:"apis,omitempty"`
	BaseURL      string   `json:"baseUrl"`
	DefaultModel string   `json:"defaultModel"`
}

// Catalog is a set of providers and model descriptions.
type Catalog struct {
	providers []Provider
	models    []ai.Info
}

// Parse reads a catalog in catalog.json's format and checks it: every
// model names a known provider and has positive limits, ids are unique per
// provider, and every default model exists.
func Parse(data []byte) (*Catalog, error) {
	var doc struct {
		Providers []Provider `json:"providers"`
		Models    []ai.Info  `json:"models"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("model catalog: %w", err)
	}
	c := &Catalog{providers: doc.Providers, models: doc.Models}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("model catalog: %w", err)
	}
	return c, nil
}

func (c *Catalog) check() error {
	seen := map[[2]string]bool{}
	for _, m := range c.models {
		p, ok := c.Provider(m.Provider)
		switch {
		case !ok:
			return fmt.Errorf("model %s: unknown provider %q", m.ID, m.Provider)
		case m.API != p.API && !slices.Contains(p.APIs, m.API):
			return fmt.Errorf("model %s: api %q, provider %s uses %q", m.ID, m.API, p.Name, strings.Join(append([]string{p.API}, p.APIs...), `", "`))
		case m.ContextWindow <= 0 || m.MaxOutputTokens <= 0:
			return fmt.Errorf("model %s/%s: limits must be positive", m.Provider, m.ID)
		case seen[[2]string{m.Provider, m.ID}]:
			return fmt.Errorf("model %s/%s listed twice", m.Provider, m.ID)
		}
		seen[[2]string{m.Provider, m.ID}] = true
	}
	for _, p := range c.providers {
		if _, ok := c.Lookup(p.Name, p.DefaultModel); !ok {
			return fmt.Errorf("provider %s: default model %q is not listed", p.Name, p.DefaultModel)
		}
	}
	return nil
}

// builtin is the catalog of builtin.go; the tests check it as Parse
// checks a catalog, and that it is catalog.json's.
var builtin = &Catalog{providers: builtinProviders, models: builtinModels}

// Builtin returns the built-in catalog.
func Builtin() *Catalog { return builtin }

// All returns every model, in catalog order.
func (c *Catalog) All() []ai.Info { return slices.Clone(c.models) }

// ForProvider returns the models of one provider, in catalog order.
func (c *Catalog) ForProvider(provider string) []ai.Info {
	var out []ai.Info
	for _, m := range c.models {
		if m.Provider == provider {
			out = append(out, m)
		}
	}
	return out
}

// Lookup returns the description of a listed model.
func (c *Catalog) Lookup(provider, id string) (ai.Info, bool) {
	for _, m := range c.models {
		if m.Provider == provider && m.ID == id {
			return m, true
		}
	}
	return ai.Info{}, false
}

// Providers returns the known providers.
func (c *Catalog) Providers() []Provider {
	out := slices.Clone(c.providers)
	for i := range out {
		out[i].APIs = slices.Clone(out[i].APIs)
	}
	return out
}

// Provider returns a known provider by name.
func (c *Catalog) Provider(name string) (Provider, bool) {
	for _, p := range c.providers {
		if p.Name == name {
			p.APIs = slices.Clone(p.APIs)
			return p, true
		}
	}
	return Provider{}, false
}

// Default returns the provider's default model.
func (c *Catalog) Default(provider string) (ai.Info, bool) {
	p, ok := c.Provider(provider)
	if !ok {
		return ai.Info{}, false
	}
	return c.Lookup(p.Name, p.DefaultModel)
}

// Resolve describes any model id of a provider: a listed model as listed,
// any other with default limits, no prices and known false. The API is
// the provider's when the provider is known, empty otherwise.
func (c *Catalog) Resolve(provider, id string) (info ai.Info, known bool) {
	if m, ok := c.Lookup(provider, id); ok {
		return m, true
	}
	p, _ := c.Provider(provider)
	return ai.Info{
		ID: id, Name: id, Provider: provider, API: p.API,
		ContextWindow: DefaultContextWindow, MaxOutputTokens: DefaultMaxOutputTokens,
	}, false
}

// All returns every built-in model.
func All() []ai.Info { return Builtin().All() }

// ForProvider returns the built-in models of one provider.
func ForProvider(provider string) []ai.Info { return Builtin().ForProvider(provider) }

// Lookup returns the built-in description of a model.
func Lookup(provider, id string) (ai.Info, bool) { return Builtin().Lookup(provider, id) }

// Resolve describes any model id of a provider; see Catalog.Resolve.
func Resolve(provider, id string) (ai.Info, bool) { return Builtin().Resolve(provider, id) }

// Default returns a built-in provider's default model.
func Default(provider string) (ai.Info, bool) { return Builtin().Default(provider) }
