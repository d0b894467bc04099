package rpc

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"gopi/pkg/session"
)

// ask sends line and reads records up to its response, which it returns
// as written (not normalized) with the records before it normalized.
func (c *client) ask(line string) (resp string, before []string) {
	c.t.Helper()
	var id struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(line), &id); err != nil || id.ID == "" {
		c.t.Fatalf("ask needs a command with an id: %s", line)
	}
	c.send(line)
	for {
		b, err := c.recs.Next()
		if err != nil {
			c.t.Fatalf("reading the response to %s: %v", line, err)
		}
		if strings.HasPrefix(string(b), `{"id":"`+id.ID+`","type":"response"`) {
			return string(b), before
		}
		before = append(before, normalize(string(b)))
	}
}

// data decodes a response's data field into v.
func data(t *testing.T, resp string, v any) {
	t.Helper()
	var r struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   string          `json:"error"`
	}
	if err := json.Unmarshal([]byte(resp), &r); err != nil || !r.Success {
		t.Fatalf("response %s (%v)", resp, err)
	}
	if err := json.Unmarshal(r.Data, v); err != nil {
		t.Fatalf("data of %s: %v", resp, err)
	}
}

// stateOf is the part of get_state's answer the session commands change.
type stateOf struct {
	SessionFile  string `json:"sessionFile"`
	SessionID    string `json:"sessionId"`
	MessageCount int    `json:"messageCount"`
	Thinking     string `json:"thinkingLevel"`
	Streaming    bool   `json:"isStreaming"`
	Compacting   bool   `json:"isCompacting"`
	Model        struct {
		Provider string `json:"provider"`
		ID       string `json:"id"`
	} `json:"model"`
}

func (c *client) state() stateOf {
	c.t.Helper()
	resp, before := c.ask(`{"id":"st","type":"get_state"}`)
	if len(before) != 0 {
		c.t.Fatalf("records before get_state's answer: %s", strings.Join(before, "\n"))
	}
	var s stateOf
	data(c.t, resp, &s)
	return s
}

// forkMessages is get_fork_messages' answer: each user message's entry
// id and text.
func (c *client) forkMessages() []struct{ EntryID, Text string } {
	c.t.Helper()
	resp, _ := c.ask(`{"id":"fm","type":"get_fork_messages"}`)
	var d struct {
		Messages []struct{ EntryID, Text string } `json:"messages"`
	}
	data(c.t, resp, &d)
	return d.Messages
}

// say prompts text and reads the run to its agent_settled.
func (c *client) say(text string) {
	c.t.Helper()
	b, _ := json.Marshal(text)
	c.send(`{"id":"say","type":"prompt","message":` + string(b) + `}`)
	c.expect(`{"id":"say","type":"response","schemaVersion":1,"command":"prompt","success":true,"data":{"disposition":"started"}}`)
	if got := c.until(`{"type":"agent_settled"`); got[len(got)-1] != `{"type":"agent_settled","schemaVersion":1,"aborted":false}` {
		c.t.Fatalf("the run of %q ended %s", text, got[len(got)-1])
	}
}

// parentOf is the parentSession a session file's header names.
func parentOf(t *testing.T, file string) string {
	t.Helper()
	f, err := session.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return f.Header.ParentSession
}

func answer(id, command, rest string) string {
	return `{"id":"` + id + `","type":"response","schemaVersion":1,"command":"` + command + `",` + rest + `}`
}

const (
	userHi     = `{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":T}`
	helloReply = `{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"faux","provider":"faux","model":"SCRIPT","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}},"stopReason":"stop","timestamp":T,"durationMs":D,"thinkingLevel":"off"}`
)

// fork starts a new session from before a user message of the session,
// answers that message's text, and names the session it came from as
// its parent; clone copies the path to the current entry into a new
// session; switch_session opens another file at its newest entry. Each
// refuses what pi refuses, in pi's words.
func TestServeForkCloneAndSwitch(t *testing.T) {
	a := fauxAssembly(t, false)
	h := NewHost(a, HostConfig{Catalog: catalog, MaxPrompt: 1 << 20, MaxPromptOrigin: "--max-prompt-bytes"})
	c := startClient(t, h.First(), h, Options{})
	for _, step := range []struct{ send, want string }{
		{`{"id":"c0","type":"clone"}`, answer("c0", "clone", `"success":false,"error":"This session has not been saved yet. Send a message before cloning or forking it."`)},
		{`{"id":"f0","type":"fork"}`, answer("f0", "fork", `"success":false,"error":"field \"entryId\" is required"`)},
		{`{"id":"f1","type":"fork","entryId":"nosuch"}`, answer("f1", "fork", `"success":false,"error":"Invalid entry ID for forking"`)},
		{`{"id":"s0","type":"switch_session"}`, answer("s0", "switch_session", `"success":false,"error":"field \"sessionPath\" is required"`)},
		{`{"id":"fm0","type":"get_fork_messages"}`, answer("fm0", "get_fork_messages", `"success":true,"data":{"messages":[]}`)},
	} {
		c.send(step.send)
		c.expect(step.want)
	}
	c.say("hi")
	c.say("two")
	orig := c.state()
	if orig.SessionFile != a.File() || orig.MessageCount != 4 {
		t.Fatalf("state before forking %+v", orig)
	}
	users := c.forkMessages()
	if len(users) != 2 || users[0].Text != "hi" || users[1].Text != "two" || users[0].EntryID == users[1].EntryID {
		t.Fatalf("fork messages %+v", users)
	}
	resp, _ := c.ask(`{"id":"e","type":"get_entries"}`)
	var entries struct {
		Entries []session.Entry `json:"entries"`
		LeafID  string          `json:"leafId"`
	}
	data(t, resp, &entries)
	// The answer to "hi" is a message entry, but not a user's: no fork.
	reply := entries.Entries[2]
	if reply.Message == nil || reply.Message.Text() != "hello" {
		t.Fatalf("entries %+v", entries.Entries)
	}
	// since: the entries after the one it names.
	resp, _ = c.ask(`{"id":"e2","type":"get_entries","since":"` + entries.Entries[1].ID + `"}`)
	var later struct {
		Entries []session.Entry `json:"entries"`
		LeafID  string          `json:"leafId"`
	}
	data(t, resp, &later)
	if len(later.Entries) != len(entries.Entries)-2 || later.Entries[0].ID != reply.ID || later.LeafID != entries.LeafID {
		t.Fatalf("entries since %s:\n%s", entries.Entries[1].ID, resp)
	}
	c.send(`{"id":"e3","type":"get_entries","since":"nosuch"}`)
	c.expect(answer("e3", "get_entries", `"success":false,"error":"Entry not found: nosuch"`))
	c.send(`{"id":"f2","type":"fork","entryId":"` + reply.ID + `"}`)
	c.expect(answer("f2", "fork", `"success":false,"error":"Invalid entry ID for forking"`))

	c.send(`{"id":"f3","type":"fork","entryId":"` + users[1].EntryID + `"}`)
	c.expect(answer("f3", "fork", `"success":true,"data":{"text":"two","cancelled":false}`))
	forked := c.state()
	if forked.SessionFile == "" || forked.SessionFile == orig.SessionFile || forked.SessionID == orig.SessionID || forked.MessageCount != 2 {
		t.Fatalf("state after the fork %+v (was %+v)", forked, orig)
	}
	if p := parentOf(t, forked.SessionFile); p != orig.SessionFile {
		t.Fatalf("the fork's parent is %q, want %q", p, orig.SessionFile)
	}
	c.send(`{"id":"m1","type":"get_messages"}`)
	c.expect(answer("m1", "get_messages", `"success":true,"data":{"messages":[`+userHi+`,`+helloReply+`]}`))
	if got := c.forkMessages(); len(got) != 1 || got[0].Text != "hi" {
		t.Fatalf("fork messages of the fork %+v", got)
	}

	c.send(`{"id":"c1","type":"clone"}`)
	c.expect(answer("c1", "clone", `"success":true,"data":{"cancelled":false}`))
	cloned := c.state()
	if cloned.SessionFile == "" || cloned.SessionFile == forked.SessionFile || cloned.SessionFile == orig.SessionFile || cloned.MessageCount != 2 {
		t.Fatalf("state after the clone %+v", cloned)
	}
	if p := parentOf(t, cloned.SessionFile); p != forked.SessionFile {
		t.Fatalf("the clone's parent is %q, want %q", p, forked.SessionFile)
	}
	c.send(`{"id":"m2","type":"get_messages"}`)
	c.expect(answer("m2", "get_messages", `"success":true,"data":{"messages":[`+userHi+`,`+helloReply+`]}`))

	b, _ := json.Marshal(orig.SessionFile)
	c.send(`{"id":"s1","type":"switch_session","sessionPath":` + string(b) + `}`)
	c.expect(answer("s1", "switch_session", `"success":true,"data":{"cancelled":false}`))
	back := c.state()
	if back.SessionFile != orig.SessionFile || back.SessionID != orig.SessionID || back.MessageCount != 4 {
		t.Fatalf("state after switching back %+v, want %+v", back, orig)
	}
	c.send(`{"id":"lt","type":"get_last_assistant_text"}`)
	c.expect(answer("lt", "get_last_assistant_text", `"success":true,"data":{"text":"again"}`))

	// Forking at the first message: an empty session, this one its parent.
	c.send(`{"id":"f4","type":"fork","entryId":"` + users[0].EntryID + `"}`)
	c.expect(answer("f4", "fork", `"success":true,"data":{"text":"hi","cancelled":false}`))
	empty := c.state()
	if empty.SessionFile == orig.SessionFile || empty.MessageCount != 0 {
		t.Fatalf("state after forking at the first message %+v", empty)
	}
	c.say("three") // the file is written with its first message
	if p := parentOf(t, empty.SessionFile); p != orig.SessionFile {
		t.Fatalf("the fork's parent is %q, want %q", p, orig.SessionFile)
	}
	missing := strings.TrimSuffix(orig.SessionFile, ".jsonl") + "-nosuch.jsonl"
	b, _ = json.Marshal(missing)
	resp, _ = c.ask(`{"id":"s2","type":"switch_session","sessionPath":` + string(b) + `}`)
	if want := answer("s2", "switch_session", `"success":false,"error":"sessionPath `+missing+`: no such session file"`); resp != want {
		t.Fatalf("switching to a missing file\n%s\nwant\n%s", resp, want)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatalf("switching to a missing file made it")
	}
	if st := c.state(); st.SessionFile != empty.SessionFile {
		t.Fatalf("a refused switch left %q in use, want %q", st.SessionFile, empty.SessionFile)
	}
	c.end()
}

// Without a session file, fork and clone are refused naming
// --no-session, and switch_session is the host's refusal; the session
// goes on.
func TestServeForkWithoutSessionFile(t *testing.T) {
	h := NewHost(fauxAssembly(t, true), HostConfig{MaxPrompt: 1 << 20, NoSession: true})
	first := h.First()
	first.File = "" // kept in memory
	c := startClient(t, first, h, Options{})
	c.say("hi")
	users := c.forkMessages()
	if len(users) != 1 {
		t.Fatalf("fork messages %+v", users)
	}
	for _, step := range []struct{ send, want string }{
		{`{"id":"f","type":"fork","entryId":"` + users[0].EntryID + `"}`, answer("f", "fork", `"success":false,"error":"this session is kept in memory only (--no-session): there is no file to fork"`)},
		{`{"id":"c","type":"clone"}`, answer("c", "clone", `"success":false,"error":"this session is kept in memory only (--no-session): there is no file to fork"`)},
		{`{"id":"s","type":"switch_session","sessionPath":"/x.jsonl"}`, answer("s", "switch_session", `"success":false,"error":"gopi rpc runs with --no-session: it opens and forks no session files"`)},
		{`{"id":"m","type":"get_messages"}`, answer("m", "get_messages", `"success":true,"data":{"messages":[`+userHi+`,`+helloReply+`]}`)},
	} {
		c.send(step.send)
		c.expect(step.want)
	}
	c.end()
}
