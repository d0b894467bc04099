package rpc

import (
	"testing"
)

// compact on a session with nothing older than what it keeps is framed
// as any compaction and fails in the user's words; the session goes on.
func TestServeCompactNothingYet(t *testing.T) {
	a := fauxAssembly(t, false)
	h := NewHost(a, HostConfig{MaxPrompt: 1 << 20})
	c := startClient(t, h.First(), h, Options{})
	failed := func(id string) {
		c.send(`{"id":"` + id + `","type":"compact"}`)
		c.expect(`{"type":"compaction_start","schemaVersion":1,"reason":"manual"}`)
		c.expect(`{"type":"compaction_end","schemaVersion":1,"reason":"manual","aborted":false,"willRetry":false,"errorMessage":"Compaction failed: nothing to compact yet: the session has no older conversation to summarise"}`)
		c.expect(answer(id, "compact", `"success":false,"error":"nothing to compact yet: the session has no older conversation to summarise"`))
	}
	failed("1")
	c.say("hi")
	failed("2")
	c.send(`{"id":"m","type":"get_messages"}`)
	c.expect(answer("m", "get_messages", `"success":true,"data":{"messages":[`+userHi+`,`+helloReply+`]}`))
	c.end()
}
