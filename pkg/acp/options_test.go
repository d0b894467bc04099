package acp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
)

// optionSession keeps the model, thinking level and sandbox mode it is
// set to; "refused" is a value each setter refuses.
type optionSession struct {
	scriptedSession
	model    ai.Info
	thinking ai.ThinkingLevel
	sandbox  string
}

func (s *optionSession) Model() ai.Info { return s.model }
func (s *optionSession) Models() []ai.Info {
	return []ai.Info{{Provider: "faux", ID: "demo", Name: "Demo"}, {Provider: "faux", ID: "deep"}, {Provider: "faux", ID: "refused"}}
}
func (s *optionSession) SetModel(ref string) error {
	if strings.HasSuffix(ref, "refused") {
		return errors.New("the model cannot be built")
	}
	for _, m := range s.Models() {
		if m.Provider+"/"+m.ID == ref {
			s.model = m
		}
	}
	return nil
}
func (s *optionSession) Thinking() ai.ThinkingLevel { return s.thinking }
func (s *optionSession) SetThinking(l ai.ThinkingLevel) error {
	if l == ai.ThinkingXHigh {
		return errors.New("xhigh is refused")
	}
	s.thinking = l
	return nil
}
func (s *optionSession) Sandbox() string     { return s.sandbox }
func (s *optionSession) Sandboxes() []string { return []string{"read-only", "off", "custom"} }
func (s *optionSession) SetSandbox(m string) error {
	if m == "custom" {
		return errors.New("custom is refused")
	}
	s.sandbox = m
	return nil
}

type optionHost struct{ s *optionSession }

func (h optionHost) New(context.Context, string, []MCPServer) (Session, error) { return h.s, nil }
func (h optionHost) Load(context.Context, string, string, []MCPServer) (Session, error) {
	return h.s, nil
}
func (h optionHost) List(string) ([]Listed, error) { return nil, nil }

// session/set_config_option switches the model and the thinking level
// and answers every option as it is now; session/set_mode switches the
// sandbox mode and says so; each refuses a value it does not offer, or
// one the session refuses, in the client's terms.
func TestServeConfigOptionsAndModes(t *testing.T) {
	s := &optionSession{model: ai.Info{Provider: "faux", ID: "demo", Name: "Demo"}, sandbox: "off"}
	c := dial(t, optionHost{s}, Options{})
	models := `"options":[{"description":"faux","name":"Demo","value":"faux/demo"},{"description":"faux","name":"deep","value":"faux/deep"},{"description":"faux","name":"refused","value":"faux/refused"}]`
	levels := `"options":[{"name":"off","value":"off"},{"name":"minimal","value":"minimal"},{"name":"low","value":"low"},{"name":"medium","value":"medium"},{"name":"high","value":"high"},{"name":"xhigh","value":"xhigh"}]`
	options := func(model, level string) string {
		return `"configOptions":[{"category":"model","currentValue":"` + model + `","id":"model","name":"Model",` + models + `,"type":"select"},` +
			`{"category":"thought_level","currentValue":"` + level + `","id":"thinking","name":"Thinking",` + levels + `,"type":"select"}]`
	}
	modes := `"modes":{"availableModes":[{"description":"Commands and tools may read, not write (sandbox read-only)","id":"read-only","name":"Read only"},{"description":"Commands run without a sandbox","id":"off","name":"No sandbox"},{"description":"","id":"custom","name":"custom"}],"currentModeId":"off"}`
	set := func(id int, config, value string) string {
		return sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/set_config_option","params":{"sessionId":"s1","configId":"%s","value":%s}}`, id, config, value)
	}
	mode := func(id int, m string) string {
		return sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"%s"}}`, id, m)
	}
	c.exchange([]step{
		one(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p"}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"availableCommands":[{"description":"fix it","input":{"hint":"arguments"},"name":"fix"}],"sessionUpdate":"available_commands_update"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{`+options("faux/demo", "off")+`,`+modes+`,"sessionId":"s1"}}`),
		one(set(2, "model", `"faux/deep"`), `{"jsonrpc":"2.0","id":2,"result":{`+options("faux/deep", "off")+`}}`),
		one(set(3, "thinking", `"high"`), `{"jsonrpc":"2.0","id":3,"result":{`+options("faux/deep", "high")+`}}`),
		one(set(4, "model", `"faux/nosuch"`), errLine(4, -32602, `model "faux/nosuch" is not one gopi offers here: pick one of the model option's values`)),
		one(set(5, "model", `"faux/refused"`), errLine(5, -32602, `the model cannot be built`)),
		one(set(6, "thinking", `"loud"`), errLine(6, -32602, `thinking level "loud": use off, minimal, low, medium, high or xhigh`)),
		one(set(7, "thinking", `"xhigh"`), errLine(7, -32602, `xhigh is refused`)),
		one(set(8, "thinking", `3`), errLine(8, -32602, `"value" of "thinking" must be a string`)),
		one(set(9, "color", `"red"`), errLine(9, -32602, `unknown config option "color": gopi has model and thinking`)),
		one(`{"jsonrpc":"2.0","id":10,"method":"session/set_config_option","params":{"sessionId":"s2","configId":"model","value":"faux/deep"}}`,
			errLine(10, -32002, `session "s2" is not open: start one with session/new or open it with session/load`)),
		one(`{"jsonrpc":"2.0","id":11,"method":"session/set_config_option","params":[1]}`,
			errLine(11, -32602, `session/set_config_option: params are wrong ("" has the wrong type)`)),
		one(mode(12, "read-only"),
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"currentModeId":"read-only","sessionUpdate":"current_mode_update"}}}`,
			`{"jsonrpc":"2.0","id":12,"result":{}}`),
		one(mode(13, "yolo"), errLine(13, -32602, `mode "yolo": use one of read-only, off, custom`)),
		one(mode(14, "custom"), errLine(14, -32602, `custom is refused`)),
		one(`{"jsonrpc":"2.0","id":15,"method":"session/set_mode","params":{"modeId":"off"}}`, errLine(15, -32602, `"sessionId" is missing: give the id session/new answered`)),
	})
	if s.model.ID != "deep" || s.thinking != ai.ThinkingHigh || s.sandbox != "read-only" {
		t.Fatalf("session set to %s, %s, %s", s.model.ID, s.thinking, s.sandbox)
	}
	c.close()
}

// A prompt's blocks are one user message: text (a first text naming a
// command expanded), images, resource links and embedded text or image
// resources; what gopi does not take is refused naming the block.
func TestServePromptBlocks(t *testing.T) {
	s := &scriptedSession{}
	for range 3 {
		s.turns = append(s.turns, ended(loop.ReasonStop, nil))
	}
	c := dial(t, scriptedHost{s}, Options{})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`)
	c.until(`"id":1,`)
	prompt := func(id int, blocks string) string {
		return sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"s1","prompt":[%s]}}`, id, blocks)
	}
	endTurn := func(id int) string {
		return sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"stopReason":"end_turn"}}`, id)
	}
	c.exchange([]step{
		one(prompt(2, `{"type":"text","text":" /fix the tests"},{"type":"text","text":"/fix not this"},{"type":"image","data":"AAAA","mimeType":"image/png"},`+
			`{"type":"resource_link","name":"notes","uri":"file:///p/notes.md"},{"type":"resource","resource":{"uri":"file:///p/a.go","text":"package a"}},`+
			`{"type":"resource","resource":{"uri":"file:///p/b.png","blob":"BBBB","mimeType":"image/png"}}`), endTurn(2)),
		one(prompt(3, `{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"text","text":"/fix later"}`), endTurn(3)),
		one(prompt(4, `{"type":"text","text":"/nosuch x"}`), errLine(4, -32602, "unknown command /nosuch x")),
		one(prompt(5, `{"type":"text","text":"a"},{"type":"image","data":"","mimeType":"image/png"}`), errLine(5, -32602, `prompt[1]: an image needs "data" (base64) and an image "mimeType"`)),
		one(prompt(6, `{"type":"image","data":"AAAA","mimeType":"text/plain"}`), errLine(6, -32602, `prompt[0]: an image needs "data" (base64) and an image "mimeType"`)),
		one(prompt(7, `{"type":"resource"}`), errLine(7, -32602, `prompt[0]: a resource needs "resource"`)),
		one(prompt(8, `{"type":"resource","resource":{"uri":"file:///p/x.bin","blob":"AAAA","mimeType":"application/octet-stream"}}`),
			errLine(8, -32602, `prompt[0]: resource file:///p/x.bin is binary (application/octet-stream): gopi takes text and images`)),
		one(prompt(9, `{"type":"audio","data":"AAAA","mimeType":"audio/wav"}`), errLine(9, -32602, `prompt[0]: content type "audio" is not taken: send text, image, resource or resource_link`)),
		one(prompt(10, ``), errLine(10, -32602, `"prompt" is empty: send at least one text block`)),
		one(prompt(11, `{"type":"text","text":"plain"}`), endTurn(11)),
	})
	c.close()
	want := []ai.Message{
		{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("fixed: the tests"), ai.TextContent("/fix not this"), ai.ImageContent("AAAA", "image/png"),
			ai.TextContent("[notes](file:///p/notes.md)"), ai.TextContent("<file uri=\"file:///p/a.go\">\npackage a\n</file>"), ai.ImageContent("BBBB", "image/png")}},
		{Role: ai.RoleUser, Content: []ai.Content{ai.ImageContent("AAAA", "image/png"), ai.TextContent("/fix later")}},
		{Role: ai.RoleUser, Content: []ai.Content{ai.TextContent("plain")}},
	}
	got := s.messages()
	if len(got) != len(want) {
		t.Fatalf("%d messages, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if g, w := sprintf("%+v", got[i]), sprintf("%+v", want[i]); g != w {
			t.Errorf("message %d\n%s\nwant\n%s", i, g, w)
		}
	}
}
