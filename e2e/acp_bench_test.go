package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopi/cmd"
)

// acpProc is gopi acp running in this process on pipes.
type acpProc struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan int
}

func startACP(b *testing.B, env []string) *acpProc {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sys := cmd.OSSystem()
	sys.Stdin, sys.Stdout, sys.Stderr = inR, outW, io.Discard
	sys.StdinTTY, sys.StdoutTTY, sys.StderrTTY = false, false, false
	sys.Environ, sys.Signals = env, false
	sys.Exit = func(int) {}
	p := &acpProc{in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan int, 1)}
	go func() {
		code := cmd.Main([]string{"acp"}, sys)
		outW.Close()
		p.done <- code
	}()
	return p
}

func (p *acpProc) send(b *testing.B, line string) {
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		b.Fatal(err)
	}
}

// until reads lines until one contains sub and returns it.
func (p *acpProc) until(b *testing.B, sub string) string {
	for {
		line, err := p.out.ReadString('\n')
		if err != nil {
			b.Fatalf("gopi acp ended before %s: %v", sub, err)
		}
		if strings.Contains(line, sub) {
			return line
		}
	}
}

func (p *acpProc) stop(b *testing.B) {
	p.in.Close()
	_, _ = io.Copy(io.Discard, p.out)
	if code := <-p.done; code != 0 {
		b.Fatalf("gopi acp exited %d", code)
	}
}

var sessionIDRE = regexp.MustCompile(`"sessionId":"([^"]+)"`)

func benchEnv(b *testing.B, url string) (env []string, proj string) {
	dir := b.TempDir()
	proj = filepath.Join(dir, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		b.Fatal(err)
	}
	return []string{"HOME=" + dir, "GOPI_HOME=" + filepath.Join(dir, "gopihome"), "PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_API_KEY=sk-ant-test-key", "GOPI_PROVIDER=anthropic", "GOPI_BASE_URL=" + url}, proj
}

// BenchmarkACPFirstChunk is the time from initialize to the first
// agent_message_chunk of a new session's first prompt, against the fake
// provider: the protocol, the session's settings, its Runtime and one
// model request.
func BenchmarkACPFirstChunk(b *testing.B) {
	fp := newFakeProvider(b.TempDir())
	defer fp.srv.Close()
	env, proj := benchEnv(b, fp.srv.URL)
	if err := fp.load(strings.Repeat("text Hello there.\n", b.N)); err != nil {
		b.Fatal(err)
	}
	p := startACP(b, env)
	defer p.stop(b)
	b.ResetTimer()
	for i := range b.N {
		p.send(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":1}}`, 3*i))
		p.until(b, fmt.Sprintf(`"id":%d,`, 3*i))
		p.send(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, 3*i+1, proj))
		m := sessionIDRE.FindStringSubmatch(p.until(b, fmt.Sprintf(`"id":%d,`, 3*i+1)))
		if m == nil {
			b.Fatal("no session id")
		}
		p.send(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}}`, 3*i+2, m[1]))
		p.until(b, "agent_message_chunk")
		b.StopTimer()
		p.until(b, fmt.Sprintf(`"id":%d,`, 3*i+2))
		p.send(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/close","params":{"sessionId":%q}}`, 1_000_000+i, m[1]))
		p.until(b, fmt.Sprintf(`"id":%d,`, 1_000_000+i))
		b.StartTimer()
	}
}

// BenchmarkACPLoad10k is session/load of a 10,000-entry session (5,000
// prompts and answers), replayed to the client: B/op is what it allocates.
func BenchmarkACPLoad10k(b *testing.B) {
	fp := newFakeProvider(b.TempDir())
	defer fp.srv.Close()
	env, proj := benchEnv(b, fp.srv.URL)
	file := filepath.Join(b.TempDir(), "big.jsonl")
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `{"type":"session","version":3,"id":"01a25000-0000-7000-8000-000000000001","timestamp":"2026-12-01T10:00:00.000Z","cwd":%q}`+"\n", proj)
	parent := "null"
	for i := range 10_000 {
		id := fmt.Sprintf("%08x", i+1)
		if i%2 == 0 {
			fmt.Fprintf(&buf, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"question %d about the code in main.go"}],"timestamp":1764583201000}}`+"\n", id, parent, i)
		} else {
			fmt.Fprintf(&buf, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-12-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"answer %d: the function reads the file and returns its lines, one by one."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-6","usage":{"input":10,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":30,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1764583202000}}`+"\n", id, parent, i)
		}
		parent = fmt.Sprintf("%q", id)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	p := startACP(b, env)
	defer p.stop(b)
	p.send(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
	p.until(b, `"id":0,`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		p.send(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/load","params":{"sessionId":%q,"cwd":%q,"mcpServers":[]}}`, 2*i+1, file, proj))
		p.until(b, fmt.Sprintf(`"id":%d,`, 2*i+1))
		p.send(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/close","params":{"sessionId":"01a25000-0000-7000-8000-000000000001"}}`, 2*i+2))
		p.until(b, fmt.Sprintf(`"id":%d,`, 2*i+2))
	}
}
