package settings

import (
	"slices"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/ai/catalog"
	"gopi/pkg/assemble"
)

// splitModel accepts "provider/id" in --model. The prefix names the
// provider when no provider is set, when it is the one set, or when it is
// a provider gopi knows (built-in or declared) and the model was given
// closer to the run than the provider (--model over GOPI_PROVIDER or
// settings; GOPI_MODEL over settings). Otherwise the id is kept whole, as
// a router's "openai/gpt-4o" under its own provider needs.
func splitModel(s *Settings, customs map[string]assemble.Provider) (string, string) {
	prov, model := s.String("provider"), s.String("model")
	p, id, ok := strings.Cut(model, "/")
	if !ok || p == "" || strings.ContainsAny(p, ".\\") {
		return prov, model
	}
	_, declared := customs[p]
	known := declared || p == "anthropic" || p == "openai" || p == "faux"
	if prov == "" || prov == p || (known && s.Rank("model") > s.Rank("provider")) {
		return p, id
	}
	return prov, model
}

// Model resolves provider and model from flags, environment and
// settings: "provider/id" split, an "id:level" cut, declared providers,
// retry and quirks read and checked. It chooses nothing yet: a resumed
// session's model is the fallback assemble applies.
func (s *Settings) Model(apiKey string) (assemble.ModelSettings, error) {
	customs := map[string]assemble.Provider{}
	if err := s.Decode("providers", &customs); err != nil {
		return assemble.ModelSettings{}, err
	}
	if err := assemble.CheckBaseURL(s.String("baseUrl"), s.Origin("baseUrl")); err != nil {
		return assemble.ModelSettings{}, err
	}
	prov, id := splitModel(s, customs)
	id, level, err := s.CutThinking(id, customs)
	if err != nil {
		return assemble.ModelSettings{}, err
	}
	var retry assemble.Retry
	if err := s.Decode("retry", &retry); err != nil {
		return assemble.ModelSettings{}, err
	}
	if err := retry.Check(s.Origin("retry")); err != nil {
		return assemble.ModelSettings{}, err
	}
	if err := s.Decode("quirks", &retry.Quirks); err != nil {
		return assemble.ModelSettings{}, err
	}
	return assemble.ModelSettings{Provider: prov, ID: id, Thinking: level, APIKey: apiKey, BaseURL: s.String("baseUrl"),
		Providers: customs, Retry: retry}, nil
}

// CutThinking takes a thinking level off the end of a model id, as pi's
// "sonnet:high" does. The id is cut at its last colon when what follows is
// a level. An id the catalog or settings know whole ("qwen3:8b" declared,
// or any tag after a model gopi does not know, as local servers name
// them) is kept whole; a known model followed by a word that is no level
// ("claude-sonnet-4-5:hgih") is a usage error naming the word.
func (s *Settings) CutThinking(id string, customs map[string]assemble.Provider) (string, ai.ThinkingLevel, error) {
	i := strings.LastIndexByte(id, ':')
	if i < 0 || knownID(id, customs) {
		return id, "", nil
	}
	base, suffix := id[:i], id[i+1:]
	if slices.Contains(ai.ThinkingLevels, ai.ThinkingLevel(suffix)) {
		return base, ai.ThinkingLevel(suffix), nil
	}
	if knownID(base, customs) {
		return "", "", assemble.Usagef("%s %q: unknown thinking level %q after the colon: use off, minimal, low, medium, high or xhigh",
			s.Origin("model"), id, suffix)
	}
	return id, "", nil
}

// knownID says whether a built-in catalog or a declared provider lists id.
func knownID(id string, customs map[string]assemble.Provider) bool {
	for _, p := range []string{"anthropic", "openai"} {
		if _, ok := catalog.Resolve(p, id); ok {
			return true
		}
	}
	for _, cp := range customs {
		if slices.ContainsFunc(cp.Models, func(m ai.Info) bool { return m.ID == id }) {
			return true
		}
	}
	return false
}

// DeclaredProviders are the providers settings declare, by name (none
// when their shape is wrong: the run says so).
func (s *Settings) DeclaredProviders() map[string]assemble.Provider {
	customs := map[string]assemble.Provider{}
	if s != nil {
		_ = s.Decode("providers", &customs)
	}
	return customs
}
