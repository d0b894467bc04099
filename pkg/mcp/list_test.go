package mcp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"gopi/pkg/mcp"
)

func listStatuses() []mcp.Status {
	return []mcp.Status{
		{Server: mcp.Server{Name: "fs", Command: "npx", Args: []string{"server-fs", "/tmp"}, Source: "mcp.json", Required: true},
			State: mcp.StateStarted, Tools: []mcp.ToolInfo{
				{Name: "mcp__fs__read", Description: "  Read a file.\nMore lines.", Selected: true},
				{Name: "mcp__fs__write", Description: "Write <a> file", Selected: false},
				{Name: "mcp__fs__list", Selected: true, Note: "its name is taken"},
			}},
		{Server: mcp.Server{Name: "web", URL: "https://example.com/mcp?token=s3cret", Source: "settings.json"},
			State: mcp.StateFailed, Reason: "connection refused", Stderr: "line one\nline two"},
		{Server: mcp.Server{Name: "off", Command: "x", Source: "settings.json"}, State: mcp.StateDisabled},
		{Server: mcp.Server{Name: "gone", Command: "y", Source: "s"}, State: mcp.StateDied, Reason: "it ended"},
	}
}

func TestWriteList(t *testing.T) {
	var b bytes.Buffer
	if err := mcp.WriteList(&b, listStatuses()); err != nil {
		t.Fatal(err)
	}
	want := `fs (stdio: npx server-fs /tmp) started, 3 tool(s)
  mcp__fs__read  Read a file.
  mcp__fs__write (not offered)  Write <a> file
  mcp__fs__list (not offered: its name is taken)  
  from mcp.json
web (http: https://example.com/mcp?token=***) failed: connection refused
  stderr:
    line one
    line two
  from settings.json
off (stdio: x) disabled
  from settings.json
gone (stdio: y) died: it ended
  from s
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	b.Reset()
	if err := mcp.WriteList(&b, nil); err != nil || !strings.HasPrefix(b.String(), "No MCP servers configured: ") {
		t.Errorf("no servers: %q %v", b.String(), err)
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := mcp.WriteJSON(&b, listStatuses()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines: %q", len(lines), b.String())
	}
	if !strings.Contains(lines[0], `"description":"Write <a> file"`) { // no HTML escapes
		t.Errorf("line 1: %s", lines[0])
	}
	want := `{"name":"web","transport":"http","target":"https://example.com/mcp?token=***","required":false,"state":"failed","reason":"connection refused","stderr":"line one\nline two","source":"settings.json","tools":[]}`
	if lines[1] != want {
		t.Errorf("line 2:\n%s\nwant\n%s", lines[1], want)
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first["required"] != true || first["state"] != "started" {
		t.Errorf("line 1: %v %v", first, err)
	}
	if strings.Contains(lines[2], `"reason"`) || strings.Contains(lines[2], `"stderr"`) {
		t.Errorf("empty reason and stderr are left out: %s", lines[2])
	}
}

func TestWritePlan(t *testing.T) {
	var b bytes.Buffer
	servers := []mcp.Server{
		{Name: "a", Command: "run-a", Source: "mcp.json"},
		{Name: "b", URL: "http://h/mcp", Disabled: true, Required: true, Source: "settings.json"},
		{Name: "c", Command: "run-c", Required: true, Source: "x"},
	}
	if err := mcp.WritePlan(&b, servers); err != nil {
		t.Fatal(err)
	}
	want := "\n# MCP servers (a run starts them; gopi mcp list starts them and lists their tools)\n" +
		"- a (stdio: run-a) from mcp.json\n- b (http: http://h/mcp) [disabled, required] from settings.json\n- c (stdio: run-c) [required] from x\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	b.Reset()
	_ = mcp.WritePlan(&b, nil)
	if !strings.HasSuffix(b.String(), "tools)\n- none\n") {
		t.Errorf("none: %q", b.String())
	}
}

func TestLeastArgs(t *testing.T) {
	schema := `{"properties":{"n":{"type":"number"},"i":{"type":"integer"},"e":{"type":"string","enum":["b","a"]},
		"s":{"type":"string"},"b":{"type":"boolean"},"o":{"type":"object"},"l":{"type":"array"},"skip":{"type":"string"},"u":{}},
		"required":["n","i","e","s","b","o","l","u"]}`
	got := string(mcp.LeastArgs(json.RawMessage(schema)))
	want := `{"b":true,"e":"b","i":1,"l":[],"n":1,"o":{},"s":"x","u":"x"}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got := string(mcp.LeastArgs(json.RawMessage(`not json`))); got != "{}" {
		t.Errorf("bad schema: %s", got)
	}
}

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

// A write that fails is the error, for every form.
func TestWritesFail(t *testing.T) {
	if err := mcp.WriteJSON(brokenWriter{}, listStatuses()); err == nil {
		t.Error("WriteJSON")
	}
	if err := mcp.WriteList(brokenWriter{}, nil); err == nil {
		t.Error("WriteList of none")
	}
	if err := mcp.WritePlan(brokenWriter{}, nil); err == nil {
		t.Error("WritePlan of none")
	}
}
