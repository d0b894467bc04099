package e2e

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

type otelcolKey struct{}

// otelcolManifest is the collector distribution scripts/otelcol-build
// builds; its hash names the build's folder in the cache.
const otelcolManifest = "../scripts/otelcol/manifest.yaml"

// otelcolBinary is the collector built from the manifest as it is now,
// or a message saying how to build it.
func otelcolBinary() (string, error) {
	manifest, err := os.ReadFile(otelcolManifest)
	if err != nil {
		return "", err
	}
	cache := os.Getenv("GOPI_OTELCOL")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "gopi-ci", "otelcol")
	}
	sum := sha256.Sum256(manifest)
	bin := filepath.Join(cache, hex.EncodeToString(sum[:])[:16], "dist", "otelcol-gopi")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("the OpenTelemetry Collector of scripts/otelcol/manifest.yaml is not built (%s is missing): run scripts/otelcol-build (scripts/test runs it)", bin)
	}
	return bin, nil
}

// otelcol is a script's OpenTelemetry Collector: the real one, its OTLP
// receiver on a loopback port and the file exporter writing what it
// received as OTLP JSON lines.
type otelcol struct {
	bin, dir string
	port     int
	cmd      *exec.Cmd
	done     chan struct{}
	frozen   bool
}

const otelcolConfig = `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  file/traces:
    path: %s
  file/metrics:
    path: %s
service:
  telemetry:
    logs:
      level: warn
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file/traces]
    metrics:
      receivers: [otlp]
      exporters: [file/metrics]
`

// cmdOTelCol runs the real collector (scripts/otelcol-build builds it;
// a script fails, naming it, when it is missing):
//
//	otelcol start    start it on a free loopback port (the same port again
//	                 after a stop) and set $OTELCOL_URL; wait until it listens
//	otelcol stop     stop it (SIGTERM) and wait until it exited
//	otelcol freeze   stop it with SIGSTOP: it accepts connections and never answers
//	otelcol spans    stop it, then print what its file exporter wrote since the
//	                 last call, a JSON line per span and per metric's point as
//	                 otlp spans prints them
func cmdOTelCol(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "otelcol")
	if len(args) != 1 {
		ts.Fatalf("usage: otelcol start|stop|freeze|spans")
	}
	c, _ := ts.Value(otelcolKey{}).(*otelcol)
	if c == nil {
		ts.Fatalf("otelcol: not set up")
	}
	switch args[0] {
	case "start":
		if c.bin == "" {
			bin, err := otelcolBinary()
			ts.Check(err)
			c.bin = bin
		}
		first := c.port == 0
		err := c.start(ts)
		// the port picked was taken before the collector bound it: pick another
		for try := 0; first && err == errPortTaken && try < 3; try++ {
			c.port = 0
			err = c.start(ts)
		}
		ts.Check(err)
	case "stop":
		ts.Check(c.stop())
	case "freeze":
		if c.cmd == nil {
			ts.Fatalf("otelcol: not running")
		}
		ts.Check(freeze(c.cmd.Process))
		c.frozen = true
	case "spans":
		ts.Check(c.stop())
		w := ts.Stdout()
		for _, f := range []string{"traces.jsonl", "metrics.jsonl"} {
			path := filepath.Join(c.dir, f)
			data, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				continue
			}
			ts.Check(err)
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				b := otlpBody{path: "/v1/" + f[:len(f)-len(".jsonl")], body: sc.Bytes()}
				if b.path == "/v1/metrics" {
					ts.Check(dumpOTLPMetrics(w, b))
				} else {
					ts.Check(dumpOTLPJSON(w, b))
				}
			}
			ts.Check(sc.Err())
			ts.Check(os.Remove(path))
		}
	default:
		ts.Fatalf("otelcol: unknown %q", args[0])
	}
}

// setupOTelCol gives a script its collector, stopped at the end.
func setupOTelCol(env *testscript.Env) {
	c := &otelcol{dir: filepath.Join(env.WorkDir, ".otelcol")}
	env.Values[otelcolKey{}] = c
	env.Defer(func() {
		if c.cmd != nil {
			_ = c.cmd.Process.Kill()
			thaw(c.cmd.Process)
			<-c.done
		}
	})
}

var errPortTaken = errors.New("otelcol: the port is taken")

func (c *otelcol) start(ts *testscript.TestScript) error {
	if c.cmd != nil {
		return fmt.Errorf("otelcol: already running")
	}
	if c.port == 0 {
		// A port free now; the collector's HTTP receiver takes no port 0.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		c.port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	config := filepath.Join(c.dir, "config.yaml")
	text := fmt.Sprintf(otelcolConfig, c.port, filepath.Join(c.dir, "traces.jsonl"), filepath.Join(c.dir, "metrics.jsonl"))
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		return err
	}
	log, err := os.Create(filepath.Join(c.dir, "log"))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(c.bin, "--config", "file:"+config)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return err
	}
	c.cmd, c.done, c.frozen = cmd, make(chan struct{}), false
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(c.done)
	addr := "127.0.0.1:" + strconv.Itoa(c.port)
	deadline := time.Now().Add(waitLimit)
	for {
		select {
		case <-c.done:
			c.cmd = nil
			if strings.Contains(c.logText(), "address already in use") {
				return errPortTaken
			}
			return fmt.Errorf("otelcol: the collector exited at start: %s\n%s", cmd.ProcessState, c.logText())
		default:
		}
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("otelcol: the collector does not listen on %s after %v:\n%s", addr, waitLimit, c.logText())
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Setenv("OTELCOL_URL", "http://"+addr)
	return nil
}

// stop ends the collector gracefully, its file exporter flushed.
func (c *otelcol) stop() error {
	if c.cmd == nil {
		return nil
	}
	if c.frozen {
		thaw(c.cmd.Process)
	}
	if err := terminate(c.cmd.Process); err != nil {
		return err
	}
	select {
	case <-c.done:
	case <-time.After(waitLimit):
		_ = c.cmd.Process.Kill()
		<-c.done
		return fmt.Errorf("otelcol: the collector did not stop within %v:\n%s", waitLimit, c.logText())
	}
	c.cmd = nil
	return nil
}

// logText is what the collector said on stdout and stderr.
func (c *otelcol) logText() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "log"))
	return string(b)
}
