package settings

import (
	"strings"

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
	customs := assemble.Providers{}
	if err := s.Decode("providers", &customs); err != nil {
		return assemble.ModelSettings{}, err
	}
	if err := assemble.CheckBaseURL(s.String("baseUrl"), s.Origin("baseUrl")); err != nil {
		return assemble.ModelSettings{}, err
	}
	prov, id := splitModel(s, customs)
	id, level, err := assemble.CutThinking(s.Origin("model"), id, customs)
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

// DeclaredProviders are the providers settings declare, by name (none
// when their shape is wrong: the run says so).
func (s *Settings) DeclaredProviders() map[string]assemble.Provider {
	customs := assemble.Providers{}
	if s != nil {
		_ = s.Decode("providers", &customs)
	}
	return customs
}
