package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/mode"
)

// Main runs gopi with args and returns the exit code.
func Main(args []string, sys System) (code int) {
	switch {
	case len(args) == 0 && sys.StdinTTY && sys.StdoutTTY:
		args = []string{"chat"} // bare gopi on a terminal talks
	case len(args) == 0 && !sys.StdinTTY:
		args = []string{"run"} // echo "fix it" | gopi: the prompt is on stdin
	}
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(sys.Stderr, "gopi: internal error: %v\n", p)
			code = ExitInternal
		}
	}()
	ctx := context.Background()
	if command(args) == "run" || command(args) == "chat" {
		// Only the commands that run a model trap signals: the first aborts
		// the run (the session stays consistent), a second exits at once.
		var force func()
		if m, ok := wantsJSON(args); ok && isRun(args) {
			force = forcedExitResult(&sys, mode.Mode(m))
		}
		var stop func()
		ctx, stop = signalContext(&sys, force)
		defer stop()
	}
	root := newRootCmd(&sys)
	root.SetArgs(args)
	root.SetIn(sys.Stdin)
	root.SetOut(sys.Stdout)
	root.SetErr(sys.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var rep *reported
	if errors.As(err, &rep) {
		return rep.code
	}
	class := classOf(err)
	if m, ok := wantsJSON(args); ok && isRun(args) {
		// json and events promise one result object for every invocation.
		out := mode.IO{Out: sys.Stdout, Err: sys.Stderr}
		if werr := mode.WriteFailure(out, mode.Mode(m), class, err, nil, nil, 0); werr != nil {
			return ExitInternal
		}
		return exitCode(class, err)
	}
	fmt.Fprintf(sys.Stderr, "gopi: %v\n", err)
	return exitCode(class, err)
}

// isRun reports whether the first word of args is the run command.
func isRun(args []string) bool { return command(args) == "run" }

// command returns the first word of args that is not a flag.
func command(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// forcedExitResult routes stdout through a writer that keeps lines whole
// and returns what a second interrupt runs before exiting: json and events
// promise a result object on every exit, so it writes one (reason
// aborted) and lets nothing else follow it.
func forcedExitResult(sys *System, m mode.Mode) func() {
	lw := &exitWriter{w: sys.Stdout}
	sys.Stdout = lw
	start := sys.Now()
	return func() {
		obj := mode.FailureObject(ai.ClassAborted, errors.New("interrupted again: exited at once; the session keeps what was written before"),
			nil, sys.Now().Sub(start).Milliseconds())
		obj.Reason = string(loop.ReasonAborted)
		if m == mode.JSON || m == mode.Events {
			b, _ := ai.MarshalNoEscape(obj)
			lw.last(append(b, '\n'))
		}
	}
}

// exitWriter writes each Write whole, one at a time; after last, nothing.
// It notes when the run's own result object went out, so that an
// interrupt arriving after it adds no second one.
type exitWriter struct {
	mu        sync.Mutex
	w         io.Writer
	closed    bool
	hadResult bool
}

func (e *exitWriter) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return len(p), nil
	}
	e.hadResult = e.hadResult || bytes.HasPrefix(p, []byte(`{"type":"result"`))
	return e.w.Write(p)
}

func (e *exitWriter) last(p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed && !e.hadResult {
		_, _ = e.w.Write(p)
	}
	e.closed = true
}

// signalContext cancels on the first SIGINT or SIGTERM (the run aborts
// and the session stays consistent); a second one runs force (if any) and
// exits at once.
func signalContext(sys *System, force func()) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	if !sys.Signals {
		return ctx, cancel
	}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
		case <-done:
			return
		}
		select {
		case <-ch:
			fmt.Fprintln(sys.Stderr, "gopi: interrupted again: exiting at once")
			if force != nil {
				force()
			}
			exit := sys.Exit
			if exit == nil {
				exit = os.Exit
			}
			exit(ExitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
}

func newRootCmd(sys *System) *cobra.Command {
	root := &cobra.Command{
		Use:           "gopi",
		Short:         "A headless coding agent in one binary",
		Long:          "gopi sends a prompt to a model that reads, edits and runs things through tools,\nand records every run in a session that later runs can resume from any entry.",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v (see %s --help)", err, c.CommandPath())
	})
	root.AddCommand(newRunCmd(sys), newChatCmd(sys), newVersionCmd(sys), newModelsCmd(sys), newSessionCmd(sys), newContextCmd(sys))
	root.SetHelpCommand(newHelpCmd())
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			refuseUnknownSubcommand(c)
		}
	}
	usageArgs(root)
	return root
}

// refuseUnknownSubcommand makes a command group (one that only holds
// subcommands) print its help when called alone and refuse an unknown
// subcommand as a usage error: without a Run of its own, cobra printed the
// help for "gopi session bogus" and exited 0.
func refuseUnknownSubcommand(c *cobra.Command) {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			var names []string
			for _, sub := range c.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			return usageErr("unknown command %q for %s (use %s)", args[0], c.CommandPath(), strings.Join(names, ", "))
		}
		return c.Help()
	}
}

// newHelpCmd is "gopi help [command]"; an unknown topic is a usage error.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 || (target == c.Root() && len(args) > 0) {
				return usageErr("unknown help topic %q (see gopi --help)", strings.Join(args, " "))
			}
			return target.Help()
		},
	}
}

// wantsJSON reports whether the raw arguments ask for json or events
// output, so that even a flag error is reported as a result object.
func wantsJSON(args []string) (string, bool) {
	for i, a := range args {
		switch {
		case a == "--json" || a == "--json=true" || a == "--json=1":
			return "json", true
		case a == "--mode=json" || a == "--mode=events":
			return strings.TrimPrefix(a, "--mode="), true
		case a == "--mode" && i+1 < len(args) && slices.Contains([]string{"json", "events"}, args[i+1]):
			return args[i+1], true
		}
	}
	return "", false
}
