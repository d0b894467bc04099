package rpc

import "testing"

// get_session_stats counts the session's messages and tokens as pi
// does: an empty session's context is 0 tokens; after an answer, its
// usage.
func TestServeSessionStats(t *testing.T) {
	a := fauxAssembly(t, false)
	h := NewHost(a, HostConfig{MaxPrompt: 1 << 20})
	c := startClient(t, h.First(), h, Options{})
	c.send(`{"id":"1","type":"get_session_stats"}`)
	c.expect(answer("1", "get_session_stats", `"success":true,"data":{"sessionFile":"FILE.jsonl","sessionId":"UUID","userMessages":0,"assistantMessages":0,"toolCalls":0,"toolResults":0,"totalMessages":0,"tokens":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0},"cost":0,"contextUsage":{"tokens":0,"contextWindow":200000,"percent":0}}`))
	c.say("hi")
	c.say("two")
	c.send(`{"id":"2","type":"get_session_stats"}`)
	c.expect(answer("2", "get_session_stats", `"success":true,"data":{"sessionFile":"FILE.jsonl","sessionId":"UUID","userMessages":2,"assistantMessages":2,"toolCalls":0,"toolResults":0,"totalMessages":4,"tokens":{"input":35,"output":4,"cacheRead":0,"cacheWrite":0,"total":39},"cost":0,"contextUsage":{"tokens":27,"contextWindow":200000,"percent":0.0135}}`))
	c.end()
}
