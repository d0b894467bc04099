package cmd

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"gopi/pkg/loop"
	"gopi/pkg/mode"
	"gopi/pkg/settings"
	"gopi/pkg/structured"
	"gopi/pkg/tools"
)

// execute runs c on args without output and reports whether its run
// function was called.
func execute(t *testing.T, c *cobra.Command, args ...string) (ran bool, err error) {
	t.Helper()
	run := c.RunE
	c.RunE = func(c *cobra.Command, args []string) error { ran = true; return run(c, args) }
	c.SetArgs(args)
	c.SetOut(io.Discard)
	c.SetErr(io.Discard)
	c.SilenceErrors, c.SilenceUsage = true, true
	return ran, c.Execute()
}

// defaultAgent are agentOptions as no flag given leaves them.
func defaultAgent(args ...string) agentOptions {
	return agentOptions{
		toolFlags:     toolFlags{tools: tools.DefaultNames},
		limitFlags:    limitFlags{maxSteps: loop.DefaultMaxSteps},
		resourceFlags: resourceFlags{fsync: "always"},
		sandboxFlags:  sandboxFlags{added: true},
		args:          args,
	}
}

func defaultOutput() outputFlags {
	return outputFlags{mode: setString{v: string(mode.Print)}, maxBytes: settings.DefaultMaxPromptBytes, outputRetries: structured.DefaultRetries}
}

// everyAgentFlag gives each flag of agentOptions once, and want is what
// it binds.
var everyAgentFlag = []string{
	"--session", "S", "--leaf", "L", "-c", "--no-session", "--fork", "F", "--session-id", "ID", "--session-dir", "D", "-n", "N",
	"--provider", "P", "--model", "M", "--base-url", "U", "--api-key", "K", "--api-key-file", "KF", "--thinking", "high",
	"--tools", "read,bash", "--exclude-tools", "ls", "--no-tools", "--mcp-config", "m.json", "--no-mcp",
	"--max-steps", "3", "--max-tokens", "100", "--max-budget-tokens", "1000", "--max-budget-usd", "0.5",
	"--system-prompt", "SP", "--append-system-prompt", "ASP", "--fsync", "never", "--cwd", "W", "--bare",
	"--no-skills", "--no-prompt-templates", "--no-context-files", "--no-themes",
	"--sandbox", "off", "--allow-network", "--add-dir", "A", "--allow-tools", "Bash(git *)", "--deny-tools", "Read(x)",
}

func everyAgentWant(args ...string) agentOptions {
	return agentOptions{
		sessionFlags: sessionFlags{session: "S", leaf: "L", cont: true, noSession: true, fork: "F", sessionID: "ID", sessionDir: "D",
			name: setString{v: "N", set: true}},
		modelFlags: modelFlags{provider: "P", model: "M", baseURL: "U", apiKey: "K", keyFile: "KF", thinking: "high"},
		toolFlags:  toolFlags{tools: []string{"read", "bash"}, excludeTools: []string{"ls"}, noTools: true, mcpConfig: []string{"m.json"}, noMCP: true},
		limitFlags: limitFlags{maxSteps: 3, maxTokens: 100, maxBudgetTokens: "1000", maxBudgetUSD: "0.5"},
		resourceFlags: resourceFlags{systemPrompt: "SP", appendSystemPrompt: "ASP", fsync: "never", cwd: "W", bare: true,
			noSkills: true, noTempl: true, noContext: true, noThemes: true},
		sandboxFlags: sandboxFlags{added: true, sandbox: setString{v: "off", set: true}, allowNetwork: true, addDirs: []string{"A"}, allowTools: []string{"Bash(git *)"}, denyTools: []string{"Read(x)"}},
		args:         args,
	}
}

func Test_NewRunCmd(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want runOptions
	}{
		{"defaults", []string{"hello"}, runOptions{agentOptions: defaultAgent("hello"), outputFlags: defaultOutput()}},
		{"every agent flag", append(append([]string{}, everyAgentFlag...), "p1", "p2"),
			runOptions{agentOptions: everyAgentWant("p1", "p2"), outputFlags: defaultOutput()}},
		{"output flags", []string{"--mode", "events", "--json", "-p", "--timeout", "2m", "--no-stdin", "--print-system-prompt",
			"--max-prompt-bytes", "7", "--output-schema", "s.json", "--output-retries", "5", "x"},
			runOptions{agentOptions: defaultAgent("x"), outputFlags: outputFlags{mode: setString{v: "events", set: true}, json: true, print: true,
				timeout: 2 * time.Minute, noStdin: true, printSP: true, maxBytes: 7, outputSchema: "s.json", outputRetries: 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *runOptions
			c := newRunCmd(&System{}, func(_ *cobra.Command, o *runOptions) error { got = o; return nil })
			if _, err := execute(t, c, tt.args...); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Fatalf("options\n got %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func Test_NewChatCmd(t *testing.T) {
	var got *chatOptions
	c := newChatCmd(&System{}, func(_ *cobra.Command, o *chatOptions) error { got = o; return nil })
	args := append(append([]string{}, everyAgentFlag...), "--no-color", "why", "now")
	if _, err := execute(t, c, args...); err != nil {
		t.Fatal(err)
	}
	want := chatOptions{agentOptions: everyAgentWant("why", "now"), noColor: true}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("options\n got %+v\nwant %+v", *got, want)
	}
}

func Test_NewRPCCmd(t *testing.T) {
	var got *rpcOptions
	c := newRPCCmd(&System{}, func(_ *cobra.Command, o *rpcOptions) error { got = o; return nil })
	if _, err := execute(t, c, everyAgentFlag...); err != nil {
		t.Fatal(err)
	}
	want := rpcOptions{agentOptions: everyAgentWant()}
	want.args = nil
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("options\n got %+v\nwant %+v", *got, want)
	}
}

func Test_NewACPCmd(t *testing.T) {
	var got *acpOptions
	c := newACPCmd(&System{}, func(_ *cobra.Command, o *acpOptions) error { got = o; return nil })
	if _, err := execute(t, c, "--provider", "faux", "--tools", "read"); err != nil {
		t.Fatal(err)
	}
	want := acpOptions{agentOptions: defaultAgent()}
	want.provider, want.tools, want.args = "faux", []string{"read"}, nil
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("options\n got %+v\nwant %+v", *got, want)
	}
}

// Run's own flags are unknown to chat, rpc and acp: each refuses them as
// pflag refuses any unknown flag, before running.
func Test_NewCmdRefusesRunOnlyFlags(t *testing.T) {
	never := func() error { t.Error("the command ran"); return nil }
	cmds := map[string]func() *cobra.Command{
		"chat": func() *cobra.Command {
			return newChatCmd(&System{}, func(*cobra.Command, *chatOptions) error { return never() })
		},
		"rpc": func() *cobra.Command {
			return newRPCCmd(&System{}, func(*cobra.Command, *rpcOptions) error { return never() })
		},
		"acp": func() *cobra.Command {
			return newACPCmd(&System{}, func(*cobra.Command, *acpOptions) error { return never() })
		},
	}
	flags := [][]string{
		{"--output-schema", "s.json"}, {"--output-retries", "3"}, {"--mode", "json"}, {"--json"}, {"-p"},
		{"--timeout", "1m"}, {"--no-stdin"}, {"--print-system-prompt"}, {"--max-prompt-bytes", "10"},
	}
	for name, newCmd := range cmds {
		for _, f := range flags {
			t.Run(name+" "+f[0], func(t *testing.T) {
				ran, err := execute(t, newCmd(), f...)
				if ran || err == nil {
					t.Fatalf("%s %v: ran %v, err %v", name, f, ran, err)
				}
				if !strings.Contains(err.Error(), "unknown") || !strings.Contains(err.Error(), strings.TrimLeft(f[0], "-")) {
					t.Fatalf("%s %v: %v, want an unknown flag", name, f, err)
				}
			})
		}
	}
}

// Every flag of runOnlyFlags is one run has and chat has not: bare gopi
// given one runs.
func TestRunOnlyFlagsAreRunsOwn(t *testing.T) {
	run := newRunCmd(&System{}, nil).Flags()
	chat := newChatCmd(&System{}, nil).Flags()
	for _, n := range runOnlyFlags {
		if run.Lookup(n) == nil || chat.Lookup(n) != nil {
			t.Errorf("--%s: on run %v, on chat %v", n, run.Lookup(n) != nil, chat.Lookup(n) != nil)
		}
	}
	n := 0
	run.VisitAll(func(f *pflag.Flag) {
		if chat.Lookup(f.Name) == nil {
			n++
		}
	})
	if n != len(runOnlyFlags) {
		t.Errorf("run has %d flags chat has not; runOnlyFlags names %d", n, len(runOnlyFlags))
	}
}
