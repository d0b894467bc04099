// Command rpcdrive plays a script of RPC commands (internal/rpcdrive) to
// a program and writes every record it printed, one a line, to stdout:
//
//	go run ./scripts/rpcdrive SCRIPT -- gopi rpc --no-session
//	go run ./scripts/rpcdrive SCRIPT -- node cli.js --mode rpc --no-session
//
// It is how the pi 1.6 transcripts in testdata/script/rpc_pi.txtar were
// recorded. The program's stderr goes to rpcdrive's stderr.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"gopi/internal/rpcdrive"
)

func main() {
	limit := flag.Duration("limit", 30*time.Second, "longest wait for one record")
	flag.Parse()
	args := flag.Args()
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "usage: rpcdrive [-limit D] SCRIPT -- PROG ARGS...")
		os.Exit(2)
	}
	text, err := os.ReadFile(args[0])
	check(err)
	steps, err := rpcdrive.Parse(string(text))
	check(err)
	c := exec.Command(args[2], args[3:]...)
	c.Stderr = os.Stderr
	in, err := c.StdinPipe()
	check(err)
	out, err := c.StdoutPipe()
	check(err)
	check(c.Start())
	wd, _ := os.Getwd()
	recs, runErr := rpcdrive.Run(steps, wd, in, out, *limit, func(name string) error {
		sig, ok := signals[name]
		if !ok {
			return fmt.Errorf("signal %s: use INT, TERM or HUP", name)
		}
		return c.Process.Signal(sig)
	})
	for _, r := range recs {
		os.Stdout.Write(append(r, '\n'))
	}
	werr := c.Wait()
	check(runErr)
	if werr != nil {
		fmt.Fprintln(os.Stderr, "rpcdrive:", werr)
		os.Exit(1)
	}
}

var signals = map[string]os.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "rpcdrive:", err)
		os.Exit(1)
	}
}
