package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestACPConformance holds gopi acp to the ACP v1 core profile: one case
// for each required case id of acpx's conformance profile acp-core-v1,
// named by it, each against its own gopi acp process and fake provider,
// as a client speaks to it over stdin and stdout. The assertions are the
// profile's MUST rules (a protocol version; a session id; a prompt's
// updates before its response, each naming its session, and its
// stopReason; cancel a notification answered by the prompt's cancelled;
// invalid params -32602; an unknown session an error; a refused
// permission an explicit failure) and what gopi promises beside them.
// acpx's cases drive its mock agent with typed commands ("read X",
// "write X Y"); here the fake provider's scripted tool calls are those
// commands, and the permission rules (settings' permissions.ask) make
// them questions the client answers, as its approve-all or deny-all mode
// would.
func TestACPConformance(t *testing.T) {
	for _, c := range acpCases {
		t.Run(c.id, func(t *testing.T) {
			t.Parallel()
			c.run(t)
		})
	}
}

type acpCase struct {
	id  string
	run func(t *testing.T)
}

var acpCases = []acpCase{
	{"acp.v1.initialize.handshake", caseHandshake},
	{"acp.v1.session.new.basic", caseNewSession},
	{"acp.v1.session.prompt.single_turn", caseSingleTurn},
	{"acp.v1.session.update.termination", caseUpdateTermination},
	{"acp.v1.session.cancel.in_flight", caseCancelInFlight},
	{"acp.v1.session.cancel.idle", caseCancelIdle},
	{"acp.v1.session.prompt.multi_turn", caseMultiTurn},
	{"acp.v1.errors.invalid_params", caseInvalidParams},
	{"acp.v1.errors.invalid_prompt_session_type", caseSessionIDType},
	{"acp.v1.errors.permission_denied", func(t *testing.T) { casePermission(t, "read", false) }},
	{"acp.v1.errors.permission_denied.write", func(t *testing.T) { casePermission(t, "write", false) }},
	{"acp.v1.errors.unknown_session", caseUnknownSession},
	{"acp.v1.session.prompt.echo_empty", caseEmptyPrompt},
	{"acp.v1.session.prompt.unrecognized", caseUnrecognized},
	{"acp.v1.errors.invalid_params.cwd_null", caseCwdNull},
	{"acp.v1.session.prompt.structured_blocks", caseStructuredBlocks},
	{"acp.v1.permissions.read.approved", func(t *testing.T) { casePermission(t, "read", true) }},
	{"acp.v1.permissions.write.approved", func(t *testing.T) { casePermission(t, "write", true) }},
	{"acp.v1.session.prompt.background_completion", caseBackgroundCompletion},
	{"acp.v1.session.cancel.followup_prompt", caseCancelFollowup},
}

// Helpers of the cases.

func initialized(t *testing.T, h acpHome, approve bool, args ...string) *acpPeer {
	t.Helper()
	p := startACPPeer(t, h.proj, h.env, approve, args...)
	if r := p.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	return p
}

func newSession(t *testing.T, p *acpPeer, cwd string) string {
	t.Helper()
	r := p.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || strings.TrimSpace(res.SessionID) == "" {
		t.Fatalf("session/new: %s %+v", r.Result, r.Error)
	}
	return res.SessionID
}

func textPrompt(session, text string) map[string]any {
	return map[string]any{"sessionId": session, "prompt": []any{map[string]any{"type": "text", "text": text}}}
}

// stopReason is a prompt response's stopReason; an error fails the test.
func stopReason(t *testing.T, r acpReply) string {
	t.Helper()
	var res struct {
		StopReason string `json:"stopReason"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
		t.Fatalf("prompt answered %s %+v, want a stopReason", r.Result, r.Error)
	}
	return res.StopReason
}

// wantError checks a response is a JSON-RPC error with code and a
// message holding says.
func wantError(t *testing.T, r acpReply, code int, says string) {
	t.Helper()
	if r.Error == nil || r.Error.Code != code || !strings.Contains(r.Error.Message, says) {
		t.Fatalf("answered %s %+v, want error %d saying %q", r.Result, r.Error, code, says)
	}
}

// messageText is the text of the agent_message_chunk updates.
func messageText(ups []acpUpdate) string {
	var b strings.Builder
	for _, u := range ups {
		if u.Update["sessionUpdate"] == "agent_message_chunk" {
			if c, ok := u.Update["content"].(map[string]any); ok && c["type"] == "text" {
				s, _ := c["text"].(string)
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

// allOfSession checks every update names the session.
func allOfSession(t *testing.T, ups []acpUpdate, session string) {
	t.Helper()
	for _, u := range ups {
		if u.SessionID != session {
			t.Errorf("update %v names session %q, want %q", u.Update, u.SessionID, session)
		}
	}
}

// The cases, in the profile's order.

func caseHandshake(t *testing.T) {
	h := newACPHome(t, "")
	p := startACPPeer(t, h.proj, h.env, true)
	r := p.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}})
	var res struct {
		ProtocolVersion   json.RawMessage `json:"protocolVersion"`
		AgentCapabilities json.RawMessage `json:"agentCapabilities"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
		t.Fatalf("initialize: %s %+v", r.Result, r.Error)
	}
	if string(res.ProtocolVersion) != "1" {
		t.Errorf("protocolVersion %s, want the number 1", res.ProtocolVersion)
	}
	if len(res.AgentCapabilities) > 0 && res.AgentCapabilities[0] != '{' {
		t.Errorf("agentCapabilities %s is not an object", res.AgentCapabilities)
	}
	if h.received() != 0 {
		t.Errorf("initialize sent %d model requests", h.received())
	}
}

func caseNewSession(t *testing.T) {
	h := newACPHome(t, "")
	p := initialized(t, h, true)
	r := p.call("session/new", map[string]any{"cwd": h.proj, "mcpServers": []any{}})
	var res map[string]json.RawMessage
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
		t.Fatalf("session/new: %s %+v", r.Result, r.Error)
	}
	var id string
	if json.Unmarshal(res["sessionId"], &id) != nil || strings.TrimSpace(id) == "" {
		t.Errorf("sessionId %s, want a non-empty string", res["sessionId"])
	}
	if m := res["modes"]; len(m) > 0 && m[0] != '{' {
		t.Errorf("modes %s is not an object", m)
	}
	if c := res["configOptions"]; len(c) > 0 && c[0] != '[' {
		t.Errorf("configOptions %s is not a list", c)
	}
	// Two sessions are two ids.
	if other := newSession(t, p, h.proj); other == id {
		t.Errorf("a second session/new answered the same id %q", id)
	}
}

func caseSingleTurn(t *testing.T) {
	h := newACPHome(t, "text Hello there.")
	p := initialized(t, h, true)
	s := newSession(t, p, h.proj)
	before, _ := p.snapshot()
	r := p.call("session/prompt", textPrompt(s, "say hello"))
	if got := stopReason(t, r); got != "end_turn" {
		t.Errorf("stopReason %q, want end_turn", got)
	}
	ups, _ := p.snapshot()
	if r.updates <= len(before) {
		t.Errorf("no session/update before the prompt's response")
	}
	allOfSession(t, ups, s)
	if got := messageText(ups); got != "Hello there." {
		t.Errorf("message chunks %q, want the model's answer", got)
	}
	if !strings.Contains(h.request(t, 1), "say hello") {
		t.Errorf("the model was not sent the prompt: %s", h.request(t, 1))
	}
}

// Completion is the prompt's response: every update of the turn comes
// before it (a tool call's with its terminal status), none after, and
// no terminal update of its own is needed.
func caseUpdateTermination(t *testing.T) {
	h := newACPHome(t, "tool bash {\"command\":\"echo from the tool\"}\ntext Done.")
	p := initialized(t, h, true)
	s := newSession(t, p, h.proj)
	r := p.call("session/prompt", textPrompt(s, "run it"))
	if got := stopReason(t, r); got != "end_turn" {
		t.Errorf("stopReason %q, want end_turn", got)
	}
	// A request answered after the prompt's response: any update of the
	// turn written late would come before it.
	p.call("session/list", map[string]any{"cwd": h.proj})
	ups, _ := p.snapshot()
	if len(ups) != r.updates {
		t.Errorf("%d updates came after the prompt's response: %v", len(ups)-r.updates, ups[r.updates:])
	}
	allOfSession(t, ups, s)
	status := map[string]any{}
	for _, u := range ups[:r.updates] {
		switch u.Update["sessionUpdate"] {
		case "tool_call", "tool_call_update":
			status[u.Update["toolCallId"].(string)] = u.Update["status"]
		}
	}
	if len(status) != 1 {
		t.Fatalf("tool calls %v, want the one the model made", status)
	}
	for id, st := range status {
		if st != "completed" {
			t.Errorf("tool call %s ended %v before the response, want completed", id, st)
		}
	}
	if got := messageText(ups); got != "Done." {
		t.Errorf("message chunks %q", got)
	}
}

// A prompt in flight, cancelled by the notification: its response says
// cancelled, and the notification gets no response of its own.
func caseCancelInFlight(t *testing.T) {
	h := newACPHome(t, "slow Working on it")
	p := initialized(t, h, true)
	s := newSession(t, p, h.proj)
	pending := p.start("session/prompt", textPrompt(s, "take your time"))
	p.waitUpdate("agent_message_chunk")
	p.notify("session/cancel", map[string]any{"sessionId": s})
	if got := stopReason(t, p.await(pending, "the cancelled prompt")); got != "cancelled" {
		t.Errorf("stopReason %q, want cancelled", got)
	}
	// stop (at the test's end) fails on any response to no request: the
	// cancel's, had there been one.
	p.call("session/list", map[string]any{"cwd": h.proj})
}

// Cancel with nothing running: no response, and the session prompts on.
func caseCancelIdle(t *testing.T) {
	h := newACPHome(t, "text Still here.")
	p := initialized(t, h, true)
	s := newSession(t, p, h.proj)
	p.notify("session/cancel", map[string]any{"sessionId": s})
	if got := stopReason(t, p.call("session/prompt", textPrompt(s, "are you there"))); got != "end_turn" {
		t.Errorf("stopReason %q after an idle cancel, want end_turn", got)
	}
	ups, _ := p.snapshot()
	if got := messageText(ups); got != "Still here." {
		t.Errorf("message chunks %q", got)
	}
}

// Two prompts in one session: the second continues the first.
func caseMultiTurn(t *testing.T) {
	h := newACPHome(t, "text The answer is four.\ntext You asked about two and two.")
	p := initialized(t, h, true)
	s := newSession(t, p, h.proj)
	for _, q := range []string{"what is two and two", "what did I ask"} {
		if got := stopReason(t, p.call("session/prompt", textPrompt(s, q))); got != "end_turn" {
			t.Errorf("%q: stopReason %q, want end_turn", q, got)
		}
	}
	second := h.request(t, 2)
	for _, want := range []string{"what is two and two", "The answer is four.", "what did I ask"} {
		if !strings.Contains(second, want) {
			t.Errorf("the second request lacks %q: %s", want, second)
		}
	}
	ups, _ := p.snapshot()
	allOfSession(t, ups, s)
}

// Invalid params: -32602 with a readable message, no model request,
// and gopi serves on.
func caseInvalidParams(t *testing.T) {
	h := newACPHome(t, "")
	p := initialized(t, h, true)
	s := newSession(t, p, h.proj)
	wantError(t, p.call("session/prompt", map[string]any{"sessionId": s, "prompt": "not a list"}), -32602, "session/prompt: params are wrong")
	wantError(t, p.call("session/prompt", map[string]any{"sessionId": s}), -32602, `"prompt" is empty`)
	wantError(t, p.call("session/prompt", map[string]any{"sessionId": s, "prompt": []any{map[string]any{"type": "video", "uri": "x"}}}), -32602, `content type "video" is not taken`)
	wantError(t, p.call("session/new", nil), -32602, `"cwd" is missing`)
	wantError(t, p.call("initialize", map[string]any{}), -32602, `"protocolVersion" is missing`)
	if h.received() != 0 {
		t.Errorf("bad params sent %d model requests", h.received())
	}
	if r := p.call("initialize", map[string]any{"protocolVersion": 1}); r.Error != nil {
		t.Errorf("gopi stopped serving after bad params: %+v", r.Error)
	}
}

// A session id that is not a string is invalid params.
func caseSessionIDType(t *testing.T) {
	h := newACPHome(t, "")
	p := initialized(t, h, true)
	newSession(t, p, h.proj)
	for _, id := range []any{42, true, map[string]any{"id": "x"}, []any{"x"}} {
		r := p.call("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "hi"}}})
		wantError(t, r, -32602, `"sessionId" has the wrong type`)
	}
	if h.received() != 0 {
		t.Errorf("a wrong session id sent %d model requests", h.received())
	}
}

// casePermission: the model reads README.md, or writes out.txt, a call
// settings' permissions.ask makes a question; the client (approve-all or
// deny-all) answers. Denied: the call fails, explicitly (tool_call_update
// status failed, the refusal in its text), the model is told, the file
// stays untouched and the prompt ends normally. Approved: the call runs,
// its output reaches the client and the model.
func casePermission(t *testing.T, op string, approve bool) {
	call := `tool read {"path":"README.md"}`
	if op == "write" {
		call = `tool write {"path":"out.txt","content":"hello from gopi\n"}`
	}
	h := newACPHome(t, call+"\ntext Told the user.")
	h.write(t, "README.md", "This project is acpx's peer.\n")
	h.write(t, ".gopi/settings.json", `{"permissions": {"ask": ["Read(README.md)", "Write(out.txt)"]}}`)
	p := initialized(t, h, approve)
	s := newSession(t, p, h.proj)
	r := p.call("session/prompt", textPrompt(s, op+" the file"))
	if got := stopReason(t, r); got != "end_turn" {
		t.Errorf("stopReason %q, want end_turn", got)
	}
	ups, asked := p.snapshot()
	if len(asked) != 1 {
		t.Fatalf("permission requests %d, want 1", len(asked))
	}
	var q struct {
		SessionID string         `json:"sessionId"`
		ToolCall  map[string]any `json:"toolCall"`
	}
	if json.Unmarshal(asked[0], &q) != nil || q.SessionID != s || q.ToolCall["toolCallId"] != "toolu_fake1" {
		t.Errorf("permission request %s, want one naming the session and the call", asked[0])
	}
	st, text := toolOutcome(ups, "toolu_fake1")
	out, readErr := os.ReadFile(filepath.Join(h.proj, "out.txt"))
	switch {
	case !approve && (st != "failed" || !strings.Contains(text, refused)):
		t.Errorf("denied call ended %q with %q, want failed, saying %q", st, text, refused)
	case approve && st != "completed":
		t.Errorf("approved call ended %q with %q, want completed", st, text)
	case op == "read" && approve && !strings.Contains(text, "acpx's peer"):
		t.Errorf("the read's output %q lacks the file's text", text)
	case op == "write" && approve && string(out) != "hello from gopi\n":
		t.Errorf("out.txt %q %v, want what the model wrote", out, readErr)
	case op == "write" && !approve && readErr == nil:
		t.Errorf("a denied write wrote out.txt: %q", out)
	}
	// The model is told the outcome in the tool result.
	if res := h.request(t, 2); !strings.Contains(res, `"tool_result"`) || (!approve && !strings.Contains(res, refused)) {
		t.Errorf("the model was not told the outcome: %s", res)
	} else if !approve && strings.Contains(res, "acpx's peer") {
		t.Errorf("a denied read reached the model: %s", res)
	}
	allOfSession(t, ups, s)
}

// refused is how gopi words a call the permission rules refuse (the
// words the model and the client get; the folder's name holds the case
// id, "permission_denied": a check for "denied" would pass on the path).
const refused = "not permitted by the permission rules"

// toolOutcome is a tool call's last status and the text of its content.
func toolOutcome(ups []acpUpdate, id string) (status, text string) {
	for _, u := range ups {
		if u.Update["toolCallId"] != id {
			continue
		}
		if st, ok := u.Update["status"].(string); ok {
			status = st
		}
		items, _ := u.Update["content"].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			if c, ok := m["content"].(map[string]any); ok {
				s, _ := c["text"].(string)
				text += s
			}
		}
	}
	return status, text
}

func caseUnknownSession(t *testing.T) {
	h := newACPHome(t, "")
	p := initialized(t, h, true)
	newSession(t, p, h.proj)
	wantError(t, p.call("session/prompt", textPrompt("no-such-session", "hi")), -32002, `session "no-such-session" is not open`)
	wantError(t, p.call("session/set_mode", map[string]any{"sessionId": "no-such-session", "modeId": "read-only"}), -32002, "is not open")
	// A cancel of an unknown session is a notification: no response,
	// and gopi serves on.
	p.notify("session/cancel", map[string]any{"sessionId": "no-such-session"})
	if r := p.call("session/list", map[string]any{"cwd": h.proj}); r.Error != nil {
		t.Errorf("session/list after a cancel of no session: %+v", r.Error)
	}
	if h.received() != 0 {
		t.Errorf("an unknown session sent %d model requests", h.received())
	}
}

// An empty prompt (no text, or only blank text) is invalid params:
// nothing is sent to the model, and the session prompts on.
func caseEmptyPrompt(t *testing.T) {
	h := newACPHome(t, "text Echo.")
	p := initialized(t, h, true)
	s := newSession(t, p, h.proj)
	for _, prompt := range [][]any{{}, {map[string]any{"type": "text", "text": ""}}, {map[string]any{"type": "text", "text": " \n"}, map[string]any{"type": "text", "text": ""}}} {
		wantError(t, p.call("session/prompt", map[string]any{"sessionId": s, "prompt": prompt}), -32602, `"prompt" is empty`)
	}
	if h.received() != 0 {
		t.Errorf("an empty prompt sent %d model requests", h.received())
	}
	if got := stopReason(t, p.call("session/prompt", textPrompt(s, "echo"))); got != "end_turn" {
		t.Errorf("stopReason %q, want end_turn", got)
	}
}

// What gopi has no command for goes to the model as typed: a slash
// word that names no prompt template or skill is no error.
func caseUnrecognized(t *testing.T) {
	h := newACPHome(t, "text I do not know that command.")
	p := initialized(t, h, true)
	s := newSession(t, p, h.proj)
	if got := stopReason(t, p.call("session/prompt", textPrompt(s, "/frobnicate the widgets"))); got != "end_turn" {
		t.Errorf("stopReason %q, want end_turn", got)
	}
	if !strings.Contains(h.request(t, 1), "/frobnicate the widgets") {
		t.Errorf("the model was not sent the words as typed: %s", h.request(t, 1))
	}
	ups, _ := p.snapshot()
	if got := messageText(ups); got != "I do not know that command." {
		t.Errorf("message chunks %q", got)
	}
}

func caseCwdNull(t *testing.T) {
	h := newACPHome(t, "")
	p := initialized(t, h, true)
	wantError(t, p.call("session/new", map[string]any{"cwd": nil, "mcpServers": []any{}}), -32602, `"cwd" is missing`)
	wantError(t, p.call("session/new", map[string]any{"cwd": "proj", "mcpServers": []any{}}), -32602, "is not an absolute path")
	wantError(t, p.call("session/new", map[string]any{"cwd": 7, "mcpServers": []any{}}), -32602, "session/new: params are wrong")
	if entries, _ := os.ReadDir(filepath.Join(h.gopiHome, "sessions")); len(entries) != 0 {
		t.Errorf("a refused session/new wrote %d session folders", len(entries))
	}
	newSession(t, p, h.proj) // and gopi serves on
}

// Text, a resource link and an embedded resource (embeddedContext is
// advertised) in one prompt: all of them reach the model.
func caseStructuredBlocks(t *testing.T) {
	h := newACPHome(t, "text Read them all.")
	p := initialized(t, h, true)
	s := newSession(t, p, h.proj)
	link := "file://" + filepath.ToSlash(filepath.Join(h.proj, "notes.md"))
	prompt := []any{
		map[string]any{"type": "text", "text": "compare these"},
		map[string]any{"type": "resource_link", "uri": link, "name": "notes.md"},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///spec.md", "mimeType": "text/markdown", "text": "The spec says hello."}},
	}
	if got := stopReason(t, p.call("session/prompt", map[string]any{"sessionId": s, "prompt": prompt})); got != "end_turn" {
		t.Errorf("stopReason %q, want end_turn", got)
	}
	req := h.request(t, 1)
	for _, want := range []string{"compare these", link, "The spec says hello.", "file:///spec.md"} {
		if !strings.Contains(req, want) {
			t.Errorf("the model request lacks %q: %s", want, req)
		}
	}
}

// A prompt left running while the client goes on: other requests are
// answered meanwhile (another session is opened and prompted to its
// end), and the first prompt completes afterwards with its own updates.
func caseBackgroundCompletion(t *testing.T) {
	// The first answer waits for the second request: the first prompt is
	// surely in flight while the second runs.
	h := newACPHome(t, "match alpha after 2 text First done.\nmatch beta text Second done.")
	p := initialized(t, h, true)
	a := newSession(t, p, h.proj)
	first := p.start("session/prompt", textPrompt(a, "alpha task"))
	b := newSession(t, p, h.proj)
	if got := stopReason(t, p.call("session/prompt", textPrompt(b, "beta task"))); got != "end_turn" {
		t.Errorf("second prompt: stopReason %q, want end_turn", got)
	}
	if got := stopReason(t, p.await(first, "the first prompt")); got != "end_turn" {
		t.Errorf("first prompt: stopReason %q, want end_turn", got)
	}
	ups, _ := p.snapshot()
	bySession := map[string][]acpUpdate{}
	for _, u := range ups {
		bySession[u.SessionID] = append(bySession[u.SessionID], u)
	}
	if got := messageText(bySession[a]); got != "First done." {
		t.Errorf("first session's chunks %q", got)
	}
	if got := messageText(bySession[b]); got != "Second done." {
		t.Errorf("second session's chunks %q", got)
	}
}

// After a cancelled prompt the session takes the next one, which
// continues from what was said.
func caseCancelFollowup(t *testing.T) {
	h := newACPHome(t, "slow Working on it\ntext Picked up again.")
	p := initialized(t, h, true)
	s := newSession(t, p, h.proj)
	pending := p.start("session/prompt", textPrompt(s, "first task"))
	p.waitUpdate("agent_message_chunk")
	p.notify("session/cancel", map[string]any{"sessionId": s})
	if got := stopReason(t, p.await(pending, "the cancelled prompt")); got != "cancelled" {
		t.Fatalf("stopReason %q, want cancelled", got)
	}
	if got := stopReason(t, p.call("session/prompt", textPrompt(s, "second task"))); got != "end_turn" {
		t.Errorf("follow-up stopReason %q, want end_turn", got)
	}
	if second := h.request(t, 2); !strings.Contains(second, "first task") || !strings.Contains(second, "second task") {
		t.Errorf("the follow-up does not continue the session: %s", second)
	}
	ups, _ := p.snapshot()
	if got := messageText(ups); !strings.HasSuffix(got, "Picked up again.") {
		t.Errorf("message chunks %q", got)
	}
}

// A refusal in each provider's words ends an ACP prompt with stopReason
// refusal, and the session records the answer as pi does (stopReason
// error, the refusal as its errorMessage, the model's words kept).
func TestACPRefusal(t *testing.T) {
	tests := []struct {
		name, model, replay, text, says string
	}{
		{"anthropic stop_reason refusal", "", "pkg/ai/anthropic/testdata/refusal.sse", "I can't help with that request", "stop_reason refusal"},
		{"openai refusal field", "gpt-4.1", "pkg/ai/openai/testdata/refusal.sse", "I'm sorry, but I can't help with that.", "a refusal in the message"},
		{"openai content_filter", "gpt-4.1", "pkg/ai/openai/testdata/azure_content_filter.sse", "Step one:", "finish_reason content_filter"},
		{"responses refusal part", "gpt-5-codex", "pkg/ai/responses/testdata/refusal.sse", "I'm sorry, but I can't help with that.", "a refusal content part"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newACPHome(t, "replay "+tt.replay)
			var args []string
			if tt.model != "" {
				h.env = append(h.env, "OPENAI_API_KEY=sk-openai-test-key")
				args = []string{"--provider", "openai", "--model", tt.model, "--base-url", h.fp.srv.URL + "/v1"}
			}
			p := initialized(t, h, true, args...)
			s := newSession(t, p, h.proj)
			if got := stopReason(t, p.call("session/prompt", textPrompt(s, "something bad"))); got != "refusal" {
				t.Errorf("stopReason %q, want refusal", got)
			}
			ups, _ := p.snapshot()
			if got := messageText(ups); !strings.HasPrefix(got, tt.text) {
				t.Errorf("message chunks %q, want the model's words", got)
			}
			p.call("session/close", map[string]any{"sessionId": s})
			last := lastEntry(t, h.gopiHome)
			if last.Message.StopReason != "error" || !strings.Contains(last.Message.ErrorMessage, tt.says) {
				t.Errorf("session's last message: stopReason %q errorMessage %q, want error saying %q", last.Message.StopReason, last.Message.ErrorMessage, tt.says)
			}
			// gopi run says the same: a provider failure (exit 3) naming it.
			if err := h.fp.load("replay " + tt.replay); err != nil {
				t.Fatal(err)
			}
			run := exec.Command(gopiBinary(t), append([]string{"run", "--json", "--no-session", "something bad"}, args...)...)
			run.Dir, run.Env = h.proj, h.env
			out, err := run.Output()
			var res struct {
				Error struct{ Class, Message string }
			}
			if code := run.ProcessState.ExitCode(); code != 3 || json.Unmarshal(out, &res) != nil || res.Error.Class != "server" || !strings.Contains(res.Error.Message, tt.says) {
				t.Errorf("gopi run: exit %d (%v), %s", code, err, out)
			}
		})
	}
}

type sessionEntry struct {
	Type    string `json:"type"`
	Message struct {
		Role         string `json:"role"`
		StopReason   string `json:"stopReason"`
		ErrorMessage string `json:"errorMessage"`
	} `json:"message"`
}

// lastEntry is the last entry of the one session file under home.
func lastEntry(t *testing.T, home string) sessionEntry {
	t.Helper()
	var files []string
	_ = filepath.WalkDir(filepath.Join(home, "sessions"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			files = append(files, path)
		}
		return nil
	})
	if len(files) != 1 {
		t.Fatalf("session files %v, want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var e sessionEntry
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// A provider's failure is no refusal: the prompt is answered with an
// error that says it, and the session prompts on.
func TestACPFailureIsNoRefusal(t *testing.T) {
	h := newACPHome(t, "status 400\ntext Fine now.")
	p := initialized(t, h, true)
	s := newSession(t, p, h.proj)
	wantError(t, p.call("session/prompt", textPrompt(s, "first")), -32603, "the run failed: ")
	if got := stopReason(t, p.call("session/prompt", textPrompt(s, "second"))); got != "end_turn" {
		t.Errorf("stopReason %q after a failure, want end_turn", got)
	}
}
