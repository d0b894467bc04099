package settings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// The project's settings files are read from the repository root down to
// the working folder, the nearest winning; $GOPI_HOME's is read once
// even when it is the project's .gopi.
func TestFilesFromTheRootDown(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "sub")
	for _, d := range []string{filepath.Join(root, ".git"), cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(root, "home")
	rootFile := filepath.Join(root, ".gopi", "settings.json")
	subFile := filepath.Join(cwd, ".gopi", "settings.json")
	if got, want := Files(home, cwd), []string{filepath.Join(home, "settings.json"), rootFile, subFile}; !slices.Equal(got, want) {
		t.Errorf("Files %q, want %q", got, want)
	}
	if got, want := Files(filepath.Join(root, ".gopi"), cwd), []string{rootFile, subFile}; !slices.Equal(got, want) {
		t.Errorf("home in the project: %q, want %q", got, want)
	}
	write(t, rootFile, `{"thinking": "low", "model": "root"}`)
	write(t, subFile, `{"thinking": "high"}`)
	s, err := Load(Options{Home: home, Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	if s.String("thinking") != "high" || s.String("model") != "root" || !slices.Equal(s.Files(), []string{rootFile, subFile}) || s.Home() != home {
		t.Errorf("thinking %q model %q files %q", s.String("thinking"), s.String("model"), s.Files())
	}
}

// A settings file that is no regular file is refused, naming it.
func TestSettingsFileRefused(t *testing.T) {
	p := newPlace(t, "", "")
	if err := os.MkdirAll(p.projectFile, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := p.try(runFlags(), false)
	usage(t, "a folder", err, `settings `+p.projectFile+` is a folder, not a regular file: make it a regular file of at most 1 MiB, or remove it`)
}

// Origins of values merged across files, of a key inside an object, and
// of a value a nearer file cleared.
func TestOriginsOfObjects(t *testing.T) {
	p := newPlace(t, `{"retry": {"maxAttempts": 2}, "compaction": {"enabled": false}, "telemetry": {"serviceName": "x"}}`,
		`{"retry": {"baseDelayMs": 1}, "compaction": null}`)
	s := p.load(t, runFlags(), false)
	for key, want := range map[string]string{
		"retry":             `"retry" in ` + p.homeFile + " or " + p.projectFile,
		"retry.maxAttempts": `"retry.maxAttempts" in ` + p.homeFile + " or " + p.projectFile,
		"compaction":        `"compaction" in ` + p.projectFile,
		"telemetry":         `"telemetry" in ` + p.homeFile,
		"subagents":         `setting "subagents"`,
		"thinking":          "--thinking",
	} {
		if got := s.Origin(key); got != want {
			t.Errorf("Origin(%q) = %q, want %q", key, got, want)
		}
	}
	if s.Rank("thinking") != FromDefault || s.Rank("retry") != FromFile {
		t.Errorf("ranks %d %d", s.Rank("thinking"), s.Rank("retry"))
	}
	// A variable set to "" is not given.
	p.env = map[string]string{"GOPI_THINKING": ""}
	if s := p.load(t, runFlags(), false); s.Origin("thinking") != "--thinking" || s.Rank("thinking") != FromDefault {
		t.Errorf("an empty variable: %s", s.Origin("thinking"))
	}
}

// Secrets add up across files, each name once, from lists and
// comma-separated strings, the key matched without regard to case.
func TestSecretsAddUp(t *testing.T) {
	p := newPlace(t, `{"secrets": "A, B,,A", "model": "m"}`, `{"Secrets": ["C", "A"], "tools": ["read"]}`)
	s := p.load(t, runFlags(), false)
	s.AddSecret("  ")
	s.AddSecret(" D ")
	s.AddSecret("C")
	if got := s.Secrets(); !slices.Equal(got, []string{"A", "B", "C", "D"}) {
		t.Errorf("secrets %q", got)
	}
}

// Typed reads: Integer is strict, List takes a JSON list or a
// comma-separated string, Decode leaves dst alone when unset.
func TestTypedReads(t *testing.T) {
	p := newPlace(t, "", `{"secrets": ["a", "b"], "maxSteps": " 12 "}`)
	p.env = map[string]string{"GOPI_TOOLS": " x, ,y "}
	s := p.load(t, runFlags(), false)
	if n, err := s.Integer("maxSteps"); n != 12 || err != nil {
		t.Errorf("Integer: %d %v", n, err)
	}
	if n, err := s.Integer("maxTokens"); n != 0 || err != nil {
		t.Errorf("Integer of nothing: %d %v", n, err)
	}
	if got := s.List("secrets"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("List of a JSON list: %q", got)
	}
	if got := s.List("tools"); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("List of a string: %q", got)
	}
	if got := s.List("retry"); got != nil {
		t.Errorf("List of nothing: %q", got)
	}
	dst := map[string]int{"kept": 1}
	if err := s.Decode("retry", &dst); err != nil || dst["kept"] != 1 {
		t.Errorf("Decode of nothing: %v %v", dst, err)
	}
	if !s.HasFlag("max-steps") || s.HasFlag("no-such-flag") {
		t.Errorf("HasFlag")
	}
}

// PFlags hands a pflag set to Load: a flag given outranks its variable,
// one not given does not.
func TestPFlags(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.Int("max-steps", 25, "")
	fs.String("thinking", "", "")
	fs.StringSlice("tools", nil, "")
	if err := fs.Parse([]string{"--max-steps=3", "--tools=ls,grep"}); err != nil {
		t.Fatal(err)
	}
	s, err := Load(Options{Flags: PFlags(fs), Getenv: func(k string) string {
		return map[string]string{"GOPI_MAX_STEPS": "9", "GOPI_THINKING": "low"}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}
	if s.String("maxSteps") != "3" || s.Origin("maxSteps") != "--max-steps" || s.String("thinking") != "low" || !slices.Equal(s.List("tools"), []string{"ls", "grep"}) {
		t.Errorf("maxSteps %q from %s, thinking %q, tools %q", s.String("maxSteps"), s.Origin("maxSteps"), s.String("thinking"), s.List("tools"))
	}
	if PFlags(fs).Lookup("model") != nil {
		t.Errorf("a flag the command lacks is found")
	}
	f := PFlags(fs).Lookup("max-steps")
	if f.Name() != "max-steps" || f.ValueString() != "3" || f.ValueType() != "int" || !f.HasChanged() {
		t.Errorf("flag %s %s %s %v", f.Name(), f.ValueString(), f.ValueType(), f.HasChanged())
	}
}

func TestGopiHome(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	wd, _ := os.Getwd()
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"GOPI_HOME": "/g", "HOME": "/h"}, "/g"},
		{map[string]string{"GOPI_HOME": "rel"}, filepath.Join(wd, "rel")},
		{map[string]string{"HOME": "/h"}, "/h/.gopi"},
	} {
		if got, err := GopiHome(env(c.env)); got != c.want || err != nil {
			t.Errorf("GopiHome(%v) = %q %v", c.env, got, err)
		}
	}
	_, err := GopiHome(env(nil))
	usage(t, "no home", err, "cannot find the home folder: set HOME or GOPI_HOME")
}

func TestSaid(t *testing.T) {
	var s Said
	if !s.First("a") || s.First("a") || !s.First("b") {
		t.Errorf("Said remembers wrongly")
	}
}

// Unknown keys: matched without regard to case, in providers and their
// models, with the closest key when one is near.
func TestUnknownKeyNames(t *testing.T) {
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(`{"MODEL": "x", "$schema": "s", "thinkng": "low", "tool": "read", "mod": 1, "xyzw": 1, "modl": 1,
		"PROVIDERS": {"a": {"API": "openai", "baseurl": "x", "modls": [], "Models": [{"ID": "q", "prices": {}, "ctx": 1}]}, "b": {"models": "bad"}}}`), &obj); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`unknown key "providers.a.Models[0].ctx"`,
		`unknown key "providers.a.modls" (did you mean "models"?)`,
		`unknown key "mod"`,
		`unknown key "modl" (did you mean "model"?)`,
		`unknown key "thinkng" (did you mean "thinking"?)`,
		`unknown key "tool" (did you mean "tools"?)`,
		`unknown key "xyzw"`,
	}
	if got := unknownKeys(obj); !slices.Equal(got, want) {
		t.Errorf("unknownKeys:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	obj = map[string]json.RawMessage{"providers": json.RawMessage(`[1]`)}
	if got := unknownKeys(obj); got != nil {
		t.Errorf("providers of the wrong shape: %q", got)
	}
	for _, c := range []struct {
		key   string
		known []string
		want  string
	}{
		{"apiKey", providerKeys, "apiKeyEnv"},        // cut short
		{"apiK", []string{"apiKeyEnv"}, "apiKeyEnv"}, // four letters are enough to be cut short
		{"api", []string{"apiKeyEnv"}, ""},           // three are not
		{"baseurl", providerKeys, "baseUrl"},
		{"basUrl", providerKeys, "baseUrl"},
		{"bsUrl", providerKeys, ""},                    // two slips in five letters: too far
		{"thinkign", []string{"thinking"}, "thinking"}, // two slips in eight letters
		{"thnkign", []string{"thinking"}, ""},          // three
		// A long key cut short: three or more letters missing are no slip,
		// but the key it begins is named (it was not, from 12 letters on).
		{"maxBudgetTok", knownSettingsKeys(), "maxBudgetTokens"},
		{"appendSystem", knownSettingsKeys(), "appendSystemPrompt"},
		{"maxBudgetTkn", knownSettingsKeys(), ""},
		{"colourScheme", knownSettingsKeys(), ""},
	} {
		if got := closest(c.key, c.known); got != c.want {
			t.Errorf("closest(%q) = %q, want %q", c.key, got, c.want)
		}
	}
}

// The unknown keys of a file are named by the first Load of an
// invocation (the first that Said lets), not again by a later one; a
// new invocation names them again.
func TestUnknownKeysSaidOnce(t *testing.T) {
	p := newPlace(t, "", `{"theme": "dark"}`)
	want := "gopi: warning: settings " + p.projectFile + `: unknown key "theme" is not a gopi setting and is ignored` + "\n"
	said := &Said{}
	for i, wantNow := range []string{want, ""} {
		p.stderr.Reset()
		if _, err := Load(Options{Home: p.home, Cwd: p.cwd, Stderr: &p.stderr, Said: said}); err != nil {
			t.Fatal(err)
		}
		if p.stderr.String() != wantNow {
			t.Errorf("load %d: stderr %q, want %q", i+1, p.stderr.String(), wantNow)
		}
	}
	p.stderr.Reset()
	if _, err := p.try(nil, false); err != nil || p.stderr.String() != want {
		t.Errorf("a new invocation: stderr %q %v", p.stderr.String(), err)
	}
}

// A settings file that cannot be read is a usage error naming it.
func TestSettingsFileUnreadable(t *testing.T) {
	p := newPlace(t, "", "")
	if err := os.MkdirAll(filepath.Dir(p.projectFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p.projectFile, p.projectFile); err != nil { // a loop
		t.Skip(err)
	}
	_, err := p.try(nil, false)
	usage(t, "a link loop", err, "read settings "+p.projectFile+": stat "+p.projectFile+": too many levels of symbolic links")
}

// Load without a Stderr, Getenv or Flags reads the files and says
// nothing (an unknown key's warning goes nowhere).
func TestLoadWithoutWriters(t *testing.T) {
	p := newPlace(t, "", `{"theme": "dark", "thinking": "low"}`)
	s, err := Load(Options{Home: p.home, Cwd: p.cwd})
	if err != nil || s.String("thinking") != "low" || s.HasFlag("thinking") {
		t.Errorf("thinking %q %v", s.String("thinking"), err)
	}
}
