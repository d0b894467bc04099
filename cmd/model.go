package cmd

import (
	"strings"

	"gopi/pkg/assemble"
)

// customProvider is a provider declared in settings ("providers").
type customProvider = assemble.Provider

// splitModel accepts "provider/id" in --model. The prefix names the
// provider when no provider is set, when it is the one set, or when it is
// a provider gopi knows (built-in or declared) and the model was given
// closer to the run than the provider (--model over GOPI_PROVIDER or
// settings; GOPI_MODEL over settings). Otherwise the id is kept whole, as
// a router's "openai/gpt-4o" under its own provider needs.
func splitModel(c *settings, customs map[string]customProvider) (string, string) {
	prov, model := c.str("provider"), c.str("model")
	p, id, ok := strings.Cut(model, "/")
	if !ok || p == "" || strings.ContainsAny(p, ".\\") {
		return prov, model
	}
	_, declared := customs[p]
	known := declared || p == "anthropic" || p == "openai" || p == "faux"
	if prov == "" || prov == p || (known && c.rank("model") > c.rank("provider")) {
		return p, id
	}
	return prov, model
}

// modelSettings resolves provider and model from flags, environment and
// settings: "provider/id" split, an "id:level" cut, declared providers,
// retry and quirks read and checked. It chooses nothing yet: a resumed
// session's model is the fallback assemble applies.
func modelSettings(c *settings, apiKey string) (assemble.ModelSettings, error) {
	customs := map[string]customProvider{}
	if err := c.decode("providers", &customs); err != nil {
		return assemble.ModelSettings{}, err
	}
	if err := assemble.CheckBaseURL(c.str("baseUrl"), c.origin("baseUrl")); err != nil {
		return assemble.ModelSettings{}, err
	}
	prov, id := splitModel(c, customs)
	id, level, err := cutThinking(c, id, customs)
	if err != nil {
		return assemble.ModelSettings{}, err
	}
	var retry assemble.Retry
	if err := c.decode("retry", &retry); err != nil {
		return assemble.ModelSettings{}, err
	}
	if err := retry.Check(c.origin("retry")); err != nil {
		return assemble.ModelSettings{}, err
	}
	if err := c.decode("quirks", &retry.Quirks); err != nil {
		return assemble.ModelSettings{}, err
	}
	return assemble.ModelSettings{Provider: prov, ID: id, Thinking: level, APIKey: apiKey, BaseURL: c.str("baseUrl"),
		Providers: customs, Retry: retry}, nil
}
