package e2e

import (
	"errors"
	"net"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"gopi/cmd"
)

// noLandlockMain is gopi on a kernel without Landlock: the injected probe
// says so, as an old kernel, a container without it or another OS would.
func noLandlockMain() {
	sys := cmd.OSSystem()
	sys.SandboxProbe = func() (int, error) { return 0, errors.New("Landlock is not available in this kernel (simulated)") }
	os.Exit(cmd.Main(os.Args[1:], sys))
}

// cmdListen starts a TCP listener on 127.0.0.1 that greets every
// connection with "hello from the listener" and writes its port to FILE;
// it is closed when the script ends.
//
//	listen FILE
func cmdListen(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "listen")
	if len(args) != 1 {
		ts.Fatalf("usage: listen PORTFILE")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("hello from the listener\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strconv.Itoa(port)), 0o644))
}
