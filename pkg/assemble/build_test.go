package assemble_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopi/internal/fdcheck"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/extension"
	"gopi/pkg/loop"
)

// keyEnv is env with an Anthropic key: the model is built, nothing sent.
func keyEnv(stderr *bytes.Buffer) assemble.Env {
	e := env(stderr)
	e.Environ = append(e.Environ, "ANTHROPIC_API_KEY=sk-ant-test-0123456789")
	return e
}

// newOpened builds an Assembly of s in e, closed when the test ends.
func newOpened(t *testing.T, s assemble.Settings, e assemble.Env) *assemble.Assembly {
	t.Helper()
	a, err := assemble.Build(s, e)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		dispose(t, a)
		a.Close()
	})
	return a
}

// The thinking level: "id:level"'s unless a flag gave one, off for a
// model without reasoning when the settings clamp it.
func TestThinkingLevel(t *testing.T) {
	fdcheck.Check(t)
	for _, tc := range []struct {
		name     string
		model    ai.ThinkingLevel // of "id:level"
		flag     ai.ThinkingLevel
		explicit bool
		clamp    bool
		want     ai.ThinkingLevel
	}{
		{"of the model", ai.ThinkingLow, "", false, false, ai.ThinkingLow},
		{"the model's over a setting", ai.ThinkingLow, ai.ThinkingHigh, false, false, ai.ThinkingLow},
		{"a flag's over the model's", ai.ThinkingLow, ai.ThinkingHigh, true, false, ai.ThinkingHigh},
		{"clamped", "", ai.ThinkingHigh, true, true, ai.ThinkingOff},
		{"none to clamp", "", "", false, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			s := settings(t)
			s.Model.Thinking, s.Thinking, s.ThinkingExplicit, s.ClampThinking = tc.model, tc.flag, tc.explicit, tc.clamp
			a := newOpened(t, s, env(&stderr))
			if a.Thinking() != tc.want {
				t.Errorf("thinking %q, want %q", a.Thinking(), tc.want)
			}
			if stderr.Len() > 0 && !strings.HasPrefix(stderr.String(), "gopi: session saved") {
				t.Errorf("faux's thinking is not news: %s", stderr.String())
			}
		})
	}
}

// Thinking asked of a model that has none is said, naming where the
// level came from; of one gopi does not know, with how to declare it.
func TestThinkingOfAModelWithout(t *testing.T) {
	fdcheck.Check(t)
	for _, tc := range []struct {
		id       string
		model    ai.ThinkingLevel
		flag     ai.ThinkingLevel
		explicit bool
		want     string
	}{
		{"claude-3-5-haiku-latest", "", ai.ThinkingHigh, true, "gopi: model claude-3-5-haiku-latest does not support thinking; --thinking high is ignored\n"},
		{"claude-3-5-haiku-latest", ai.ThinkingLow, "", false, "gopi: model claude-3-5-haiku-latest does not support thinking; the :low of --model is ignored\n"},
		{"claude-3-5-haiku-latest", ai.ThinkingLow, ai.ThinkingHigh, true, "; --thinking high is ignored\n"},
		{"claude-in-no-catalog", "", ai.ThinkingMedium, true, `gopi: model claude-in-no-catalog is unknown, so --thinking medium is not sent: declare it with "reasoning": true under providers.anthropic.models in settings to send it` + "\n"},
		{"claude-3-5-haiku-latest", "", ai.ThinkingOff, true, ""},
		{"claude-sonnet-4-5", "", ai.ThinkingHigh, true, ""},
	} {
		var stderr bytes.Buffer
		s := settings(t)
		s.Session.None = true
		s.Bare = true
		s.Model = assemble.ModelSettings{Provider: "anthropic", ID: tc.id, Thinking: tc.model}
		s.Thinking, s.ThinkingExplicit = tc.flag, tc.explicit
		newOpened(t, s, keyEnv(&stderr))
		got := stderr.String()
		if i := strings.Index(got, "gopi: model "+tc.id+" does"); i > 0 {
			got = got[i:] // after the catalog's note
		}
		if tc.want == "" && strings.Contains(got, "thinking") || tc.want != "" && !strings.HasSuffix(got, tc.want) {
			t.Errorf("%s %q %q: stderr %q, want %q", tc.id, tc.model, tc.flag, stderr.String(), tc.want)
		}
	}
}

// The note on a model the catalog does not know is said once per
// $GOPI_HOME and model, every time with Bare.
func TestUnknownModelNoteSaidOnce(t *testing.T) {
	fdcheck.Check(t)
	s := settings(t)
	s.Session.None = true
	s.Home = filepath.Join(t.TempDir(), "home") // made, private, for the notes
	s.Model = assemble.ModelSettings{Provider: "anthropic", ID: "claude-in-no-catalog"}
	note := `gopi: model "claude-in-no-catalog" is not in the catalog of anthropic`
	count := func(s assemble.Settings) int {
		var stderr bytes.Buffer
		newOpened(t, s, keyEnv(&stderr))
		return strings.Count(stderr.String(), note)
	}
	if n := count(s); n != 1 {
		t.Fatalf("first run: said %d times", n)
	}
	if st, err := os.Stat(s.Home); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("$GOPI_HOME made for the notes: %v %v", st.Mode(), err)
	}
	if n := count(s); n != 0 {
		t.Errorf("second run: said %d times", n)
	}
	other := s
	other.Model.ID = "claude-other-not-in-catalog"
	var stderr bytes.Buffer
	newOpened(t, other, keyEnv(&stderr))
	if !strings.Contains(stderr.String(), "claude-other-not-in-catalog") {
		t.Errorf("another model's note: %q", stderr.String())
	}
	s.Bare = true
	if n := count(s); n != 1 {
		t.Errorf("bare: said %d times", n)
	}
	b, err := os.ReadFile(filepath.Join(s.Home, "notes.json"))
	if err != nil || !strings.Contains(string(b), "anthropic/claude-in-no-catalog") || !strings.Contains(string(b), "anthropic/claude-other-not-in-catalog") {
		t.Errorf("notes file %s: %v", b, err)
	}
	// A notes file that cannot be read only means the note is said again.
	s.Bare = false
	write(t, filepath.Join(s.Home, "notes.json"), "not json")
	if n := count(s); n != 1 {
		t.Errorf("with a broken notes file: said %d times", n)
	}
	if n := count(s); n != 0 {
		t.Errorf("after the broken notes file was written again: said %d times", n)
	}
}

// A dollar budget needs a model with prices.
func TestDollarBudgetNeedsPrices(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Limits = loop.Limits{USD: 1}
	_, err := assemble.Build(s, env(&stderr))
	if classOf(err) != ai.ClassUsage || !strings.Contains(err.Error(), `setting "maxBudgetUsd": model faux/demo has no prices`) {
		t.Errorf("%v", err)
	}
	s.Model = assemble.ModelSettings{Provider: "anthropic", ID: "claude-sonnet-4-5"}
	newOpened(t, s, keyEnv(&stderr))
}

// The tools offered are the built-in ones asked for; none asked offers
// none.
func TestToolsOffered(t *testing.T) {
	fdcheck.Check(t)
	calls := `[{"toolCalls":[{"name":"bash","arguments":{"command":"echo ran"}},{"name":"read","arguments":{"path":"hello.txt"}}]},{"text":"done"}]`
	for _, tc := range []struct {
		tools      []string
		bash, read bool
	}{
		{[]string{"read", "nosuch"}, false, true},
		{nil, false, false},
		{[]string{"bash", "read"}, true, true},
	} {
		var stderr bytes.Buffer
		s := settings(t)
		s.Tools = tc.tools
		s.Model.ID = script(t, calls)
		a := newOpened(t, s, env(&stderr))
		prompt(t, a, "go")
		got := toolTexts(a)
		if len(got) != 2 || (got[0] == "ran\n") != tc.bash || (got[1] == "x") != tc.read {
			t.Errorf("tools %q: results %q", tc.tools, got)
		}
	}
}

// Command hooks run around tool calls with the session's id, in an
// environment without credentials; tools' output is scrubbed of them.
func TestHooksAndCredentials(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	out := filepath.Join(t.TempDir(), "hook")
	s.Hooks = extension.HooksConfig{BeforeTool: []extension.CommandHook{{Matcher: "bash", Command: "cat > " + out + ".json; env > " + out + ".env"}}}
	s.Secrets = []string{"DEPLOY_TOKEN", "SHORT", "UNSET_SECRET"}
	s.Model.ID = bashThen(t, "echo $ANTHROPIC_API_KEY-$DEPLOY_TOKEN-$PLAIN; echo $SHORT")
	e := keyEnv(&stderr)
	e.Environ = append(e.Environ, "DEPLOY_TOKEN=tok-0123456789abcdef", "PLAIN=visible", "SHORT=abc")
	a := newOpened(t, s, e)
	prompt(t, a, "go")
	var in struct {
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
	}
	b, err := os.ReadFile(out + ".json")
	if err != nil || json.Unmarshal(b, &in) != nil || in.SessionID != a.Store().Header().ID || in.Cwd != s.Cwd {
		t.Errorf("the hook read %s (%v), want session %s", b, err, a.Store().Header().ID)
	}
	envb, err := os.ReadFile(out + ".env")
	if err != nil || strings.Contains(string(envb), "sk-ant-test") || !strings.Contains(string(envb), "PLAIN=visible") {
		t.Errorf("the hook's environment (%v):\n%s", err, envb)
	}
	got := toolTexts(a)
	if len(got) != 1 || strings.Contains(got[0], "tok-0123456789abcdef") || !strings.Contains(got[0], "-visible") || !strings.Contains(got[0], "abc") {
		t.Errorf("bash's output %q", got)
	}
	if !strings.Contains(stderr.String(), "gopi: warning: secret SHORT is shorter than") || strings.Contains(stderr.String(), "secret DEPLOY_TOKEN") || strings.Contains(stderr.String(), "UNSET_SECRET") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// A hook the settings cannot use is a usage error.
func TestHookRefused(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Hooks = extension.HooksConfig{AfterTool: []extension.CommandHook{{Matcher: "(", Command: "true"}}}
	_, err := assemble.Build(s, env(&stderr))
	if classOf(err) != ai.ClassUsage || !strings.HasPrefix(err.Error(), "hooks: ") {
		t.Errorf("%v", err)
	}
}

// Secrets are the key in use and the variables named like keys or
// declared, for text read on the model's behalf.
func TestSecrets(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Session.None = true
	s.Secrets = []string{"DEPLOY_TOKEN"}
	s.Model = assemble.ModelSettings{Provider: "anthropic", APIKey: "sk-flag-0123456789abcdef",
		Providers: map[string]assemble.Provider{"local": {API: "openai", APIKeyEnv: "LOCAL_TOKEN"}}}
	e := env(&stderr)
	e.Environ = append(e.Environ, "DEPLOY_TOKEN=tok-0123456789abcdef", "LOCAL_TOKEN=loc-0123456789abcdef", "GH_AUTH_TOKEN=gh-0123456789abcdef", "PLAIN=plain-0123456789abcdef")
	a, err := assemble.New(s, e)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	text := "sk-flag-0123456789abcdef tok-0123456789abcdef loc-0123456789abcdef gh-0123456789abcdef plain-0123456789abcdef"
	got := a.Secrets().Scrub(text)
	for _, secret := range strings.Fields(text)[:4] {
		if strings.Contains(got, secret) {
			t.Errorf("%s not scrubbed: %s", secret, got)
		}
	}
	if !strings.Contains(got, "plain-0123456789abcdef") {
		t.Errorf("a plain variable scrubbed: %s", got)
	}
}

// Changes lists the files the last Runtime's tools changed; a new
// Runtime starts a new list.
func TestChanges(t *testing.T) {
	fdcheck.Check(t)
	var stderr bytes.Buffer
	s := settings(t)
	s.Tools = []string{"write"}
	s.Model.ID = script(t, `[{"toolCalls":[{"name":"write","arguments":{"path":"new.txt","content":"x"}}]},{"text":"done"}]`)
	a := newOpened(t, s, env(&stderr))
	leaf := prompt(t, a, "write")
	got := a.Changes().List(s.Cwd)
	if len(got) != 1 || got[0].Path != "new.txt" {
		t.Errorf("changes %+v", got)
	}
	if _, err := a.Reopen(assemble.Want{Leaf: leaf}); err != nil {
		t.Fatal(err)
	}
	if got := a.Changes().List(s.Cwd); len(got) != 0 {
		t.Errorf("a new Runtime's changes %+v", got)
	}
}
