package assemble

import (
	"fmt"
	"slices"
	"sort"

	"gopi/pkg/ai"
	"gopi/pkg/ai/catalog"
	"gopi/pkg/session"
)

// Candidate is a value offered for a flag in shell completion, with what
// the shell shows beside it (the one type of session's candidates too).
type Candidate = session.Candidate

// builtinProviders are the providers gopi knows without settings.
var builtinProviders = []Candidate{
	{Value: "anthropic", Description: "Anthropic Messages API (ANTHROPIC_API_KEY)"},
	{Value: "openai", Description: "OpenAI Chat Completions API (OPENAI_API_KEY)"},
	{Value: "faux", Description: "the scripted offline model"},
}

// ProviderCandidates offers the built-in providers, then those declared
// (in settings) under other names, in name order.
func ProviderCandidates(declared map[string]Provider) []Candidate {
	out := slices.Clone(builtinProviders)
	names := make([]string, 0, len(declared))
	for name := range declared {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !slices.Contains([]string{"anthropic", "openai", "faux"}, name) {
			out = append(out, Candidate{Value: name, Description: "declared in settings (" + declared[name].API + " API)"})
		}
	}
	return out
}

// ModelCandidates offers provider/id for every model of the catalog and
// of the declared providers, or with provider the ids of its models
// alone, each described by its name and context window: the catalog's
// in its order, then the declared providers' in the order of their
// names, each provider's models as declared. One declared under a
// built-in provider's name takes the catalog's place.
func ModelCandidates(declared map[string]Provider, provider string) []Candidate {
	models := slices.Clone(catalog.All())
	names := make([]string, 0, len(declared))
	for name := range declared {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, m := range declared[name].Models {
			m.Provider = name
			models = slices.DeleteFunc(models, func(o ai.Info) bool { return o.Provider == name && o.ID == m.ID })
			models = append(models, m)
		}
	}
	var out []Candidate
	for _, m := range models {
		switch {
		case provider == "":
			out = append(out, Candidate{Value: m.Provider + "/" + m.ID, Description: modelDescription(m)})
		case m.Provider == provider:
			out = append(out, Candidate{Value: m.ID, Description: modelDescription(m)})
		}
	}
	return out
}

// modelDescription is a model's name and context window, e.g.
// "Claude Sonnet 4.6 · 200k context", "1M context".
func modelDescription(m ai.Info) string {
	d := m.Name
	if m.ContextWindow > 0 {
		if d != "" {
			d += " · "
		}
		if m.ContextWindow >= 1_000_000 {
			d += fmt.Sprintf("%gM context", float64(m.ContextWindow)/1e6)
		} else {
			d += fmt.Sprintf("%dk context", m.ContextWindow/1000)
		}
	}
	return d
}
