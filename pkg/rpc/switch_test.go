package rpc

import (
	"errors"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	gruntime "gopi/pkg/runtime"
	"gopi/pkg/session"
)

// switchHost offers a second model, other (described by info), beside
// faux's; building it fails with err when set.
type switchHost struct {
	benchHost
	other *faux.Model
	info  ai.Info
	err   error
}

var otherInfo = ai.Info{ID: "other", Name: "Other", Provider: "faux", API: "faux", ContextWindow: 100_000, Reasoning: true}

func (h switchHost) Models() []ai.Info { return []ai.Info{faux.Info, h.info} }
func (h switchHost) Model(provider, id string) (ai.Model, ai.Info, error) {
	return h.other, h.info, h.err
}

// switchServer serves a Runtime on g, the switch offering other.
func switchServer(t *testing.T, g *gatedModel, h switchHost, thinking ai.ThinkingLevel) (*client, *session.MemoryStore) {
	t.Helper()
	store := session.NewMemoryStore("/work/proj", session.Options{})
	info := faux.Info
	info.Reasoning = true
	rt, err := gruntime.New(gruntime.Config{Model: info, Thinking: thinking, Compaction: gruntime.Compaction{Disabled: true}},
		gruntime.Deps{Model: g, Session: store})
	if err != nil {
		t.Fatal(err)
	}
	return startClient(t, Opened{Runtime: rt, Model: info}, h, Options{Thinking: thinking}), store
}

// set_model and set_thinking_level while the run waits on its model
// reach the run's next request, as pi's: the answer after the tool comes
// from the model asked for, at the level asked for, and the switch is in
// the session before the run's next entry.
func TestServeSetModelDuringARun(t *testing.T) {
	g := newGated(faux.Call("missing", `{}`))
	other := faux.New(faux.Text("from the other")).WithInfo(otherInfo)
	c, store := switchServer(t, g, switchHost{other: other, info: otherInfo}, "")
	c.send(`{"id":"1","type":"prompt","message":"go"}`)
	c.until(`{"type":"message_end"`) // the prompt's: the model is asked next
	<-g.started
	c.send(`{"id":"2","type":"set_model","provider":"faux","modelId":"other"}`)
	c.send(`{"id":"3","type":"set_thinking_level","level":"high"}`)
	c.until(`{"id":"3",`)
	g.release <- struct{}{}
	g.release <- struct{}{} // were the next request still the first model's
	got := strings.Join(c.until(`{"type":"agent_settled"`), "\n")
	if !strings.Contains(got, `"text":"from the other"`) {
		t.Fatalf("the run's next request did not reach the model asked for:\n%s", got)
	}
	reqs := other.Requests()
	if len(reqs) != 1 || reqs[0].Thinking != ai.ThinkingHigh {
		t.Fatalf("the model asked for got %d requests (%+v), want one at high", len(reqs), reqs)
	}
	var kinds []string
	for _, e := range store.Entries() {
		k := string(e.Type)
		if e.Message != nil {
			k = string(e.Message.Role)
		}
		if e.Type == session.TypeModelChange {
			k += ":" + e.ModelID
		}
		kinds = append(kinds, k)
	}
	want := "model_change:faux user model_change:other thinking_level_change assistant toolResult assistant"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("entries %s\nwant %s", strings.Join(kinds, " "), want)
	}
	c.end()
}

// A model without reasoning switched to during a run gets its next
// request with thinking off, as pi clamps it, and get_state says off; a
// model the host cannot build is refused and the run goes on with its
// own.
func TestServeSetModelDuringARunClampsAndRefuses(t *testing.T) {
	plain := otherInfo
	plain.Reasoning = false
	g := newGated(faux.Call("missing", `{}`), faux.Text("still the first"))
	other := faux.New(faux.Text("from the other")).WithInfo(plain)
	c, _ := switchServer(t, g, switchHost{other: other, info: plain}, ai.ThinkingHigh)
	c.send(`{"id":"1","type":"prompt","message":"go"}`)
	c.until(`{"type":"message_end"`)
	<-g.started
	c.send(`{"id":"2","type":"set_model","provider":"faux","modelId":"other"}`)
	c.send(`{"id":"3","type":"get_state"}`)
	if st := c.until(`{"id":"3",`); !strings.Contains(st[len(st)-1], `"thinkingLevel":"off"`) {
		t.Fatalf("get_state after the switch: %s", st[len(st)-1])
	}
	g.release <- struct{}{}
	g.release <- struct{}{}
	c.until(`{"type":"agent_settled"`)
	if reqs := other.Requests(); len(reqs) != 1 || reqs[0].Thinking != ai.ThinkingOff {
		t.Fatalf("the model without reasoning got %+v, want one request with thinking off", reqs)
	}
	c.end()

	g = newGated(faux.Call("missing", `{}`), faux.Text("still the first"))
	c, _ = switchServer(t, g, switchHost{info: otherInfo, err: errors.New("no key for faux/other")}, "")
	c.send(`{"id":"1","type":"prompt","message":"go"}`)
	c.until(`{"type":"message_end"`)
	<-g.started
	c.send(`{"id":"2","type":"set_model","provider":"faux","modelId":"other"}`)
	if got := c.until(`{"id":"2",`); got[len(got)-1] != `{"id":"2","type":"response","schemaVersion":1,"command":"set_model","success":false,"error":"no key for faux/other"}` {
		t.Fatalf("set_model of a model that cannot be built: %s", got[len(got)-1])
	}
	g.release <- struct{}{}
	g.release <- struct{}{}
	if got := strings.Join(c.until(`{"type":"agent_settled"`), "\n"); !strings.Contains(got, `"text":"still the first"`) {
		t.Fatalf("the run did not go on with its model:\n%s", got)
	}
	c.end()
}
