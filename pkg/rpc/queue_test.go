package rpc

import (
	"strings"
	"testing"

	"gopi/pkg/ai/faux"
)

func queued(id, command string) string {
	return `{"id":"` + id + `","type":"response","schemaVersion":1,"command":"` + command + `","success":true,"data":{"disposition":"queued"}}`
}

// While a run waits on its model, steer and follow_up are queued, a
// prompt without streamingBehavior is refused, and both queued messages
// reach the model in the run; get_state says the run is streaming.
func TestServeSteerAndFollowUpDuringARun(t *testing.T) {
	g := newGated(faux.Text("first answer"))
	c := gatedServer(t, g)
	c.send(`{"id":"1","type":"prompt","message":"go"}`)
	c.expect(`{"id":"1","type":"response","schemaVersion":1,"command":"prompt","success":true,"data":{"disposition":"started"}}`)
	c.until(`{"type":"message_end"`) // the prompt's: the model is asked next
	<-g.started
	c.send(`{"id":"2","type":"steer","message":"steer one"}`)
	c.send(`{"id":"3","type":"follow_up","message":"follow one"}`)
	c.send(`{"id":"4","type":"prompt","message":"again"}`)
	c.send(`{"id":"5","type":"prompt","message":"later","streamingBehavior":"followUp"}`)
	c.send(`{"id":"6","type":"prompt","message":"x","streamingBehavior":"sideways"}`)
	c.send(`{"id":"7","type":"get_state"}`)
	got := c.until(`{"id":"7",`)
	var responses []string
	for _, l := range got {
		if strings.Contains(l, `"type":"response"`) {
			responses = append(responses, l)
		}
	}
	want := []string{queued("2", "steer"), queued("3", "follow_up"),
		`{"id":"4","type":"response","schemaVersion":1,"command":"prompt","success":false,"error":"Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."}`,
		queued("5", "prompt"),
		`{"id":"6","type":"response","schemaVersion":1,"command":"prompt","success":false,"error":"streamingBehavior \"sideways\": use \"steer\" or \"followUp\""}`}
	for i, w := range want {
		if i >= len(responses) || responses[i] != w {
			t.Fatalf("responses\n%s\nwant\n%s", strings.Join(responses, "\n"), strings.Join(want, "\n"))
		}
	}
	if st := responses[len(responses)-1]; !strings.Contains(st, `"isStreaming":true,`) || !strings.Contains(st, `"pendingMessageCount":3}`) {
		t.Fatalf("get_state during the run: %s", st)
	}
	for range 4 {
		g.release <- struct{}{}
	}
	all := strings.Join(c.until(`{"type":"agent_settled"`), "\n")
	if !strings.HasSuffix(all, `{"type":"agent_settled","schemaVersion":1,"aborted":false}`) {
		t.Fatalf("the run ended\n%s", all)
	}
	for _, text := range []string{"steer one", "follow one", "later"} {
		if !strings.Contains(all, `"role":"user","content":[{"type":"text","text":"`+text+`"}]`) {
			t.Errorf("%q was not delivered:\n%s", text, all)
		}
	}
	c.send(`{"id":"8","type":"get_state"}`)
	if st := c.next(); !strings.Contains(st, `"isStreaming":false,`) || !strings.Contains(st, `"pendingMessageCount":0}`) {
		t.Fatalf("get_state after the run: %s", st)
	}
	c.end()
}

// abort ends the run waiting on its model: agent_settled aborted, then
// the abort's response; abort while idle answers success at once.
func TestServeAbort(t *testing.T) {
	g := newGated()
	c := gatedServer(t, g)
	c.send(`{"id":"0","type":"abort"}`)
	c.expect(`{"id":"0","type":"response","schemaVersion":1,"command":"abort","success":true}`)
	c.send(`{"id":"1","type":"prompt","message":"go"}`)
	c.expect(`{"id":"1","type":"response","schemaVersion":1,"command":"prompt","success":true,"data":{"disposition":"started"}}`)
	c.until(`{"type":"message_end"`) // the prompt's: the model is asked next
	<-g.started
	c.send(`{"id":"2","type":"abort"}`)
	got := c.until(`{"id":"2",`)
	if n := len(got); n < 2 || got[n-2] != `{"type":"agent_settled","schemaVersion":1,"aborted":true}` ||
		got[n-1] != `{"id":"2","type":"response","schemaVersion":1,"command":"abort","success":true}` {
		t.Fatalf("abort\n%s", strings.Join(got, "\n"))
	}
	c.send(`{"id":"3","type":"get_state"}`)
	if st := c.next(); !strings.Contains(st, `"isStreaming":false,`) {
		t.Fatalf("get_state after abort: %s", st)
	}
	c.end()
}

// While idle, steer and follow_up are queued for the next prompt
// (queue_update says so) and clear_queue returns and empties them.
func TestServeIdleQueue(t *testing.T) {
	c := gatedServer(t, newGated())
	c.send(`{"id":"1","type":"steer","message":"s"}`)
	c.expect(`{"type":"queue_update","schemaVersion":1,"steering":["s"],"followUp":[]}`)
	c.expect(queued("1", "steer"))
	c.send(`{"id":"2","type":"follow_up","message":"f"}`)
	c.expect(`{"type":"queue_update","schemaVersion":1,"steering":["s"],"followUp":["f"]}`)
	c.expect(queued("2", "follow_up"))
	c.send(`{"id":"3","type":"clear_queue"}`)
	c.expect(`{"type":"queue_update","schemaVersion":1,"steering":[],"followUp":[]}`)
	c.expect(`{"id":"3","type":"response","schemaVersion":1,"command":"clear_queue","success":true,"data":{"steering":["s"],"followUp":["f"]}}`)
	c.end()
}
