package settings

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/viper"

	"gopi/pkg/ai"
	"gopi/pkg/assemble"
	"gopi/pkg/tools"
)

// flag is a command's flag as cmd hands it over.
type flag struct {
	name, value, typ string
	changed          bool
}

func (f *flag) HasChanged() bool    { return f.changed }
func (f *flag) Name() string        { return f.name }
func (f *flag) ValueString() string { return f.value }
func (f *flag) ValueType() string   { return f.typ }

type flags []*flag

func (fs flags) Lookup(name string) viper.FlagValue {
	for _, f := range fs {
		if f.name == name {
			return f
		}
	}
	return nil
}

// runFlags are a few of gopi run's flags with their defaults; given sets
// values as the user gave them ("max-steps=3").
func runFlags(given ...string) flags {
	fs := flags{
		{name: "provider", typ: "string"},
		{name: "model", typ: "string"},
		{name: "thinking", typ: "string"},
		{name: "max-steps", value: "25", typ: "int"},
		{name: "timeout", value: "0s", typ: "duration"},
		{name: "tools", value: "[read,bash,edit,write]", typ: "stringSlice"},
		{name: "sandbox", typ: "string"},
		{name: "allow-network", value: "false", typ: "bool"},
		{name: "add-dir", value: "[]", typ: "stringArray"},
		{name: "allow-tools", value: "[]", typ: "stringArray"},
		{name: "deny-tools", value: "[]", typ: "stringArray"},
	}
	for _, g := range given {
		name, value, _ := strings.Cut(g, "=")
		for _, f := range fs {
			if f.name == name {
				f.value, f.changed = value, true
			}
		}
	}
	return fs
}

// place is a home, a project inside it and an environment.
type place struct {
	home, cwd, homeFile, projectFile string
	env                              map[string]string
	stderr                           bytes.Buffer
}

func newPlace(t *testing.T, home, project string) *place {
	t.Helper()
	root := t.TempDir()
	p := &place{home: filepath.Join(root, "gopihome"), cwd: filepath.Join(root, "work"), env: map[string]string{}}
	p.homeFile = filepath.Join(p.home, "settings.json")
	p.projectFile = filepath.Join(p.cwd, ".gopi", "settings.json")
	write(t, p.homeFile, home)
	write(t, p.projectFile, project)
	if err := os.MkdirAll(p.cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if body == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (p *place) load(t *testing.T, fs flags, bare bool) *Settings {
	t.Helper()
	s, err := p.try(fs, bare)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (p *place) try(fs flags, bare bool) (*Settings, error) {
	return Load(Options{Home: p.home, Cwd: p.cwd, Bare: bare, Flags: fs,
		Getenv: func(k string) string { return p.env[k] }, Stderr: &p.stderr})
}

// Precedence, highest first: a flag given, its GOPI_* variable, the
// project's file, the home file, the flag's default.
func TestPrecedence(t *testing.T) {
	p := newPlace(t, `{"provider":"faux","thinking":"low","maxSteps":7}`, `{"thinking":"medium"}`)
	check := func(name string, fs flags, thinking string, steps int) {
		t.Helper()
		r, err := p.load(t, fs, false).readRun(runRequest{Cwd: p.cwd})
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Thinking) != thinking || r.MaxSteps != steps {
			t.Errorf("%s: thinking %q steps %d, want %q %d", name, r.Thinking, r.MaxSteps, thinking, steps)
		}
	}
	check("project over home", runFlags(), "medium", 7)
	p.env = map[string]string{"GOPI_THINKING": "high", "GOPI_MAX_STEPS": "9"}
	check("variable over project", runFlags(), "high", 9)
	check("flag over variable", runFlags("thinking=xhigh", "max-steps=3"), "xhigh", 3)
	p.env = nil
	q := newPlace(t, "", "")
	check = func(name string, fs flags, thinking string, steps int) {
		t.Helper()
		r, err := q.load(t, fs, false).readRun(runRequest{Cwd: q.cwd})
		if err != nil || string(r.Thinking) != thinking || r.MaxSteps != steps {
			t.Errorf("%s: thinking %q steps %d (%v), want %q %d", name, r.Thinking, r.MaxSteps, err, thinking, steps)
		}
	}
	check("the flag's default", runFlags(), "", 25)
}

// Every value says where it came from, in the words the messages use.
func TestOrigin(t *testing.T) {
	p := newPlace(t, `{"model":"home-model","retry":{"maxAttempts":2},"timeout":"1s"}`,
		`{"thinking":"low","retry":{"baseDelayMs":1},"timeout":"2s"}`)
	p.env = map[string]string{"GOPI_PROVIDER": "faux", "GOPI_MAX_STEPS": "4"}
	s := p.load(t, runFlags("max-steps=3"), false)
	for key, want := range map[string]string{
		"maxSteps":  "--max-steps", // the flag over its variable
		"provider":  "GOPI_PROVIDER",
		"thinking":  `"thinking" in ` + p.projectFile,
		"model":     `"model" in ` + p.homeFile,
		"timeout":   `"timeout" in ` + p.projectFile, // replaced, not merged
		"retry":     `"retry" in ` + p.homeFile + " or " + p.projectFile,
		"maxTokens": "--max-tokens", // a default
		"quirks":    `setting "quirks"`,
	} {
		if got := s.Origin(key); got != want {
			t.Errorf("Origin(%q) = %q, want %q", key, got, want)
		}
	}
	for key, want := range map[string]Source{"maxSteps": FromFlag, "provider": FromEnv, "thinking": FromFile, "model": FromFile, "maxTokens": FromDefault} {
		if got := s.Rank(key); got != want {
			t.Errorf("Rank(%q) = %d, want %d", key, got, want)
		}
	}
	if got := s.Files(); !slices.Equal(got, []string{p.homeFile, p.projectFile}) {
		t.Errorf("files %q", got)
	}
	// A value's message names its origin.
	p.env = map[string]string{"GOPI_MAX_STEPS": "0"}
	_, err := p.load(t, runFlags(), false).readRun(runRequest{Cwd: p.cwd})
	if want := `GOPI_MAX_STEPS "0": give a whole number above 0`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	write(t, p.projectFile, `{"maxSteps":"x"}`)
	p.env = nil
	_, err = p.load(t, runFlags(), false).readRun(runRequest{Cwd: p.cwd})
	if want := `"maxSteps" in ` + p.projectFile + ` "x": give a whole number`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// Bare reads no settings file; flags and variables still count.
func TestBareReadsNoFile(t *testing.T) {
	p := newPlace(t, `{"model":"m"}`, `{"thinking":"high"}`)
	p.env = map[string]string{"GOPI_PROVIDER": "faux"}
	s := p.load(t, runFlags(), true)
	if s.String("thinking") != "" || s.String("model") != "" || s.String("provider") != "faux" || len(s.Files()) != 0 {
		t.Errorf("bare: thinking %q model %q provider %q files %q", s.String("thinking"), s.String("model"), s.String("provider"), s.Files())
	}
}

// Objects merge key by key across files without regard to case; a plain
// value never replaces an object; null clears what a farther file set.
func TestMerge(t *testing.T) {
	p := newPlace(t, `{"Providers":{"Local":{"baseUrl":"a","api":"openai"}},"retry":{"maxAttempts":3},"model":"missing.json","tools":"frobnicate"}`,
		`{"providers":{"local":{"BASEURL":"b"}},"retry":"plain","model":null,"tools":null}`)
	_, err := p.try(runFlags(), false)
	if err == nil || !strings.Contains(err.Error(), `"retry" in `+p.projectFile+` is a string ("plain"): give an object`) {
		t.Fatalf("a plain value over an object: %v", err)
	}
	write(t, p.projectFile, `{"providers":{"local":{"BASEURL":"b"}},"model":null,"tools":null}`)
	s := p.load(t, runFlags(), false)
	if got := s.DeclaredProviders(); len(got) != 1 || got["local"].API != "openai" || got["local"].BaseURL != "b" {
		t.Errorf("providers merged: %+v", got)
	}
	if s.String("model") != "" || s.Rank("model") != FromDefault {
		t.Errorf("null left model %q", s.String("model"))
	}
	if got, err := s.Tools(false, nil); err != nil || !slices.Equal(got, tools.DefaultNames) {
		t.Errorf("null tools: %q %v", got, err)
	}
}

// A value of the wrong JSON type is a usage error naming the key, the
// file and the value.
func TestWrongTypes(t *testing.T) {
	for _, c := range []struct{ project, want string }{
		{`{"provider":["faux"]}`, `"provider" in FILE is a list (["faux"]): give a provider name as a string`},
		{`{"Provider":true}`, `"Provider" in FILE is a boolean (true): give a provider name as a string`},
		{`{"tools":5}`, `"tools" in FILE is a number (5): give a list of tool names or a comma-separated string`},
		{`{"maxSteps":{"a":1}}`, `"maxSteps" in FILE is an object ({"a":1}): give a whole number above 0`},
		{`{"systemPrompt":["` + strings.Repeat("x", 200) + `"]}`, `is a list (["` + strings.Repeat("x", 35) + `…)`},
		{`{"tools":5,"model":[1]}`, `"model" in FILE is a list ([1])`},
		{`{"thinking": "low",}`, `settings FILE is not valid JSON at line 1, column 20: a key must be a quoted string ("key": value) and no comma may end an object; fix or remove it`},
	} {
		p := newPlace(t, "", c.project)
		_, err := p.try(runFlags(), false)
		var ae *assemble.Error
		if !errors.As(err, &ae) || ae.Class != ai.ClassUsage || !strings.Contains(err.Error(), strings.ReplaceAll(c.want, "FILE", p.projectFile)) {
			t.Errorf("%s: %v, want %s", c.project, err, c.want)
		}
	}
}

// Unknown keys are named on stderr with the closest known key, once per
// file per invocation.
func TestUnknownKeys(t *testing.T) {
	p := newPlace(t, `{"maxStep":3,"theme":"dark"}`, `{"providers":{"local":{"api":"openai","apiKey":"K","models":[{"id":"q","contextWindw":1}]}}}`)
	said := &Said{}
	for range 2 {
		if _, err := Load(Options{Home: p.home, Cwd: p.cwd, Flags: runFlags(), Stderr: &p.stderr, Said: said}); err != nil {
			t.Fatal(err)
		}
	}
	want := "gopi: warning: settings " + p.homeFile + `: unknown key "maxStep" (did you mean "maxSteps"?) is not a gopi setting and is ignored` + "\n" +
		"gopi: warning: settings " + p.homeFile + `: unknown key "theme" is not a gopi setting and is ignored` + "\n" +
		"gopi: warning: settings " + p.projectFile + `: unknown key "providers.local.apiKey" (did you mean "apiKeyEnv"?) is not a gopi setting and is ignored` + "\n" +
		"gopi: warning: settings " + p.projectFile + `: unknown key "providers.local.models[0].contextWindw" (did you mean "contextWindow"?) is not a gopi setting and is ignored` + "\n"
	if diff := cmp.Diff(want, p.stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

// The values of the right type read back as given, whatever their JSON
// type.
func TestRightTypesReadBack(t *testing.T) {
	p := newPlace(t, `{"tools":["read","bash"],"maxSteps":5}`, `{"tools":" ls ,grep","maxSteps":"7","maxTokens":100,"timeout":"90s"}`)
	r, err := p.load(t, runFlags(), false).readRun(runRequest{Cwd: p.cwd})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.Tools, ",") != "ls,grep" || r.MaxSteps != 7 || r.MaxTokens != 100 || r.Timeout.String() != "1m30s" {
		t.Fatalf("tools %q steps %d tokens %d timeout %v", r.Tools, r.MaxSteps, r.MaxTokens, r.Timeout)
	}
}

// List flags keep values with commas and brackets (pflag writes them as
// CSV inside brackets); --tools given replaces the files' selection.
func TestFlagsAsViperReadsThem(t *testing.T) {
	p := newPlace(t, `{"tools":["read"]}`, "")
	s := p.load(t, runFlags(`tools=[ls,grep]`), false)
	if got, err := s.Tools(false, nil); err != nil || !slices.Equal(got, []string{"ls", "grep"}) || s.Origin("tools") != "--tools" {
		t.Errorf("tools %q %v from %s", got, err, s.Origin("tools"))
	}
	sb, err := s.Sandbox(p.cwd, SandboxFlags{Mode: "read-only", ModeSet: true, Network: true, Allow: []string{"Bash(git status,git diff)", "Read(**)"}})
	if err != nil || sb.Policy.Mode != "read-only" || sb.Origin != "--sandbox" || !sb.Explicit || !sb.Policy.Network {
		t.Errorf("sandbox %+v %v", sb, err)
	}
}

func TestSplitModel(t *testing.T) {
	cases := [][4]string{
		{"", "anthropic/claude-x", "anthropic", "claude-x"},
		{"openai", "gpt-5", "openai", "gpt-5"},
		{"openai", "meta/llama", "openai", "meta/llama"}, // an explicit provider keeps slashes in ids
		{"openai", "openai/gpt-5", "openai", "gpt-5"},    // its own name is cut, whatever set it
		{"", "./script.json", "", "./script.json"},
	}
	for _, c := range cases {
		p := newPlace(t, "", "")
		p.env = map[string]string{"GOPI_PROVIDER": c[0], "GOPI_MODEL": c[1]}
		if p, id := splitModel(p.load(t, nil, false), nil); p != c[2] || id != c[3] {
			t.Errorf("splitModel(%q, %q) = %q, %q", c[0], c[1], p, id)
		}
	}
}
