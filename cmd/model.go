package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gopi/pkg/ai"
	"gopi/pkg/ai/anthropic"
	"gopi/pkg/ai/catalog"
	"gopi/pkg/ai/faux"
	"gopi/pkg/ai/openai"
	"gopi/pkg/ai/responses"
	"gopi/pkg/session"
)

// customProvider is a provider declared in settings.json:
//
//	"providers": {"local": {"api": "openai", "baseUrl": "http://localhost:8080/v1",
//	  "apiKeyEnv": "LOCAL_KEY", "models": [{"id": "qwen", "contextWindow": 32768}]}}
type customProvider struct {
	API       string        `json:"api"` // "anthropic", "openai" or "openai-responses"
	BaseURL   string        `json:"baseUrl"`
	APIKeyEnv string        `json:"apiKeyEnv"`
	Models    []ai.Info     `json:"models"`
	Quirks    quirkSettings `json:"quirks"`
}

// quirkSettings override, field by field, the quirks an OpenAI-compatible
// server gets by default for its base URL ("quirks" at the top level of
// settings, or in a provider declared there).
type quirkSettings struct {
	MaxTokensField  *string `json:"maxTokensField"`  // "max_tokens" or "max_completion_tokens"
	SystemRole      *string `json:"systemRole"`      // "system" or "developer"
	ToolResultName  *bool   `json:"toolResultName"`  // name the tool in tool messages
	ReasoningEffort *bool   `json:"reasoningEffort"` // send reasoning_effort
	ThinkingAsText  *bool   `json:"thinkingAsText"`  // replay thinking as text
	NineCharToolIDs *bool   `json:"nineCharToolIds"` // tool call ids of nine letters and digits (Mistral)
	ResponseFormat  *bool   `json:"responseFormat"`  // send --output-schema as response_format json_schema
}

func (qs quirkSettings) apply(baseURL string) openai.Quirks {
	q := openai.DefaultQuirks(firstNonEmpty(baseURL, openai.DefaultBaseURL))
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	setb := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&q.MaxTokensField, qs.MaxTokensField)
	set(&q.SystemRole, qs.SystemRole)
	setb(&q.ToolResultName, qs.ToolResultName)
	setb(&q.ReasoningEffort, qs.ReasoningEffort)
	setb(&q.ThinkingAsText, qs.ThinkingAsText)
	setb(&q.NineCharToolIDs, qs.NineCharToolIDs)
	setb(&q.ResponseFormat, qs.ResponseFormat)
	return q
}

// retrySettings is the "retry" setting (see retry.go).
type retrySettings struct {
	MaxAttempts     int           `json:"maxAttempts"`
	BaseDelayMs     int64         `json:"baseDelayMs"`
	MaxDelayMs      int64         `json:"maxDelayMs"`
	MaxRetryAfterMs int64         `json:"maxRetryAfterMs"`
	MaxTotalMs      int64         `json:"maxTotalMs"`
	IdleTimeoutMs   int64         `json:"idleTimeoutMs"`
	quirks          quirkSettings // the top-level "quirks" setting
}

// modelChoice is the resolved model of a run.
type modelChoice struct {
	info  ai.Info
	model ai.Model
	note  string // said on stderr (an id the catalog does not know)
	key   string // the API key in use: never in a tool's environment
	known bool   // the catalog or settings describe the model
	// thinking is the level of a model given as "id:level".
	thinking ai.ThinkingLevel
}

var builtinKeyEnv = map[string]string{"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}

// splitModel accepts "provider/id" in --model. The prefix names the
// provider when no provider is set, when it is the one set, or when it is
// a provider gopi knows (built-in or declared) and the model was given
// closer to the run than the provider (--model over GOPI_PROVIDER or
// settings; GOPI_MODEL over settings). Otherwise the id is kept whole, as
// a router's "openai/gpt-4o" under its own provider needs.
func splitModel(c *config, customs map[string]customProvider) (string, string) {
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

// chooseModel resolves provider and model from flags, environment and
// settings, falling back to the model a resumed session last used, and
// builds the adapter. It sends nothing.
func chooseModel(sys *System, c *config, apiKeyFlag string, resumed session.Settings) (modelChoice, error) {
	customs := map[string]customProvider{}
	if err := c.decode("providers", &customs); err != nil {
		return modelChoice{}, err
	}
	prov, id := splitModel(c, customs)
	id, level, err := cutThinking(c, id, customs)
	if err != nil {
		return modelChoice{}, err
	}
	if prov == "" && resumed.Provider != "" && (id == "" || id == resumed.ModelID) {
		prov, id = resumed.Provider, resumed.ModelID
	}
	ch, err := pickModel(sys, c, prov, id, apiKeyFlag, customs)
	ch.thinking = level
	return ch, err
}

func pickModel(sys *System, c *config, prov, id, apiKeyFlag string, customs map[string]customProvider) (modelChoice, error) {
	if p := catalogProvider(id); prov == "" && p != "" && (apiKeyFlag != "" || sys.getenv(builtinKeyEnv[p]) != "") {
		prov = p // --model gpt-5.4 is OpenAI's when its key is there, whichever others are
	}
	if prov == "" {
		prov = inferProvider(sys)
		if prov == "" {
			return modelChoice{}, usageErr("no model provider: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --provider " +
				"(--provider faux runs offline with a scripted model)")
		}
	}
	var retry retrySettings
	if err := c.decode("retry", &retry); err != nil {
		return modelChoice{}, err
	}
	if err := retry.check(c.origin("retry")); err != nil {
		return modelChoice{}, err
	}
	if err := c.decode("quirks", &retry.quirks); err != nil {
		return modelChoice{}, err
	}
	switch {
	case prov == "faux":
		return fauxModel(id)
	case customs[prov].API != "":
		return customModel(sys, c, prov, id, customs[prov], apiKeyFlag, retry)
	case prov == "anthropic" || prov == "openai":
		return builtinModel(sys, c, prov, id, apiKeyFlag, retry)
	}
	known := []string{"anthropic", "openai", "faux"}
	for name := range customs {
		known = append(known, name)
	}
	sort.Strings(known[3:])
	return modelChoice{}, usageErr("unknown provider %q: use one of %s, or declare it under \"providers\" in settings.json", prov, strings.Join(known, ", "))
}

// checkKey refuses a key that cannot go in a request header (a line
// break or another control character, often a file read with its
// newline), naming where it came from and never showing it.
func checkKey(key, from string) error {
	if i := strings.IndexFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return usageErr("the API key in %s holds a control character (a line break?) at byte %d: set it without one", from, i)
	}
	return nil
}

// keySource names where a key came from: the flag, else the variable.
func keySource(keyFlag, env string) string {
	if keyFlag != "" {
		return "--api-key"
	}
	return env
}

// catalogProvider is the one built-in provider whose catalog lists id, or
// "" when none or several do. It picks the provider only when that
// provider's key is there: with one key and an OpenAI-compatible proxy,
// any model id goes to the proxy, as before.
func catalogProvider(id string) string {
	found := ""
	for _, p := range []string{"anthropic", "openai"} {
		if _, known := catalog.Resolve(p, id); known {
			if found != "" {
				return ""
			}
			found = p
		}
	}
	return found
}

func inferProvider(sys *System) string {
	for _, p := range []string{"anthropic", "openai"} {
		if sys.getenv(builtinKeyEnv[p]) != "" {
			return p
		}
	}
	return ""
}

func fauxModel(id string) (modelChoice, error) {
	info := faux.Info
	switch {
	case id == "" || id == faux.DemoName:
		info.ID = faux.DemoName
		return modelChoice{info: info, model: faux.Demo().WithInfo(info)}, nil
	}
	if _, err := os.Stat(id); err != nil {
		return modelChoice{}, usageErr("faux model %q: not %q and no such script file (%v)", id, faux.DemoName, err)
	}
	m, err := faux.Load(id)
	if err != nil {
		return modelChoice{}, usageErr("%v", err)
	}
	// The session records the script's absolute path, so that resuming it
	// (which reuses the recorded model) finds the script again.
	if info.ID, err = filepath.Abs(id); err != nil {
		return modelChoice{}, usageErr("faux model %q: %v", id, err)
	}
	return modelChoice{info: info, model: m.WithInfo(info)}, nil
}

func builtinModel(sys *System, c *config, prov, id, keyFlag string, retry retrySettings) (modelChoice, error) {
	p, _ := catalog.Builtin().Provider(prov)
	if id == "" {
		id = p.DefaultModel
	}
	info, known := catalog.Resolve(prov, id)
	ch := modelChoice{info: info, known: known}
	if !known {
		ch.note = fmt.Sprintf("gopi: model %q is not in the catalog of %s: using a %d-token context, %d output tokens and no prices",
			id, prov, info.ContextWindow, info.MaxOutputTokens)
	}
	baseURL := firstNonEmpty(c.str("baseUrl"), sys.getenv(strings.ToUpper(prov)+"_BASE_URL"))
	key := firstNonEmpty(keyFlag, sys.getenv(builtinKeyEnv[prov]))
	local := prov == "openai" && baseURL != "" && !strings.Contains(baseURL, "api.openai.com")
	if key == "" && !local {
		return modelChoice{}, usageErr("no API key for %s: set %s or pass --api-key", prov, builtinKeyEnv[prov])
	}
	if err := checkKey(key, keySource(keyFlag, builtinKeyEnv[prov])); err != nil {
		return modelChoice{}, err
	}
	api := prov
	if info.API == responses.API { // a model only the Responses API serves (codex, -pro)
		api = responses.API
	}
	ch.model, ch.key = adapter(info, api, key, baseURL, retry), key
	return ch, nil
}

func customModel(sys *System, c *config, name, id string, cp customProvider, keyFlag string, retry retrySettings) (modelChoice, error) {
	if cp.API != "anthropic" && cp.API != "openai" && cp.API != responses.API {
		return modelChoice{}, usageErr("provider %q in settings: api must be \"anthropic\", \"openai\" or \"openai-responses\", not %q", name, cp.API)
	}
	if id == "" && len(cp.Models) > 0 {
		id = cp.Models[0].ID
	}
	if id == "" {
		return modelChoice{}, usageErr("provider %q: name a model with --model", name)
	}
	info, known := catalog.Resolve(strings.TrimSuffix(cp.API, "-responses"), id)
	info.Provider, info.ID = name, id
	if i := slices.IndexFunc(cp.Models, func(m ai.Info) bool { return m.ID == id }); i >= 0 {
		known = true
		info = mergeInfo(info, cp.Models[i])
	}
	ch := modelChoice{info: info, known: known}
	if !known {
		ch.note = fmt.Sprintf("gopi: model %q is not declared for provider %s: using a %d-token context and no prices", id, name, info.ContextWindow)
	}
	key := keyFlag
	if key == "" && cp.APIKeyEnv != "" {
		key = sys.getenv(cp.APIKeyEnv)
		if key == "" {
			return modelChoice{}, usageErr("no API key for provider %s: set %s or pass --api-key", name, cp.APIKeyEnv)
		}
	}
	if err := checkKey(key, keySource(keyFlag, cp.APIKeyEnv)); err != nil {
		return modelChoice{}, err
	}
	retry.quirks = mergeQuirks(retry.quirks, cp.Quirks)
	ch.model, ch.key = adapter(info, cp.API, key, firstNonEmpty(c.str("baseUrl"), cp.BaseURL), retry), key
	return ch, nil
}

func mergeInfo(base, over ai.Info) ai.Info {
	if over.ContextWindow > 0 {
		base.ContextWindow = over.ContextWindow
	}
	if over.MaxOutputTokens > 0 {
		base.MaxOutputTokens = over.MaxOutputTokens
	}
	if over.Prices != (ai.Prices{}) {
		base.Prices = over.Prices
	}
	base.Reasoning = base.Reasoning || over.Reasoning
	if over.Name != "" {
		base.Name = over.Name
	}
	return base
}

func adapter(info ai.Info, api, key, baseURL string, r retrySettings) ai.Model {
	policy := r.policy()
	idle := ms(r.IdleTimeoutMs)
	if api == "anthropic" {
		info.API = "anthropic-messages"
		return anthropic.New(anthropic.Config{Info: info, APIKey: key, BaseURL: baseURL, Retry: policy, IdleTimeout: idle})
	}
	if api == responses.API {
		info.API = responses.API
		return responses.New(responses.Config{Info: info, APIKey: key, BaseURL: baseURL, Retry: policy, IdleTimeout: idle})
	}
	info.API = "openai-completions"
	q := r.quirks.apply(baseURL)
	return openai.New(openai.Config{Info: info, APIKey: key, BaseURL: baseURL, Retry: policy, IdleTimeout: idle, Quirks: &q})
}

// mergeQuirks lets a provider's own quirks win over the top-level ones.
func mergeQuirks(top, own quirkSettings) quirkSettings {
	if own.MaxTokensField != nil {
		top.MaxTokensField = own.MaxTokensField
	}
	if own.SystemRole != nil {
		top.SystemRole = own.SystemRole
	}
	if own.ToolResultName != nil {
		top.ToolResultName = own.ToolResultName
	}
	if own.ReasoningEffort != nil {
		top.ReasoningEffort = own.ReasoningEffort
	}
	if own.ThinkingAsText != nil {
		top.ThinkingAsText = own.ThinkingAsText
	}
	if own.NineCharToolIDs != nil {
		top.NineCharToolIDs = own.NineCharToolIDs
	}
	if own.ResponseFormat != nil {
		top.ResponseFormat = own.ResponseFormat
	}
	return top
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
