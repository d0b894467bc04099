package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

type providerKey struct{}
type procsKey struct{}

// waitLimit bounds every wait of a script; a hang fails instead of
// running into the test deadline.
const waitLimit = 20 * time.Second

// scriptCmds are the commands scripts get besides testscript's own:
//
//	serve FILE                  the fake provider's next replies (see fakeProvider)
//	waitrequests N              wait until the provider answered (or started) N requests
//	exits CODE PROG ARGS...     run PROG; its exit code must be CODE
//	start [-stdout FILE] NAME PROG ARGS...
//	                            run PROG in the background; $NAME_PID is its pid; with -stdout
//	                            its stdout goes to FILE as it is written (waitgrep reads it)
//	signal NAME INT|TERM|HUP|KILL
//	                            signal a process started with start
//	waitexit NAME CODE          wait for it; its exit code must be CODE; its output becomes stdout/stderr
//	waitany NAME...             wait until one of them exits by itself; prints its exit code
//	waitcodes NAME...           wait for them all; prints their exit codes, sorted, on one line
//	perm FILE MODE              FILE's permission bits are MODE (octal)
//	jsonfield [-line N] [-env VAR] FILE PATH [WANT]
//	                            a field of a JSON line (default the last) of FILE or stdout:
//	                            PATH is dotted (messages.0.role, messages.-1 the last, messages.len the length); the
//	                            value (strings unquoted) must equal WANT, or is stored in $VAR
//	jsonl FILE [LINES]          every line of FILE is valid JSON (and there are LINES of them)
//	jsonsame [-anthropic] FILE1 PATH1 FILE2 PATH2
//	                            the two values are the same JSON (scriptjson_test.go)
//	waitfile, gone, startpipe   see signals_cmds_test.go
//	mkimage FILE FMT W H [noise] write a png, jpeg or gif (mkimage_test.go)
//	listen PORTFILE             a TCP listener on 127.0.0.1 greeting each connection (sandbox_test.go)
//	mcpready                    the npm MCP servers are installed (mcp_script_test.go)
//	piready                     pi 1.6 is installed: $PI_NODE $PI_CLI runs it (pi_script_test.go)
//	pievents PI GOPI            gopi's events have pi 1.6's types, order and keys (pievents_test.go)
//	pikeys PI GOPI              gopi's assistant entries have pi 1.6's keys (pievents_test.go)
//	entryorder FILE KIND...     the last entries of a session file, each the child of the one before
//	rpc [-code N] [-bg NAME] OUT SCRIPT PROG ARGS...
//	                            play RPC commands to PROG, its records to OUT (rpcscript_test.go)
//	rpcwait NAME                wait for an rpc -bg
//	rpcpi PI GOPI               gopi's rpc transcript has pi 1.6's responses and events (rpcpi_test.go)
//	otlp, otelcol               a loopback OTLP receiver, the real collector (otlp_test.go, otelcol_test.go)
//	schemacheck FILE            every JSON line of FILE (or stdout) is valid against
//	                            docs/schema/output.schema.json (scriptschema_test.go)
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"serve":        cmdServe,
	"waitrequests": cmdWaitRequests,
	"exits":        cmdExits,
	"start":        cmdStart,
	"signal":       cmdSignal,
	"waitexit":     cmdWaitExit,
	"waitcodes":    cmdWaitCodes,
	"waitany":      cmdWaitAny,
	"perm":         cmdPerm,
	"jsonfield":    cmdJSONField,
	"schemacheck":  cmdSchemaCheck,
	"jsonl":        cmdJSONL,
	"jsonsame":     cmdJSONSame,
	"waitfile":     cmdWaitFile,
	"waitgrep":     cmdWaitGrep,
	"gone":         cmdGone,
	"startpipe":    cmdStartPipe,
	"pievents":     cmdPiEvents,
	"pikeys":       cmdPiKeys,
	"entryorder":   cmdEntryOrder,
	"mkimage":      cmdMkimage,
	"listen":       cmdListen,
	"mcpready":     cmdMCPReady,
	"piready":      cmdPiReady,
	"rpc":          cmdRPC,
	"rpcwait":      cmdRPCWait,
	"rpcpi":        cmdRPCPi,
	"rpcclient":    cmdRPCClient,
	"acpcompare":   cmdACPCompare,
	"bashdeltas":   cmdBashDeltas,
	"otlp":         cmdOTLP,    // otlp_test.go
	"otelcol":      cmdOTelCol, // otelcol_test.go
}

func provider(ts *testscript.TestScript) *fakeProvider {
	return ts.Value(providerKey{}).(*fakeProvider)
}

func noNeg(ts *testscript.TestScript, neg bool, name string) {
	if neg {
		ts.Fatalf("unsupported: ! %s", name)
	}
}

func cmdServe(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "serve")
	p := provider(ts)
	if len(args) == 3 && args[0] == "-model" {
		// The server says another model answered (pi's responseModel).
		p.mu.Lock()
		p.answerModel = args[1]
		p.mu.Unlock()
		args = args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: serve [-model NAME] FILE")
	}
	ts.Check(p.load(ts.ReadFile(args[0])))
}

func cmdWaitRequests(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "waitrequests")
	if len(args) != 1 {
		ts.Fatalf("usage: waitrequests N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	ts.Check(provider(ts).waitAnswered(n, waitLimit))
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "exits")
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	checkExit(ts, args[1], err, want)
}

func checkExit(ts *testscript.TestScript, name string, err error, want int) {
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", name, err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", name, got, want)
	}
}

// bgProc is a process started with start.
type bgProc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	err            error
}

func procs(ts *testscript.TestScript) map[string]*bgProc {
	return ts.Value(procsKey{}).(map[string]*bgProc)
}

// startEnv is the environment start passes on: testscript's variables
// and the ones scripts set.
var startEnv = []string{"PATH", "HOME", "TMPDIR", "GOPI_HOME", "GORACE", "GOCOVERDIR", "GOTRACEBACK",
	"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_URL", "OPENAI_URL", "WORK",
	"GOPI_PROVIDER", "GOPI_MODEL", "GOPI_BASE_URL", "GOPI_MAX_PROMPT_BYTES",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "TRACEPARENT"}

func cmdStart(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "start")
	var stdout *os.File
	if len(args) > 1 && args[0] == "-stdout" {
		f, err := os.Create(ts.MkAbs(args[1]))
		ts.Check(err)
		ts.Defer(func() { f.Close() })
		stdout, args = f, args[2:]
	}
	if len(args) < 2 {
		ts.Fatalf("usage: start [-stdout FILE] NAME PROG ARGS...")
	}
	name := args[0]
	if _, dup := procs(ts)[name]; dup {
		ts.Fatalf("start: %s is already running", name)
	}
	path, err := exec.LookPath(args[1])
	ts.Check(err)
	p := &bgProc{cmd: exec.Command(path, args[2:]...), done: make(chan struct{})}
	p.cmd.Dir = ts.MkAbs(".")
	for _, k := range startEnv {
		if v := ts.Getenv(k); v != "" {
			p.cmd.Env = append(p.cmd.Env, k+"="+v)
		}
	}
	p.cmd.Stdin = strings.NewReader("")
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if stdout != nil {
		p.cmd.Stdout = stdout
	}
	ts.Check(p.cmd.Start())
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	procs(ts)[name] = p
	ts.Setenv(name+"_PID", strconv.Itoa(p.cmd.Process.Pid))
	ts.Defer(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
}

func proc(ts *testscript.TestScript, name string) *bgProc {
	p := procs(ts)[name]
	if p == nil {
		ts.Fatalf("no process %q started", name)
	}
	return p
}

func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "signal")
	if len(args) != 2 {
		ts.Fatalf("usage: signal NAME INT|TERM|HUP|KILL")
	}
	sigs := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP, "KILL": syscall.SIGKILL}
	sig, ok := sigs[args[1]]
	if !ok {
		ts.Fatalf("signal: unknown signal %s", args[1])
	}
	err := proc(ts, args[0]).cmd.Process.Signal(sig)
	if !errors.Is(err, os.ErrProcessDone) {
		ts.Check(err)
	}
}

func cmdWaitExit(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "waitexit")
	if len(args) != 2 {
		ts.Fatalf("usage: waitexit NAME CODE")
	}
	p := proc(ts, args[0])
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	select {
	case <-p.done:
	case <-time.After(waitLimit):
		ts.Fatalf("%s still running after %v", args[0], waitLimit)
	}
	delete(procs(ts), args[0])
	fmt.Fprint(ts.Stdout(), p.stdout.String())
	fmt.Fprint(ts.Stderr(), p.stderr.String())
	checkExit(ts, args[0], p.err, want)
}

func cmdWaitCodes(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "waitcodes")
	var codes []int
	for _, name := range args {
		p := proc(ts, name)
		select {
		case <-p.done:
		case <-time.After(waitLimit):
			ts.Fatalf("%s still running after %v", name, waitLimit)
		}
		delete(procs(ts), name)
		fmt.Fprint(ts.Stderr(), p.stderr.String())
		codes = append(codes, p.cmd.ProcessState.ExitCode())
	}
	slices.Sort(codes)
	for i, c := range codes {
		if i > 0 {
			fmt.Fprint(ts.Stdout(), " ")
		}
		fmt.Fprint(ts.Stdout(), c)
	}
	fmt.Fprintln(ts.Stdout())
}

func cmdWaitAny(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "waitany")
	cases := make([]reflect.SelectCase, 0, len(args)+1)
	for _, name := range args {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(proc(ts, name).done)})
	}
	cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(time.After(waitLimit))})
	i, _, _ := reflect.Select(cases)
	if i == len(args) {
		ts.Fatalf("none of %v exited within %v", args, waitLimit)
	}
	p := proc(ts, args[i])
	fmt.Fprint(ts.Stderr(), p.stderr.String())
	fmt.Fprintln(ts.Stdout(), p.cmd.ProcessState.ExitCode())
}

func cmdPerm(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "perm")
	if len(args) != 2 {
		ts.Fatalf("usage: perm FILE MODE")
	}
	want, err := strconv.ParseUint(args[1], 8, 32)
	ts.Check(err)
	st, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	if got := st.Mode().Perm(); got != os.FileMode(want) {
		ts.Fatalf("%s has mode %#o, want %#o", args[0], got, want)
	}
}

func cmdJSONField(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "jsonfield")
	line, envVar := 0, ""
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-line":
			n, err := strconv.Atoi(args[1])
			ts.Check(err)
			line = n
		case "-env":
			envVar = args[1]
		default:
			ts.Fatalf("jsonfield: unknown option %s", args[0])
		}
		args = args[2:]
	}
	if len(args) < 2 || len(args) > 3 || (envVar == "") == (len(args) == 2) {
		ts.Fatalf("usage: jsonfield [-line N] [-env VAR] FILE PATH [WANT] (WANT or -env, not both)")
	}
	text := ts.ReadFile(args[0]) // "stdout": the last command's output
	got, err := jsonField(pickLine(ts, text, line), args[1])
	if err != nil {
		ts.Fatalf("jsonfield %s %s: %v", args[0], args[1], err)
	}
	if envVar != "" {
		ts.Setenv(envVar, got)
		return
	}
	if got != args[2] {
		ts.Fatalf("jsonfield %s %s = %q, want %q", args[0], args[1], got, args[2])
	}
}

func pickLine(ts *testscript.TestScript, text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	switch {
	case n == 0:
		return lines[len(lines)-1]
	case n > 0 && n <= len(lines):
		return lines[n-1]
	case n < 0 && -n <= len(lines):
		return lines[len(lines)+n]
	}
	ts.Fatalf("jsonfield: no line %d (%d lines)", n, len(lines))
	return ""
}

// jsonField follows a dotted path through one JSON value.
func jsonField(line, path string) (string, error) {
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		return "", fmt.Errorf("not JSON: %v: %.200s", err, line)
	}
	for _, key := range strings.Split(path, ".") {
		switch t := v.(type) {
		case map[string]any:
			x, ok := t[key]
			if !ok {
				return "", fmt.Errorf("no key %q", key)
			}
			v = x
		case []any:
			if key == "len" {
				v = float64(len(t))
				continue
			}
			i, err := strconv.Atoi(key)
			if i < 0 {
				i += len(t) // -1 is the last
			}
			if err != nil || i < 0 || i >= len(t) {
				return "", fmt.Errorf("no element %q of %d", key, len(t))
			}
			v = t[i]
		default:
			return "", fmt.Errorf("%q: not an object or array", key)
		}
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

func cmdJSONL(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "jsonl")
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: jsonl FILE [LINES]")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ts.Fatalf("%s: the last line is not terminated", args[0])
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			ts.Fatalf("%s:%d: not JSON: %.200s", args[0], i+1, l)
		}
	}
	if len(args) == 2 {
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		if len(lines) != want {
			ts.Fatalf("%s has %d lines, want %d", args[0], len(lines), want)
		}
	}
}
