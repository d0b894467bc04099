package assemble

import (
	"fmt"
	"net/url"
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
	"gopi/pkg/ai/provider"
	"gopi/pkg/ai/responses"
	"gopi/pkg/session"
)

// Provider is a provider declared in settings.json:
//
//	"providers": {"local": {"api": "openai", "baseUrl": "http://localhost:8080/v1",
//	  "apiKeyEnv": "LOCAL_KEY", "models": [{"id": "qwen", "contextWindow": 32768}]}}
type Provider struct {
	API       string    `json:"api"` // "anthropic", "openai" or "openai-responses"
	BaseURL   string    `json:"baseUrl"`
	APIKeyEnv string    `json:"apiKeyEnv"`
	Models    []ai.Info `json:"models"`
	Quirks    Quirks    `json:"quirks"`
	// notReasoning and noImages are the ids of the models declared
	// "reasoning": false and "images": false, which say more than leaving
	// them out (Describe).
	notReasoning, noImages map[string]bool
}

// Describe lays a model this provider declares over base, the catalog's
// description of its id: the declared fields win, "reasoning": false
// and "images": false among them (a server of its own may serve a
// catalog's id without reading images).
func (p Provider) Describe(base, declared ai.Info) ai.Info {
	info := MergeInfo(base, declared)
	if p.notReasoning[declared.ID] {
		info.Reasoning = false
	}
	if p.noImages[declared.ID] {
		info.Images = false
	}
	return info
}

// Quirks override, field by field, the quirks an OpenAI-compatible
// server gets by default for its base URL ("quirks" at the top level of
// settings, or in a provider declared there).
type Quirks struct {
	MaxTokensField  *string `json:"maxTokensField"`  // "max_tokens" or "max_completion_tokens"
	SystemRole      *string `json:"systemRole"`      // "system" or "developer"
	ToolResultName  *bool   `json:"toolResultName"`  // name the tool in tool messages
	ReasoningEffort *bool   `json:"reasoningEffort"` // send reasoning_effort
	ThinkingAsText  *bool   `json:"thinkingAsText"`  // replay thinking as text
	NineCharToolIDs *bool   `json:"nineCharToolIds"` // tool call ids of nine letters and digits (Mistral)
	ResponseFormat  *bool   `json:"responseFormat"`  // send --output-schema as response_format json_schema
}

func (qs Quirks) apply(baseURL string) openai.Quirks {
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

// Retry is the "retry" setting.
type Retry struct {
	MaxAttempts     int    `json:"maxAttempts"`
	BaseDelayMs     int64  `json:"baseDelayMs"`
	MaxDelayMs      int64  `json:"maxDelayMs"`
	MaxRetryAfterMs int64  `json:"maxRetryAfterMs"`
	MaxTotalMs      int64  `json:"maxTotalMs"`
	IdleTimeoutMs   int64  `json:"idleTimeoutMs"`
	Quirks          Quirks `json:"-"` // the top-level "quirks" setting
}

// Check refuses a negative retry setting: 0 (or leaving it out) is how the
// default is asked for, and a negative number is a typo, not a wish.
// origin names where the setting came from.
func (r Retry) Check(origin string) error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"maxAttempts", int64(r.MaxAttempts)}, {"baseDelayMs", r.BaseDelayMs}, {"maxDelayMs", r.MaxDelayMs},
		{"maxRetryAfterMs", r.MaxRetryAfterMs}, {"maxTotalMs", r.MaxTotalMs}, {"idleTimeoutMs", r.IdleTimeoutMs},
	} {
		if f.v < 0 {
			return Usagef("%s: retry.%s is %d: give 0 or more (0 or leaving it out means the default)", origin, f.name, f.v)
		}
	}
	return nil
}

// policy is the retry policy the settings ask for; unset fields keep
// provider's defaults.
func (r Retry) policy() provider.Policy {
	return provider.Policy{
		MaxAttempts: r.MaxAttempts, BaseDelay: ms(r.BaseDelayMs), MaxDelay: ms(r.MaxDelayMs),
		MaxRetryAfter: ms(r.MaxRetryAfterMs), MaxTotal: ms(r.MaxTotalMs),
	}
}

// ModelSettings say which model to use and how to reach it.
type ModelSettings struct {
	// Provider and ID as given ("" for the default), "provider/id"
	// already split and an "id:level" suffix already cut into Thinking.
	Provider, ID string
	Thinking     ai.ThinkingLevel // the level of "id:level"
	APIKey       string           // --api-key or --api-key-file; "" reads the provider's variable
	BaseURL      string
	Providers    map[string]Provider // declared in settings
	Retry        Retry
}

// Choice is a resolved model.
type Choice struct {
	Info  ai.Info
	Model ai.Model
	Note  string // to say on stderr (an id the catalog does not know)
	Key   string // the API key in use: never in a tool's environment
	Known bool   // the catalog or settings describe the model
	// Thinking is the level of a model given as "id:level".
	Thinking ai.ThinkingLevel
}

// BuiltinKeyEnv names the key variable of each built-in provider.
var BuiltinKeyEnv = map[string]string{"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}

// ChooseModel resolves the model of m, falling back to the model a
// resumed session last used, and builds the adapter. It sends nothing.
func ChooseModel(env Env, m ModelSettings, resumed session.ModelState) (Choice, error) {
	prov, id := m.Provider, m.ID
	if prov == "" && resumed.Provider != "" && (id == "" || id == resumed.ModelID) {
		prov, id = resumed.Provider, resumed.ModelID
	}
	ch, err := pickModel(env, m, prov, id)
	ch.Thinking = m.Thinking
	return ch, err
}

func pickModel(env Env, m ModelSettings, prov, id string) (Choice, error) {
	if p := catalogProvider(id); prov == "" && p != "" && (m.APIKey != "" || env.Getenv(BuiltinKeyEnv[p]) != "") {
		prov = p // --model gpt-5.4 is OpenAI's when its key is there, whichever others are
	}
	if prov == "" {
		prov = inferProvider(env)
		if prov == "" {
			return Choice{}, Usagef("no model provider: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --provider " +
				"(--provider faux runs offline with a scripted model)")
		}
	}
	switch {
	case prov == "faux":
		return fauxModel(id)
	case m.Providers[prov].API != "":
		return customModel(env, m, prov, id, m.Providers[prov])
	case prov == "anthropic" || prov == "openai":
		return builtinModel(env, m, prov, id)
	}
	known := []string{"anthropic", "openai", "faux"}
	for name := range m.Providers {
		known = append(known, name)
	}
	sort.Strings(known[3:])
	return Choice{}, Usagef("unknown provider %q: use one of %s, or declare it under \"providers\" in settings.json", prov, strings.Join(known, ", "))
}

// CheckKey refuses a key that cannot go in a request header (a line
// break or another control character, often a file read with its
// newline), naming where it came from and never showing it.
func CheckKey(key, from string) error {
	if i := strings.IndexFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return Usagef("the API key in %s holds a control character (a line break?) at byte %d: set it without one", from, i)
	}
	return nil
}

// CheckBaseURL refuses an API address gopi cannot send a request to (no
// http:// or https://, no host), naming where it came from: without it,
// every request failed and was retried ("unsupported protocol scheme").
func CheckBaseURL(raw, from string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	example := "http://localhost:8080/v1"
	if !strings.Contains(raw, "://") {
		example = "http://" + strings.TrimPrefix(raw, "//")
	}
	return Usagef("%s %q is no API address: give it with http:// or https://, such as %s", from, raw, example)
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

func inferProvider(env Env) string {
	for _, p := range []string{"anthropic", "openai"} {
		if env.Getenv(BuiltinKeyEnv[p]) != "" {
			return p
		}
	}
	return ""
}

func fauxModel(id string) (Choice, error) {
	info := faux.Info
	switch {
	case id == "" || id == faux.DemoName:
		info.ID = faux.DemoName
		return Choice{Info: info, Model: faux.Demo().WithInfo(info)}, nil
	}
	if _, err := os.Stat(id); err != nil {
		return Choice{}, Usagef("faux model %q: not %q and no such script file: give the path of a script file, or %s", id, faux.DemoName, faux.DemoName)
	}
	m, err := faux.Load(id)
	if err != nil {
		return Choice{}, Usagef("%v", err)
	}
	// The session records the script's absolute path, so that resuming it
	// (which reuses the recorded model) finds the script again.
	if info.ID, err = filepath.Abs(id); err != nil {
		return Choice{}, Usagef("faux model %q: %v", id, err)
	}
	return Choice{Info: info, Model: m.WithInfo(info)}, nil
}

func builtinModel(env Env, m ModelSettings, prov, id string) (Choice, error) {
	p, _ := catalog.Builtin().Provider(prov)
	if id == "" {
		id = p.DefaultModel
	}
	info, known := catalog.Resolve(prov, id)
	// A model declared under the built-in provider's name
	// (providers.anthropic.models) is described as declared: its fields
	// win over the catalog's.
	if decl, ok := DeclaredModel(m.Providers, prov, id); ok {
		known = true
		info = m.Providers[prov].Describe(info, decl)
		info.Provider, info.ID = prov, id
	}
	if !known {
		info.Images = imagesUnknown
	}
	ch := Choice{Info: info, Known: known}
	if !known {
		ch.Note = fmt.Sprintf("gopi: model %q is not in the catalog of %s: using a %d-token context, %d output tokens and no prices",
			id, prov, info.ContextWindow, info.MaxOutputTokens)
	}
	baseURL := firstNonEmpty(m.BaseURL, env.Getenv(strings.ToUpper(prov)+"_BASE_URL"))
	if m.BaseURL == "" {
		if err := CheckBaseURL(baseURL, strings.ToUpper(prov)+"_BASE_URL"); err != nil {
			return Choice{}, err
		}
	}
	key := firstNonEmpty(m.APIKey, env.Getenv(BuiltinKeyEnv[prov]))
	local := prov == "openai" && baseURL != "" && !strings.Contains(baseURL, "api.openai.com")
	if key == "" && !local {
		return Choice{}, Usagef("no API key for %s: set %s or pass --api-key", prov, BuiltinKeyEnv[prov])
	}
	if err := CheckKey(key, keySource(m.APIKey, BuiltinKeyEnv[prov])); err != nil {
		return Choice{}, err
	}
	api := prov
	if info.API == responses.API { // a model only the Responses API serves (codex, -pro)
		api = responses.API
	}
	ch.Model, ch.Key = adapter(info, api, key, baseURL, m.Retry), key
	ch.Info.BaseURL = apiAddress(api, baseURL)
	return ch, nil
}

func customModel(env Env, m ModelSettings, name, id string, cp Provider) (Choice, error) {
	if cp.API != "anthropic" && cp.API != "openai" && cp.API != responses.API {
		return Choice{}, Usagef("provider %q in settings: api must be \"anthropic\", \"openai\" or \"openai-responses\", not %q", name, cp.API)
	}
	if id == "" && len(cp.Models) > 0 {
		id = cp.Models[0].ID
	}
	if id == "" {
		return Choice{}, Usagef("provider %q: name a model with --model", name)
	}
	info, known := catalog.Resolve(strings.TrimSuffix(cp.API, "-responses"), id)
	info.Provider, info.ID = name, id
	if i := slices.IndexFunc(cp.Models, func(m ai.Info) bool { return m.ID == id }); i >= 0 {
		known = true
		info = cp.Describe(info, cp.Models[i])
	}
	if !known {
		info.Images = imagesUnknown
	}
	ch := Choice{Info: info, Known: known}
	if !known {
		ch.Note = fmt.Sprintf("gopi: model %q is not declared for provider %s: using a %d-token context and no prices", id, name, info.ContextWindow)
	}
	key := m.APIKey
	if key == "" && cp.APIKeyEnv != "" {
		key = env.Getenv(cp.APIKeyEnv)
		if key == "" {
			return Choice{}, Usagef("no API key for provider %s: set %s or pass --api-key", name, cp.APIKeyEnv)
		}
	}
	if err := CheckKey(key, keySource(m.APIKey, cp.APIKeyEnv)); err != nil {
		return Choice{}, err
	}
	if m.BaseURL == "" {
		if err := CheckBaseURL(cp.BaseURL, fmt.Sprintf("\"providers.%s.baseUrl\" in settings", name)); err != nil {
			return Choice{}, err
		}
	}
	retry := m.Retry
	retry.Quirks = mergeQuirks(retry.Quirks, cp.Quirks)
	ch.Model, ch.Key = adapter(info, cp.API, key, firstNonEmpty(m.BaseURL, cp.BaseURL), retry), key
	ch.Info.BaseURL = apiAddress(cp.API, firstNonEmpty(m.BaseURL, cp.BaseURL))
	return ch, nil
}

// imagesUnknown: whether a model takes images is what the catalog or
// the settings ("images": true) say of it; a model a request leaves its
// images out for is one described as taking none. A model neither
// describes (run with default limits and a warning) may take them or
// not, and gopi cannot tell: it is described as taking them, so that a
// user's image or a tool's is sent as given (the provider says so if it
// refuses one) and never silently left out.
const imagesUnknown = true

// DeclaredModel is the model settings declare as id under the provider
// name, if any.
func DeclaredModel(providers map[string]Provider, name, id string) (ai.Info, bool) {
	models := providers[name].Models
	if i := slices.IndexFunc(models, func(m ai.Info) bool { return m.ID == id }); i >= 0 {
		return models[i], true
	}
	return ai.Info{}, false
}

// MergeInfo lays a declared model's description over the catalog's.
func MergeInfo(base, over ai.Info) ai.Info {
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
	base.Images = base.Images || over.Images
	if over.Name != "" {
		base.Name = over.Name
	}
	return base
}

// apiAddress is the address adapter's model sends to: baseURL, else
// the adapter's default.
func apiAddress(api, baseURL string) string {
	switch {
	case baseURL != "":
		return baseURL
	case api == "anthropic":
		return anthropic.DefaultBaseURL
	case api == responses.API:
		return responses.DefaultBaseURL
	}
	return openai.DefaultBaseURL
}

func adapter(info ai.Info, api, key, baseURL string, r Retry) ai.Model {
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
	q := r.Quirks.apply(baseURL)
	return openai.New(openai.Config{Info: info, APIKey: key, BaseURL: baseURL, Retry: policy, IdleTimeout: idle, Quirks: &q})
}

// mergeQuirks lets a provider's own quirks win over the top-level ones.
func mergeQuirks(top, own Quirks) Quirks {
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
