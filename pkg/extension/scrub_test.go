package extension

import (
	"context"
	"strings"
	"testing"

	"gopi/pkg/tools"
)

const hookKey = "sk-proj-LEAKLEAKLEAK"

// TestHookOutputScrubbed pins that a key a command hook prints reaches
// no reason, replaced output or diagnostic; also when the reason's
// preview would cut the key in half, leaving what no later scrub finds.
func TestHookOutputScrubbed(t *testing.T) {
	t.Parallel()
	secrets := tools.NewSecrets(tools.Secret{Name: "OPENAI_API_KEY", Value: hookKey})
	dir := hookDir(t, map[string]string{
		"deny.sh":  `head -c 1990 /dev/zero | tr '\0' x >&2; echo "` + hookKey + `" >&2; exit 2`,
		"after.sh": `echo '{"hookSpecificOutput":{"updatedToolOutput":"key: ` + hookKey + `"}}'`,
	})
	env := testEnv(dir)
	env.Secrets = secrets
	h := NewHost(Options{Secrets: secrets})
	cfg := HooksConfig{BeforeTool: []CommandHook{{Matcher: "bash", Command: "./deny.sh"}}, AfterTool: []CommandHook{{Matcher: "read", Command: "./after.sh"}}}
	if err := h.AddCommandHooks(cfg, env); err != nil {
		t.Fatal(err)
	}
	denied := callTool(h, &recorder{}, "bash", `{"command":"ls"}`)
	replaced := callTool(h, &recorder{}, "read", `{"path":"x"}`)
	// a Go hook's panic: its diagnostic is scrubbed here, the reason it
	// gives the model by the loop, as every result
	h.BeforeTool("panicky", func(context.Context, Call) Decision { panic("found " + hookKey) })
	callTool(h, &recorder{}, "write", `{}`)
	if !denied.IsError || !strings.Contains(resultText(denied), "xxx[REDACTED:") {
		t.Errorf("denied: %q", resultText(denied))
	}
	if got := resultText(replaced); !strings.HasPrefix(got, "key: [REDACTED:OPENAI_API_KEY]") {
		t.Errorf("replaced output: %q", got)
	}
	var diags []string
	for _, d := range h.Diagnostics() {
		diags = append(diags, d.String())
	}
	for _, s := range append(diags, resultText(denied), resultText(replaced)) {
		if strings.Contains(s, "sk-proj") {
			t.Errorf("the key leaked: %q", s)
		}
	}
	if len(diags) == 0 || !strings.Contains(diags[0], "found [REDACTED:OPENAI_API_KEY]") {
		t.Errorf("diagnostics %q", diags)
	}
}

// TestWrapPassesSecretsOn: the loop finds the registry's secrets through
// the hooks' wrapper.
func TestWrapPassesSecretsOn(t *testing.T) {
	t.Parallel()
	secrets := tools.NewSecrets(tools.Secret{Name: "K", Value: hookKey})
	reg, err := tools.NewRegistry(tools.Env{Cwd: t.TempDir(), Secrets: secrets})
	if err != nil {
		t.Fatal(err)
	}
	wrapped := NewHost(Options{}).Wrap(reg)
	if h, ok := wrapped.(interface{ Secrets() *tools.Secrets }); !ok || h.Secrets() != secrets {
		t.Fatalf("wrapper hides the registry's secrets")
	}
	if h := NewHost(Options{}).Wrap(&recorder{}).(interface{ Secrets() *tools.Secrets }); h.Secrets() != nil {
		t.Errorf("secrets made up for an executor without them")
	}
}
