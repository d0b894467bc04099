package session

import (
	"unicode/utf8"

	"gopi/pkg/ai"
)

// imageChars is what pi's estimator counts for one image (1,200 tokens).
const imageChars = 4800

// EstimateTokens is pi's chars/4 estimate of a message's tokens (rounded
// up): text, thinking and tool calls (name + JSON arguments) count; images
// in tool results count 4,800 characters. Characters are Unicode code points.
func EstimateTokens(m ai.Message) int {
	chars := 0
	for _, c := range m.Content {
		switch c.Type {
		case ai.TypeText:
			chars += utf8.RuneCountInString(c.Text)
		case ai.TypeThinking:
			if m.Role == ai.RoleAssistant {
				chars += utf8.RuneCountInString(c.Thinking)
			}
		case ai.TypeToolCall:
			if m.Role == ai.RoleAssistant {
				chars += utf8.RuneCountInString(c.Name) + utf8.RuneCount(c.Arguments)
			}
		case ai.TypeImage:
			if m.Role != ai.RoleUser && m.Role != ai.RoleAssistant {
				chars += imageChars
			}
		}
	}
	return (chars + 3) / 4
}

// fit drops the oldest whole turns until the messages fit the budget. A
// turn starts at a user message that no tool result is still owed before;
// the first pinned messages (a compaction summary) are never dropped.
func (c *Context) fit(b Budget, pinned int) {
	est := b.Estimate
	if est == nil {
		est = EstimateTokens
	}
	limit := b.Limit()
	starts := turnStarts(c.Messages, pinned)
	pinnedTokens := 0
	for _, m := range c.Messages[:pinned] {
		pinnedTokens += est(m)
	}
	total, keepFrom := 0, len(c.Messages)
	for t := len(starts) - 1; t >= 0; t-- {
		end := len(c.Messages)
		if t+1 < len(starts) {
			end = starts[t+1]
		}
		turn := 0
		for _, m := range c.Messages[starts[t]:end] {
			turn += est(m)
		}
		if limit > 0 && pinnedTokens+total+turn > limit && keepFrom < len(c.Messages) {
			break
		}
		total += turn
		keepFrom = starts[t]
	}
	c.Tokens = pinnedTokens + total
	c.Over = limit > 0 && c.Tokens > limit
	c.drop(pinned, keepFrom, starts)
}

// drop removes messages [pinned, keepFrom) and records them in Dropped.
func (c *Context) drop(pinned, keepFrom int, starts []int) {
	if keepFrom <= pinned {
		return
	}
	for _, s := range starts {
		if s < keepFrom {
			c.Dropped.Turns++
		}
	}
	for i := pinned; i < keepFrom; i++ {
		c.Dropped.Messages++
		if n := len(c.Dropped.EntryIDs); n == 0 || c.Dropped.EntryIDs[n-1] != c.Sources[i] {
			c.Dropped.EntryIDs = append(c.Dropped.EntryIDs, c.Sources[i])
		}
	}
	c.Messages = append(c.Messages[:pinned], c.Messages[keepFrom:]...)
	c.Sources = append(c.Sources[:pinned], c.Sources[keepFrom:]...)
}

// turnStarts returns the index of the first message of every turn after
// the pinned ones. Messages before the first user message form a turn too.
func turnStarts(ms []ai.Message, pinned int) []int {
	var starts []int
	owed := map[string]bool{}
	answered := map[string]int{} // tool call id → index of its last result
	for i, m := range ms {
		if m.Role == ai.RoleToolResult {
			answered[m.ToolCallID] = i
		}
	}
	for i := pinned; i < len(ms); i++ {
		m := ms[i]
		if m.Role == ai.RoleUser && !owedLater(owed, answered, i) {
			clear(owed) // calls never answered (an old crash) must not merge all later turns
		}
		if i == pinned || (m.Role == ai.RoleUser && len(owed) == 0) {
			starts = append(starts, i)
		}
		switch m.Role {
		case ai.RoleAssistant:
			for _, tc := range m.ToolCalls() {
				owed[tc.ID] = true
			}
		case ai.RoleToolResult:
			delete(owed, m.ToolCallID)
		}
	}
	return starts
}

// owedLater reports whether a result for an owed call comes after index i.
func owedLater(owed map[string]bool, answered map[string]int, i int) bool {
	for id := range owed {
		if answered[id] > i {
			return true
		}
	}
	return false
}
