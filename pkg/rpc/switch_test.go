package rpc

import (
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/faux"
	gruntime "gopi/pkg/runtime"
	"gopi/pkg/session"
)

// switchHost offers a second model, other, beside faux's.
type switchHost struct {
	benchHost
	other *faux.Model
}

var otherInfo = ai.Info{ID: "other", Name: "Other", Provider: "faux", API: "faux", ContextWindow: 100_000, Reasoning: true}

func (h switchHost) Models() []ai.Info { return []ai.Info{faux.Info, otherInfo} }
func (h switchHost) Model(provider, id string) (ai.Model, ai.Info, error) {
	return h.other, otherInfo, nil
}

// set_model and set_thinking_level while the run waits on its model
// reach the run's next request, as pi's: the answer after the tool comes
// from the model asked for, at the level asked for, and the switch is in
// the session before the run's next entry.
func TestServeSetModelDuringARun(t *testing.T) {
	g := newGated(faux.Call("missing", `{}`))
	other := faux.New(faux.Text("from the other")).WithInfo(otherInfo)
	store := session.NewMemoryStore("/work/proj", session.Options{})
	rt, err := gruntime.New(gruntime.Config{Model: faux.Info, Compaction: gruntime.Compaction{Disabled: true}},
		gruntime.Deps{Model: g, Session: store})
	if err != nil {
		t.Fatal(err)
	}
	c := startClient(t, Opened{Runtime: rt, Model: faux.Info}, switchHost{other: other}, Options{})
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
