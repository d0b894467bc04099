package assemble_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/anthropic"
	"gopi/pkg/ai/catalog"
	"gopi/pkg/ai/openai"
	"gopi/pkg/ai/responses"
	"gopi/pkg/assemble"
	"gopi/pkg/session"
)

// defaultModel is the catalog's default model of a built-in provider.
func defaultModel(t *testing.T, provider string) string {
	t.Helper()
	p, ok := catalog.Builtin().Provider(provider)
	if !ok || p.DefaultModel == "" {
		t.Fatalf("no default model of %s", provider)
	}
	return p.DefaultModel
}

// modelEnv is an Env with the given variables.
func modelEnv(vars ...string) assemble.Env {
	return assemble.Env{Environ: vars, Stderr: io.Discard}
}

func choose(t *testing.T, e assemble.Env, m assemble.ModelSettings) assemble.Choice {
	t.Helper()
	ch, err := assemble.ChooseModel(e, m, session.ModelState{})
	if err != nil {
		t.Fatalf("%+v: %v", m, err)
	}
	return ch
}

func chooseErr(t *testing.T, e assemble.Env, m assemble.ModelSettings, want string) {
	t.Helper()
	_, err := assemble.ChooseModel(e, m, session.ModelState{})
	if classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), want) {
		t.Errorf("%+v: %v, want a usage error saying %q", m, err, want)
	}
}

// The provider: the one named, else the one whose catalog alone lists
// the id when its key is there, else the first whose key is there.
func TestChooseModelProvider(t *testing.T) {
	both := modelEnv("ANTHROPIC_API_KEY=sk-a-0123456789", "OPENAI_API_KEY=sk-o-0123456789")
	for _, tc := range []struct {
		e        assemble.Env
		m        assemble.ModelSettings
		provider string
		id       string
	}{
		{both, assemble.ModelSettings{}, "anthropic", defaultModel(t, "anthropic")},
		{modelEnv("OPENAI_API_KEY=sk-o-0123456789"), assemble.ModelSettings{}, "openai", ""},
		{both, assemble.ModelSettings{ID: "gpt-4.1"}, "openai", "gpt-4.1"},
		{modelEnv("ANTHROPIC_API_KEY=sk-a-0123456789"), assemble.ModelSettings{ID: "gpt-4.1"}, "anthropic", "gpt-4.1"},
		{modelEnv(), assemble.ModelSettings{ID: "gpt-4.1", APIKey: "sk-flag-0123456789"}, "openai", "gpt-4.1"},
		{both, assemble.ModelSettings{Provider: "openai", ID: "claude-sonnet-4-5"}, "openai", "claude-sonnet-4-5"},
	} {
		ch := choose(t, tc.e, tc.m)
		if ch.Info.Provider != tc.provider || tc.id != "" && ch.Info.ID != tc.id {
			t.Errorf("%+v: %s/%s, want %s/%s", tc.m, ch.Info.Provider, ch.Info.ID, tc.provider, tc.id)
		}
	}
	chooseErr(t, modelEnv(), assemble.ModelSettings{}, "no model provider: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --provider")
	chooseErr(t, modelEnv(), assemble.ModelSettings{Provider: "nosuch", Providers: map[string]assemble.Provider{"zeta": {}, "alpha": {}}},
		`unknown provider "nosuch": use one of anthropic, openai, faux, alpha, zeta, or declare it under "providers" in settings.json`)
}

// A resumed session's model is the fallback when the settings name no
// provider and no other id.
func TestChooseModelResumed(t *testing.T) {
	e := modelEnv("ANTHROPIC_API_KEY=sk-a-0123456789", "OPENAI_API_KEY=sk-o-0123456789")
	resumed := session.ModelState{Provider: "openai", ModelID: "gpt-4.1"}
	for _, tc := range []struct {
		m    assemble.ModelSettings
		want string
	}{
		{assemble.ModelSettings{}, "openai/gpt-4.1"},
		{assemble.ModelSettings{ID: "gpt-4.1"}, "openai/gpt-4.1"},
		{assemble.ModelSettings{ID: "claude-3-5-haiku-latest"}, "anthropic/claude-3-5-haiku-latest"},
		{assemble.ModelSettings{Provider: "anthropic"}, "anthropic/" + defaultModel(t, "anthropic")},
	} {
		ch, err := assemble.ChooseModel(e, tc.m, resumed)
		if got := ch.Info.Provider + "/" + ch.Info.ID; err != nil || got != tc.want {
			t.Errorf("%+v: %s %v, want %s", tc.m, got, err, tc.want)
		}
	}
}

// The faux provider plays its demo or a script file, recorded by its
// absolute path.
func TestFauxModels(t *testing.T) {
	for _, id := range []string{"", "demo"} {
		if ch := choose(t, modelEnv(), assemble.ModelSettings{Provider: "faux", ID: id}); ch.Info.ID != "demo" || ch.Model == nil {
			t.Errorf("%q: %+v", id, ch.Info)
		}
	}
	dir := t.TempDir()
	t.Chdir(dir)
	p := script(t, `[{"text":"hi"}]`)
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	if ch := choose(t, modelEnv(), assemble.ModelSettings{Provider: "faux", ID: rel}); ch.Info.ID != p || ch.Info.Provider != "faux" {
		t.Errorf("%s: %+v", rel, ch.Info)
	}
	chooseErr(t, modelEnv(), assemble.ModelSettings{Provider: "faux", ID: "nosuch.json"}, `faux model "nosuch.json": not "demo" and no such script file`)
	chooseErr(t, modelEnv(), assemble.ModelSettings{Provider: "faux", ID: script(t, `{"bogus": 1}`)}, "faux script")
}

// A built-in provider's model: its default, the catalog's description
// or a note, the key from the flag or the variable, the address from
// the flag or <PROVIDER>_BASE_URL, each checked.
func TestBuiltinModels(t *testing.T) {
	key := "ANTHROPIC_API_KEY=sk-a-0123456789"
	ch := choose(t, modelEnv(key), assemble.ModelSettings{Provider: "anthropic"})
	if ch.Info.ID != defaultModel(t, "anthropic") || !ch.Known || ch.Note != "" || ch.Key != "sk-a-0123456789" || ch.Info.BaseURL != anthropic.DefaultBaseURL || ch.Info.Prices.Input == 0 {
		t.Errorf("default: %+v", ch)
	}
	ch = choose(t, modelEnv(key), assemble.ModelSettings{Provider: "anthropic", ID: "claude-x", APIKey: "sk-flag-0123456789"})
	if ch.Known || ch.Key != "sk-flag-0123456789" || !strings.HasPrefix(ch.Note, `gopi: model "claude-x" is not in the catalog of anthropic: using a `) {
		t.Errorf("unknown: %+v", ch)
	}
	ch = choose(t, modelEnv("OPENAI_API_KEY=sk-o-0123456789"), assemble.ModelSettings{Provider: "openai", ID: "gpt-5-codex"})
	if ch.Info.BaseURL != responses.DefaultBaseURL {
		t.Errorf("codex: %+v", ch.Info)
	}
	ch = choose(t, modelEnv("OPENAI_API_KEY=sk-o-0123456789"), assemble.ModelSettings{Provider: "openai", ID: "gpt-4.1"})
	if ch.Info.BaseURL != openai.DefaultBaseURL {
		t.Errorf("openai: %+v", ch.Info)
	}
	ch = choose(t, modelEnv("OPENAI_BASE_URL=http://127.0.0.1:1/v1"), assemble.ModelSettings{Provider: "openai", ID: "local"})
	if ch.Info.BaseURL != "http://127.0.0.1:1/v1" || ch.Key != "" {
		t.Errorf("a local server without a key: %+v", ch)
	}
	ch = choose(t, modelEnv(key, "ANTHROPIC_BASE_URL=bad"), assemble.ModelSettings{Provider: "anthropic", BaseURL: "http://127.0.0.1:2"})
	if ch.Info.BaseURL != "http://127.0.0.1:2" {
		t.Errorf("the flag's address: %+v", ch.Info)
	}
	chooseErr(t, modelEnv(key, "ANTHROPIC_BASE_URL=localhost:8080"), assemble.ModelSettings{Provider: "anthropic"},
		`ANTHROPIC_BASE_URL "localhost:8080" is no API address: give it with http:// or https://, such as http://localhost:8080`)
	chooseErr(t, modelEnv(), assemble.ModelSettings{Provider: "anthropic"}, "no API key for anthropic: set ANTHROPIC_API_KEY or pass --api-key")
	chooseErr(t, modelEnv("OPENAI_BASE_URL=https://api.openai.com/v1"), assemble.ModelSettings{Provider: "openai"}, "no API key for openai: set OPENAI_API_KEY")
	chooseErr(t, modelEnv("ANTHROPIC_API_KEY=sk-a\n"), assemble.ModelSettings{Provider: "anthropic"}, "the API key in ANTHROPIC_API_KEY holds a control character (a line break?) at byte 4")
	chooseErr(t, modelEnv(key), assemble.ModelSettings{Provider: "anthropic", APIKey: "sk\x7f"}, "the API key in --api-key holds a control character")
}

// CheckBaseURL takes http and https addresses with a host, and suggests
// one for the others.
func TestCheckBaseURL(t *testing.T) {
	for raw, example := range map[string]string{
		"":                 "",
		"http://h:1/v1":    "",
		"https://h":        "",
		"localhost:8080":   "http://localhost:8080",
		"//proxy.lan/v1":   "http://proxy.lan/v1",
		"ftp://h/v1":       "http://localhost:8080/v1",
		"http://":          "http://localhost:8080/v1",
		"https:///nohost":  "http://localhost:8080/v1",
		"gopher://h":       "http://localhost:8080/v1",
		"http//broken.com": "http://http//broken.com",
	} {
		err := assemble.CheckBaseURL(raw, "X_BASE_URL")
		if example == "" {
			if err != nil {
				t.Errorf("%q: %v", raw, err)
			}
			continue
		}
		if classOf(err) != ai.ClassUsage || !strings.HasSuffix(err.Error(), "such as "+example) || !strings.HasPrefix(err.Error(), `X_BASE_URL "`+raw+`" is no API address`) {
			t.Errorf("%q: %v, want the example %s", raw, err, example)
		}
	}
}

// A declared provider's model: the first declared by default, described
// as declared, its key from apiKeyEnv or the flag, its address checked.
func TestDeclaredProviderModels(t *testing.T) {
	provs := declaredProviders(t, `{
	 "local": {"api": "openai", "baseUrl": "http://127.0.0.1:1/v1", "apiKeyEnv": "LOCAL_KEY",
	   "models": [{"id": "qwen", "contextWindow": 32768, "cost": {"input": 1, "output": 2}, "maxTokens": 999}, {"id": "gpt-5", "reasoning": false}]},
	 "empty": {"api": "anthropic"},
	 "bad": {"api": "openai", "baseUrl": "localhost"},
	 "resp": {"api": "openai-responses", "models": [{"id": "m"}]},
	 "odd": {"api": "grpc"}}`)
	e := modelEnv("LOCAL_KEY=loc-0123456789")
	ch := choose(t, e, assemble.ModelSettings{Provider: "local", Providers: provs})
	if ch.Info.ID != "qwen" || ch.Info.Provider != "local" || !ch.Known || ch.Note != "" || ch.Info.ContextWindow != 32768 ||
		ch.Info.Prices.Output != 2 || ch.Info.MaxOutputTokens != 999 || ch.Key != "loc-0123456789" || ch.Info.BaseURL != "http://127.0.0.1:1/v1" {
		t.Errorf("the first declared: %+v", ch)
	}
	ch = choose(t, e, assemble.ModelSettings{Provider: "local", ID: "gpt-5", Providers: provs})
	if ch.Info.Reasoning || !ch.Known || ch.Info.ContextWindow == 0 {
		t.Errorf(`declared "reasoning": false over the catalog's gpt-5: %+v`, ch.Info)
	}
	ch = choose(t, e, assemble.ModelSettings{Provider: "local", ID: "other", Providers: provs, APIKey: "sk-flag-0123456789", BaseURL: "http://127.0.0.1:3"})
	if ch.Known || ch.Key != "sk-flag-0123456789" || ch.Info.BaseURL != "http://127.0.0.1:3" ||
		ch.Note != `gopi: model "other" is not declared for provider local: using a 128000-token context and no prices` {
		t.Errorf("undeclared: %+v", ch)
	}
	if ch := choose(t, e, assemble.ModelSettings{Provider: "resp", Providers: provs}); ch.Info.BaseURL != responses.DefaultBaseURL || ch.Key != "" {
		t.Errorf("responses: %+v", ch)
	}
	if ch := choose(t, e, assemble.ModelSettings{Provider: "empty", ID: "x", Providers: provs}); ch.Info.BaseURL != anthropic.DefaultBaseURL {
		t.Errorf("anthropic's address: %+v", ch.Info)
	}
	chooseErr(t, e, assemble.ModelSettings{Provider: "empty", Providers: provs}, `provider "empty": name a model with --model`)
	chooseErr(t, modelEnv(), assemble.ModelSettings{Provider: "local", Providers: provs}, "no API key for provider local: set LOCAL_KEY or pass --api-key")
	chooseErr(t, modelEnv("LOCAL_KEY=a\tb"), assemble.ModelSettings{Provider: "local", Providers: provs}, "the API key in LOCAL_KEY holds a control character")
	chooseErr(t, e, assemble.ModelSettings{Provider: "bad", ID: "x", Providers: provs}, `"providers.bad.baseUrl" in settings "localhost" is no API address`)
	if ch := choose(t, e, assemble.ModelSettings{Provider: "bad", ID: "x", Providers: provs, BaseURL: "http://127.0.0.1:4"}); ch.Info.BaseURL != "http://127.0.0.1:4" {
		t.Errorf("the flag's address over a bad one: %+v", ch.Info)
	}
	_, err := assemble.ChooseModel(e, assemble.ModelSettings{Provider: "odd", ID: "x", Providers: provs}, session.ModelState{})
	if classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), `"odd"`) {
		t.Errorf("an api gopi does not speak: %v", err)
	}
}

// pi's shape of a declared model ("cost", "maxTokens") gives way to
// gopi's own fields when both are given.
func TestProviderJSONOwnFieldsWin(t *testing.T) {
	provs := declaredProviders(t, `{"p": {"api": "openai", "models": [
	 {"id": "a", "cost": {"input": 1}, "prices": {"input": 5}, "maxTokens": 10, "maxOutputTokens": 20, "reasoning": true}]}}`)
	m := provs["p"].Models[0]
	if m.Prices.Input != 5 || m.MaxOutputTokens != 20 || !m.Reasoning {
		t.Errorf("%+v", m)
	}
	// pi's "input" says whether the model reads images; "images" wins
	provs = declaredProviders(t, `{"p": {"api": "openai", "models": [
	 {"id": "seeing", "input": ["text", "image"]}, {"id": "blind", "input": ["text"]},
	 {"id": "both", "input": ["text"], "images": true}, {"id": "gpt-4.1", "input": ["text"]}]}}`)
	for i, want := range []bool{true, false, true} {
		if m := provs["p"].Models[i]; m.Images != want {
			t.Errorf("%s reads images: %v, want %v", m.ID, m.Images, want)
		}
	}
	// said of a catalog's model, "input": ["text"] turns its images off
	if got := provs["p"].Describe(ai.Info{ID: "gpt-4.1", Images: true}, provs["p"].Models[3]); got.Images {
		t.Errorf("a catalog model declared text-only reads images: %+v", got)
	}
	var p assemble.Provider
	if err := json.Unmarshal([]byte(`{"api": 5}`), &p); err == nil {
		t.Error("a provider of the wrong shape was read")
	}
}

// MergeInfo lays the declared fields over the catalog's.
func TestMergeInfo(t *testing.T) {
	base := ai.Info{ID: "m", Name: "Base", ContextWindow: 100, MaxOutputTokens: 10, Prices: ai.Prices{Input: 1}, Reasoning: true}
	if got := assemble.MergeInfo(base, ai.Info{}); got != base {
		t.Errorf("nothing declared: %+v", got)
	}
	over := ai.Info{Name: "Over", ContextWindow: 200, MaxOutputTokens: 20, Prices: ai.Prices{Output: 3}, Images: true}
	want := ai.Info{ID: "m", Name: "Over", ContextWindow: 200, MaxOutputTokens: 20, Prices: ai.Prices{Output: 3}, Reasoning: true, Images: true}
	if got := assemble.MergeInfo(base, over); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := assemble.MergeInfo(ai.Info{}, ai.Info{Reasoning: true}); !got.Reasoning || got.Images {
		t.Errorf("reasoning declared: %+v", got)
	}
}

// Retry.Check refuses each negative setting, naming it.
func TestRetryCheck(t *testing.T) {
	if err := (assemble.Retry{}).Check("settings"); err != nil {
		t.Errorf("zero: %v", err)
	}
	for name, r := range map[string]assemble.Retry{
		"maxAttempts": {MaxAttempts: -1}, "baseDelayMs": {BaseDelayMs: -1}, "maxDelayMs": {MaxDelayMs: -1},
		"maxRetryAfterMs": {MaxRetryAfterMs: -1}, "maxTotalMs": {MaxTotalMs: -1}, "idleTimeoutMs": {IdleTimeoutMs: -1},
	} {
		err := r.Check("settings.json")
		if want := "settings.json: retry." + name + " is -1: give 0 or more"; classOf(err) != ai.ClassUsage || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// provider is a loopback server that records each request body and
// answers 500.
type recorder struct {
	mu     sync.Mutex
	bodies []map[string]any
	paths  []string
}

func newRecorder(t *testing.T) (*recorder, string) {
	t.Helper()
	r := &recorder{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body map[string]any
		b, _ := io.ReadAll(req.Body)
		_ = json.Unmarshal(b, &body)
		r.mu.Lock()
		r.bodies = append(r.bodies, body)
		r.paths = append(r.paths, req.URL.Path)
		r.mu.Unlock()
		http.Error(w, `{"error":{"message":"down"}}`, http.StatusInternalServerError)
	}))
	t.Cleanup(ts.Close)
	return r, ts.URL
}

func (r *recorder) all() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodies
}

// lastPath is the path of the last request.
func (r *recorder) lastPath() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.paths) == 0 {
		return ""
	}
	return r.paths[len(r.paths)-1]
}

// send streams one request with a history that shows every quirk, and
// returns the API its answer names.
func send(ch assemble.Choice) string {
	call := ai.ToolCallContent("call_abc", "bash", json.RawMessage(`{"command":"ls"}`))
	other := ai.ToolCallContent("call_from_another_model", "bash", json.RawMessage(`{"command":"ls"}`))
	req := &ai.Request{SystemPrompt: "be brief", Thinking: ai.ThinkingHigh, OutputSchema: json.RawMessage(`{"type":"object"}`), MaxTokens: 100,
		Messages: []ai.Message{
			ai.UserText("hi", 1),
			{Role: ai.RoleAssistant, Content: []ai.Content{{Type: ai.TypeThinking, Thinking: "pondering"}, call}, StopReason: ai.StopToolUse, Timestamp: 2,
				API: "openai-completions", Provider: ch.Info.Provider, Model: ch.Info.ID},
			{Role: ai.RoleToolResult, ToolCallID: "call_abc", ToolName: "bash", Content: []ai.Content{ai.TextContent("files")}, Timestamp: 3},
			{Role: ai.RoleAssistant, Content: []ai.Content{other}, StopReason: ai.StopToolUse, Timestamp: 4, API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5"},
			{Role: ai.RoleToolResult, ToolCallID: other.ID, ToolName: "bash", Content: []ai.Content{ai.TextContent("files")}, Timestamp: 5},
		}}
	api := ""
	for e := range ch.Model.Stream(context.Background(), req) {
		if e.Message != nil {
			api = e.Message.API
		}
	}
	return api
}

// quirksOf reads the quirks a request body shows.
func quirksOf(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	msgs, _ := body["messages"].([]any)
	if len(msgs) < 6 {
		t.Fatalf("messages: %v", body["messages"])
	}
	system, _ := msgs[0].(map[string]any)
	assistant, _ := msgs[2].(map[string]any)
	tool, _ := msgs[3].(map[string]any)
	otherModel, _ := msgs[4].(map[string]any)
	calls, _ := otherModel["tool_calls"].([]any)
	id := ""
	if len(calls) > 0 {
		id, _ = calls[0].(map[string]any)["id"].(string)
	}
	content, _ := json.Marshal(assistant["content"])
	_, maxTokens := body["max_tokens"]
	_, effort := body["reasoning_effort"]
	_, format := body["response_format"]
	_, named := tool["name"]
	return map[string]any{"maxTokens": maxTokens, "systemRole": system["role"], "toolResultName": named, "reasoningEffort": effort,
		"thinkingAsText": strings.Contains(string(content), "pondering"), "nineCharIDs": len(id) == 9, "responseFormat": format}
}

// The "quirks" setting changes, field by field, what an OpenAI-style
// server is sent; a provider's own quirks win over the top-level ones;
// "retry" bounds the attempts.
func TestQuirksAndRetry(t *testing.T) {
	rec, url := newRecorder(t)
	str := func(s string) *string { return &s }
	yes, no := true, false
	top := assemble.Quirks{MaxTokensField: str("max_completion_tokens"), SystemRole: str("developer"), ToolResultName: &yes,
		ReasoningEffort: &no, ThinkingAsText: &yes, NineCharToolIDs: &yes, ResponseFormat: &yes}
	own := assemble.Quirks{MaxTokensField: str("max_tokens"), SystemRole: str("system"), ToolResultName: &no,
		ReasoningEffort: &yes, ThinkingAsText: &no, NineCharToolIDs: &no, ResponseFormat: &no}
	model := []ai.Info{{ID: "r1", Reasoning: true, MaxOutputTokens: 1000}}
	retry := assemble.Retry{MaxAttempts: 2, BaseDelayMs: 1, MaxDelayMs: 1, Quirks: top}
	for _, tc := range []struct {
		name string
		p    assemble.Provider
		want map[string]any
	}{
		{"top", assemble.Provider{API: "openai", BaseURL: url, Models: model},
			map[string]any{"maxTokens": false, "systemRole": "developer", "toolResultName": true, "reasoningEffort": false, "thinkingAsText": true, "nineCharIDs": true, "responseFormat": true}},
		{"own", assemble.Provider{API: "openai", BaseURL: url, Models: model, Quirks: own},
			map[string]any{"maxTokens": true, "systemRole": "system", "toolResultName": false, "reasoningEffort": true, "thinkingAsText": false, "nineCharIDs": false, "responseFormat": false}},
	} {
		before := len(rec.all())
		ch := choose(t, modelEnv(), assemble.ModelSettings{Provider: "local", Providers: map[string]assemble.Provider{"local": tc.p}, Retry: retry})
		send(ch)
		bodies := rec.all()[before:]
		if len(bodies) != 2 {
			t.Errorf("%s: %d attempts, want 2", tc.name, len(bodies))
			continue
		}
		got := quirksOf(t, bodies[0])
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s is %v, want %v", tc.name, k, got[k], v)
			}
		}
	}
}

// DeclaredModel finds a model the settings declare under a provider's
// name, the first as well as the others.
func TestDeclaredModel(t *testing.T) {
	provs := map[string]assemble.Provider{"anthropic": {Models: []ai.Info{{ID: "first", ContextWindow: 1}, {ID: "second", ContextWindow: 2}}}}
	for id, cw := range map[string]int{"first": 1, "second": 2} {
		if m, ok := assemble.DeclaredModel(provs, "anthropic", id); !ok || m.ContextWindow != cw {
			t.Errorf("%s: %+v %v", id, m, ok)
		}
	}
	if _, ok := assemble.DeclaredModel(provs, "anthropic", "third"); ok {
		t.Error("an undeclared model found")
	}
	if _, ok := assemble.DeclaredModel(provs, "openai", "first"); ok {
		t.Error("another provider's model found")
	}
	ch := choose(t, modelEnv("ANTHROPIC_API_KEY=sk-a-0123456789"), assemble.ModelSettings{Provider: "anthropic", ID: "first", Providers: provs})
	if !ch.Known || ch.Note != "" || ch.Info.ContextWindow != 1 || ch.Info.Provider != "anthropic" || ch.Info.ID != "first" {
		t.Errorf("a model declared under anthropic: %+v", ch)
	}
}

// Each API is spoken by its own adapter, at its own path.
func TestAdapterOfEachAPI(t *testing.T) {
	rec, url := newRecorder(t)
	one := assemble.Retry{MaxAttempts: 1}
	for _, tc := range []struct {
		m         assemble.ModelSettings
		api, path string
	}{
		{assemble.ModelSettings{Provider: "p", Providers: map[string]assemble.Provider{"p": {API: "anthropic", BaseURL: url, Models: []ai.Info{{ID: "m"}}}}}, "anthropic-messages", "/v1/messages"},
		{assemble.ModelSettings{Provider: "p", Providers: map[string]assemble.Provider{"p": {API: "openai", BaseURL: url, Models: []ai.Info{{ID: "m"}}}}}, "openai-completions", "/chat/completions"},
		{assemble.ModelSettings{Provider: "p", Providers: map[string]assemble.Provider{"p": {API: "openai-responses", BaseURL: url, Models: []ai.Info{{ID: "m"}}}}}, "openai-responses", "/responses"},
		{assemble.ModelSettings{Provider: "openai", ID: "gpt-5-codex", APIKey: "sk-0123456789", BaseURL: url}, "openai-responses", "/responses"},
		{assemble.ModelSettings{Provider: "openai", ID: "gpt-4.1", APIKey: "sk-0123456789", BaseURL: url}, "openai-completions", "/chat/completions"},
		{assemble.ModelSettings{Provider: "anthropic", APIKey: "sk-0123456789", BaseURL: url}, "anthropic-messages", "/v1/messages"},
	} {
		tc.m.Retry = one
		ch := choose(t, modelEnv(), tc.m)
		if api := send(ch); api != tc.api || rec.lastPath() != tc.path {
			t.Errorf("%s/%s: answered as %q at %s, want %q at %s", tc.m.Provider, ch.Info.ID, api, rec.lastPath(), tc.api, tc.path)
		}
	}
}
