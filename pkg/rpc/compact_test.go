package rpc

import (
	"testing"

	"gopi/pkg/assemble/assembletest"
)

func TestServeCompact(t *testing.T) {
	s := assembletest.Settings(t, `[{"text":"hello"},{"text":"again"},{"text":"the summary"}]`)
	s.Compaction.KeepRecentTokens = 1
	a := assembletest.Open(t, s)
	h := NewHost(a, HostConfig{MaxPrompt: 1 << 20})
	c := startClient(t, h.First(), h, Options{})
	c.send(`{"id":"k0","type":"compact"}`)
	dump(t, c.until(`{"id":"k0"`))
	c.say("hi")
	c.say("two")
	c.send(`{"id":"k1","type":"compact","customInstructions":"keep names"}`)
	dump(t, c.until(`{"id":"k1"`))
	c.send(`{"id":"m","type":"get_messages"}`)
	dump(t, c.until(`{"id":"m"`))
	c.send(`{"id":"st","type":"get_state"}`)
	dump(t, c.until(`{"id":"st"`))
	c.end()
}
