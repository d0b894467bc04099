package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// acpPeer is an ACP client speaking to a gopi acp process on its stdin
// and stdout, one JSON-RPC message a line, as an editor does. It answers
// session/request_permission as its permission mode says (allow-once or
// reject-once) and keeps every session/update in order.
type acpPeer struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser
	stderr  peerStderr
	approve bool

	wmu sync.Mutex // guards writes to in

	mu      sync.Mutex // guards the fields below
	nextID  int
	waiting map[int]chan acpReply
	updates []acpUpdate
	asked   []json.RawMessage // session/request_permission params
	stray   []string          // lines that are not JSON-RPC 2.0, or answer no request
	seen    []string          // every line, for failure messages
	ended   chan struct{}     // closed when stdout ends
}

// acpReply is the response to one request.
type acpReply struct {
	Result json.RawMessage
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	// updates is how many session/update notifications came before it.
	updates int
}

// acpUpdate is one session/update notification's params.
type acpUpdate struct {
	SessionID string         `json:"sessionId"`
	Update    map[string]any `json:"update"`
}

// acpWait bounds every wait for gopi: a case that hangs fails.
const acpWait = 30 * time.Second

// startACPPeer starts `gopi acp args...` in dir with env, and stops it
// when the test ends: stdin closed, the process must exit 0 within
// acpWait (killed and failed otherwise).
func startACPPeer(t *testing.T, dir string, env []string, approve bool, args ...string) *acpPeer {
	t.Helper()
	p := &acpPeer{t: t, approve: approve, waiting: map[int]chan acpReply{}, ended: make(chan struct{})}
	p.cmd = exec.Command(gopiBinary(t), append([]string{"acp"}, args...)...)
	p.cmd.Dir, p.cmd.Env, p.cmd.Stderr = dir, env, &p.stderr
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.in = in
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.read(out)
	t.Cleanup(p.stop)
	return p
}

// peerStderr is gopi's stderr, read while it is written.
type peerStderr struct {
	mu sync.Mutex
	b  strings.Builder
}

func (e *peerStderr) Write(b []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.b.Write(b)
}

func (e *peerStderr) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.b.String()
}

func (p *acpPeer) stop() {
	p.in.Close()
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			p.t.Errorf("gopi acp ended with %v; stderr:\n%s", err, p.stderrText())
		}
	case <-time.After(acpWait):
		_ = p.cmd.Process.Kill()
		<-exited
		p.t.Errorf("gopi acp did not end within %v of its stdin closing", acpWait)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.stray) > 0 {
		p.t.Errorf("messages that are not JSON-RPC 2.0 or answer no request:\n%s", strings.Join(p.stray, "\n"))
	}
}

func (p *acpPeer) stderrText() string { return p.stderr.String() }

// read routes every line of gopi's stdout.
func (p *acpPeer) read(out io.Reader) {
	defer close(p.ended)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		p.mu.Lock()
		p.seen = append(p.seen, line)
		p.mu.Unlock()
		if json.Unmarshal([]byte(line), &m) != nil || m.JSONRPC != "2.0" {
			p.strayLine(line)
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			p.answerRequest(m.ID, m.Method, m.Params)
		case m.Method == "session/update":
			var u acpUpdate
			if json.Unmarshal(m.Params, &u) != nil {
				p.strayLine(line)
				continue
			}
			p.mu.Lock()
			p.updates = append(p.updates, u)
			p.mu.Unlock()
		case m.Method == "":
			p.response([]byte(line), m.ID)
		}
	}
}

func (p *acpPeer) strayLine(line string) {
	p.mu.Lock()
	p.stray = append(p.stray, line)
	p.mu.Unlock()
}

func (p *acpPeer) response(line, id json.RawMessage) {
	var n int
	var r acpReply
	if json.Unmarshal(id, &n) != nil || json.Unmarshal(line, &r) != nil {
		p.strayLine(string(line))
		return
	}
	p.mu.Lock()
	ch, ok := p.waiting[n]
	delete(p.waiting, n)
	r.updates = len(p.updates)
	if !ok {
		p.stray = append(p.stray, string(line))
	}
	p.mu.Unlock()
	if ok {
		ch <- r
	}
}

// answerRequest answers gopi's requests: a permission as the mode says;
// anything else (fs/*, terminal/*, which gopi does not use) as unknown.
func (p *acpPeer) answerRequest(id json.RawMessage, method string, params json.RawMessage) {
	if method != "session/request_permission" {
		p.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "not offered: " + method}})
		return
	}
	p.mu.Lock()
	p.asked = append(p.asked, params)
	p.mu.Unlock()
	option := "reject-once"
	if p.approve {
		option = "allow-once"
	}
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}}})
}

func (p *acpPeer) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		p.t.Error(err)
		return
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, _ = p.in.Write(append(b, '\n'))
}

// start sends a request and returns where its response will come.
func (p *acpPeer) start(method string, params any) <-chan acpReply {
	ch := make(chan acpReply, 1)
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	p.waiting[id] = ch
	p.mu.Unlock()
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

// await waits for a response, at most acpWait.
func (p *acpPeer) await(ch <-chan acpReply, what string) acpReply {
	p.t.Helper()
	select {
	case r := <-ch:
		return r
	case <-p.ended:
		select {
		case r := <-ch:
			return r
		default:
		}
		p.t.Fatalf("gopi acp ended before answering %s; stderr:\n%s", what, p.stderrText())
	case <-time.After(acpWait):
		p.t.Fatalf("no answer to %s within %v; read:\n%s", what, acpWait, p.transcript())
	}
	return acpReply{}
}

// call sends a request and waits for its response.
func (p *acpPeer) call(method string, params any) acpReply {
	p.t.Helper()
	return p.await(p.start(method, params), method)
}

// notify sends a notification (no id).
func (p *acpPeer) notify(method string, params any) {
	p.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (p *acpPeer) transcript() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.seen, "\n")
}

// snapshot is the updates and permission requests so far.
func (p *acpPeer) snapshot() ([]acpUpdate, []json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]acpUpdate(nil), p.updates...), append([]json.RawMessage(nil), p.asked...)
}

// waitUpdate waits until an update of kind has come, at most acpWait.
func (p *acpPeer) waitUpdate(kind string) {
	p.t.Helper()
	deadline := time.Now().Add(acpWait)
	for time.Now().Before(deadline) {
		ups, _ := p.snapshot()
		for _, u := range ups {
			if u.Update["sessionUpdate"] == kind {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.t.Fatalf("no %s update within %v; read:\n%s", kind, acpWait, p.transcript())
}

// acpHome is one case's folders and environment: a project folder and
// the homes, the fake provider's address and a key.
type acpHome struct {
	proj, gopiHome string
	env            []string
	fp             *fakeProvider
}

func newACPHome(t *testing.T, replies string) acpHome {
	t.Helper()
	root := t.TempDir()
	h := acpHome{proj: filepath.Join(root, "proj"), gopiHome: filepath.Join(root, "gopihome")}
	for _, d := range []string{h.proj, h.gopiHome, filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(h.gopiHome, "settings.json"), []byte(defaultSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	h.fp = newFakeProvider(filepath.Join(root, "requests"))
	t.Cleanup(h.fp.srv.Close)
	t.Cleanup(func() { // after gopi ended (cleanups run last first)
		if left := h.fp.unused(); len(left) > 0 {
			t.Errorf("replies never asked for: %q", left)
		}
	})
	if err := h.fp.load(replies); err != nil {
		t.Fatal(err)
	}
	h.env = []string{"HOME=" + filepath.Join(root, "home"), "GOPI_HOME=" + h.gopiHome, "PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_API_KEY=sk-ant-test-key", "GOPI_PROVIDER=anthropic", "GOPI_BASE_URL=" + h.fp.srv.URL}
	return h
}

// write puts a file under the project folder.
func (h acpHome) write(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join(h.proj, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// request is the body of the model request n (1-based).
func (h acpHome) request(t *testing.T, n int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.fp.dir, fmt.Sprint(n)+".json"))
	if err != nil {
		t.Fatalf("model request %d: %v", n, err)
	}
	return string(b)
}

func (h acpHome) received() int {
	h.fp.mu.Lock()
	defer h.fp.mu.Unlock()
	return h.fp.received
}
