package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

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
		if isRun(args) {
			m, _ := wantsJSON(args)
			sys.forced = newForcedExit(&sys, mode.Mode(m))
			force = func() { sys.forced.write(sys.Now()) }
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

// forcedExit is what a second interrupt of gopi run writes before it
// exits at once: json and events promise a result object on every exit,
// so it writes one (reason aborted, with the session as far as it got)
// unless the run's own result already went out, and lets nothing follow.
type forcedExit struct {
	w     *exitWriter
	start time.Time
	mu    sync.Mutex
	mode  mode.Mode                // the effective mode, once known
	info  func() *mode.SessionInfo // the session, once opened
}

// newForcedExit routes sys's stdout through the writer it closes.
func newForcedExit(sys *System, m mode.Mode) *forcedExit {
	f := &forcedExit{w: &exitWriter{w: sys.Stdout}, start: sys.Now(), mode: m}
	sys.Stdout = f.w
	return f
}

// set records the effective mode and where the session's info comes from.
func (f *forcedExit) set(m mode.Mode, info func() *mode.SessionInfo) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode, f.info = m, info
}

func (f *forcedExit) write(now time.Time) {
	f.mu.Lock()
	m, info := f.mode, f.info
	f.mu.Unlock()
	if m != mode.JSON && m != mode.Events {
		f.w.last(nil)
		return
	}
	var si *mode.SessionInfo
	if info != nil {
		si = info()
	}
	obj := mode.FailureObject(ai.ClassAborted, errors.New("interrupted again: exited at once; the session keeps what was written before"),
		si, now.Sub(f.start).Milliseconds())
	obj.Reason = string(loop.ReasonAborted)
	b, _ := ai.MarshalNoEscape(obj)
	f.w.last(append(b, '\n'))
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
	if !e.closed && !e.hadResult && p != nil {
		_, _ = e.w.Write(p)
	}
	e.closed = true
}

// forceWait bounds what a second interrupt waits for before exiting: the
// result object goes to a stdout nobody may be reading.
const forceWait = 250 * time.Millisecond

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
				done := make(chan struct{})
				go func() { defer close(done); force() }()
				select {
				case <-done:
				case <-time.After(forceWait):
				}
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
		// gopi help <TAB> offers the commands below what is typed so far.
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			target, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range target.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
	}
}

// wantsJSON reports whether the raw arguments ask for json or events
// output, so that even a flag error is reported as a result object. It
// reads them as the flag parser does: --json wins, otherwise the last
// --mode counts, and nothing after "--" is a flag.
func wantsJSON(args []string) (string, bool) {
	m, json := "", false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			i = len(args)
		case a == "--json" || a == "--json=true" || a == "--json=1":
			json = true
		case a == "--json=false" || a == "--json=0":
			json = false
		case strings.HasPrefix(a, "--mode="):
			m = strings.TrimPrefix(a, "--mode=")
		case a == "--mode" && i+1 < len(args):
			m = args[i+1]
			i++
		}
	}
	switch {
	case json:
		return "json", true
	case m == "json" || m == "events":
		return m, true
	}
	return "", false
}
