package cmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

// The settings store keeps the precedence and merging gopi's settings
// had: set values over given flags over files over flag defaults, keys
// without case at every depth, objects merged across files, and a file's
// plain value never replacing an object.
func TestLayersPrecedenceAndMerge(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("model", "", "")
	fs.Int("max-steps", 25, "")
	fs.StringSlice("tools", []string{"read", "write"}, "")
	fs.Duration("timeout", 0, "")
	l := newLayers()
	for key, flag := range map[string]string{"model": "model", "maxSteps": "max-steps", "tools": "tools", "timeout": "timeout"} {
		if err := l.BindPFlag(key, fs.Lookup(flag)); err != nil {
			t.Fatal(err)
		}
	}
	_ = l.MergeConfigMap(map[string]any{"Providers": map[string]any{"Local": map[string]any{"baseUrl": "a", "api": "openai"}}, "retry": map[string]any{"maxAttempts": 3.0}})
	_ = l.MergeConfigMap(map[string]any{"providers": map[string]any{"local": map[string]any{"BASEURL": "b"}}, "retry": "plain", "maxSteps": 7.0})

	want := map[string]any{"local": map[string]any{"baseurl": "b", "api": "openai"}}
	if diff := cmp.Diff(want, l.Get("PROVIDERS")); diff != "" {
		t.Errorf("providers merged (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"maxattempts": 3.0}, l.Get("retry")); diff != "" {
		t.Errorf("a plain value replaced an object (-want +got):\n%s", diff)
	}
	if got := l.GetString("maxSteps"); got != "7" || !l.IsSet("maxsteps") || !l.InConfig("maxSteps") {
		t.Errorf("maxSteps from a file = %q, set %v", got, l.IsSet("maxsteps"))
	}
	if diff := cmp.Diff([]string{"read", "write"}, l.Get("tools")); diff != "" || l.IsSet("tools") || l.InConfig("tools") {
		t.Errorf("tools flag default (-want +got):\n%s", diff)
	}
	if got := l.GetString("timeout"); got != "0s" {
		t.Errorf("timeout flag default = %q", got)
	}
	if err := fs.Parse([]string{"--max-steps", "9", "--tools", "bash,ls"}); err != nil {
		t.Fatal(err)
	}
	if got := l.Get("maxSteps"); got != 9 {
		t.Errorf("a given flag = %#v, want 9 over the file's 7", got)
	}
	if diff := cmp.Diff([]string{"bash", "ls"}, l.Get("tools")); diff != "" {
		t.Errorf("tools given (-want +got):\n%s", diff)
	}
	l.Set("maxSteps", "11")
	if got := l.GetString("MAXSTEPS"); got != "11" {
		t.Errorf("a set value = %q, want it over the flag", got)
	}
	if l.Get("model") != "" || l.IsSet("model") {
		t.Errorf("model: %#v, set %v; want the flag's empty default, not set", l.Get("model"), l.IsSet("model"))
	}
	l.Set("provider", nil)
	if l.IsSet("provider") || l.GetString("provider") != "" {
		t.Error("a nil value counts as set")
	}
}
