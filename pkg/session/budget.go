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
			chars += runeCount(c.Text)
		case ai.TypeThinking:
			if m.Role == ai.RoleAssistant {
				chars += runeCount(c.Thinking)
			}
		case ai.TypeToolCall:
			if m.Role == ai.RoleAssistant {
				chars += runeCount(c.Name) + utf8.RuneCount(c.Arguments)
			}
		case ai.TypeImage:
			if m.Role != ai.RoleUser && m.Role != ai.RoleAssistant {
				chars += imageChars
			}
		}
	}
	return (chars + 3) / 4
}

// runeCount is utf8.RuneCountInString, 32 ASCII bytes at a time: the
// estimate reads a long session's every message on every request, and
// its text is mostly ASCII.
func runeCount(s string) int {
	n := 0
	for len(s) > 0 {
		i := 0
		for ; i+32 <= len(s); i += 32 {
			t := s[i : i+32]
			if (load64(t[0:8])|load64(t[8:16])|load64(t[16:24])|load64(t[24:32]))&0x8080808080808080 != 0 {
				break
			}
		}
		for i+8 <= len(s) && load64(s[i:i+8])&0x8080808080808080 == 0 {
			i += 8
		}
		for i < len(s) && s[i] < utf8.RuneSelf {
			i++
		}
		n += i
		s = s[i:]
		if len(s) == 0 {
			break
		}
		_, size := utf8.DecodeRuneInString(s)
		n++
		s = s[size:]
	}
	return n
}

// load64 reads the eight bytes of s as a little-endian word (one load
// once compiled).
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// fitting is what fit is asked besides the budget.
type fitting struct {
	// prev is the first kept index of the previous request's cut (-1:
	// none); fit keeps it while the messages from there still fit.
	prev int
	// low is what the kept part may use after a new cut (0: the limit).
	low int
}

// fit finds the oldest message to keep so that the messages fit the
// budget, dropping whole turns from the oldest on. A turn starts at a user
// message that no tool result is still owed before; the first pinned
// messages (a compaction summary) are never dropped. The previous cut is
// kept while it fits; a new cut keeps only what fits in f.low. One pass
// from the newest turn estimates the kept part and one turn more, never
// the whole path. It sets c.Tokens and c.Over and returns the first kept
// index after the pinned ones (len(ms) when none is) with the turn starts.
func fit(c *Context, ms []*ai.Message, b Budget, pinned int, f fitting) (keepFrom int, starts []int) {
	est := b.Estimate
	if est == nil {
		est = EstimateTokens
	}
	limit := b.Limit()
	low := f.low
	if low <= 0 || low > limit {
		low = limit
	}
	starts = turnStarts(ms, pinned)
	total := 0
	for _, m := range ms[:pinned] {
		total += est(*m)
	}
	keepFrom = len(ms)
	lowKeep, lowTotal := keepFrom, total
	cut := false
	for t := len(starts) - 1; t >= 0 && keepFrom != f.prev; t-- {
		end := len(ms)
		if t+1 < len(starts) {
			end = starts[t+1]
		}
		turn := 0
		for _, m := range ms[starts[t]:end] {
			turn += est(*m)
		}
		if limit > 0 && total+turn > limit && keepFrom < len(ms) {
			cut = true
			break
		}
		total += turn
		keepFrom = starts[t]
		if lowKeep == len(ms) || total <= low {
			lowKeep, lowTotal = keepFrom, total
		}
	}
	if cut {
		keepFrom, total = lowKeep, lowTotal
	}
	c.Tokens = total
	c.Over = limit > 0 && c.Tokens > limit
	if keepFrom < pinned {
		keepFrom = pinned
	}
	return keepFrom, starts
}

// dropped describes the messages [pinned, keepFrom) left out.
func dropped(ids []string, pinned, keepFrom int, starts []int) Dropped {
	var d Dropped
	if keepFrom <= pinned {
		return d
	}
	for _, s := range starts {
		if s < keepFrom {
			d.Turns++
		}
	}
	for i := pinned; i < keepFrom; i++ {
		d.Messages++
		if n := len(d.EntryIDs); n == 0 || d.EntryIDs[n-1] != ids[i] {
			d.EntryIDs = append(d.EntryIDs, ids[i])
		}
	}
	return d
}

// turnStarts returns the index of the first message of every turn after
// the pinned ones. Messages before the first user message form a turn too.
func turnStarts(ms []*ai.Message, pinned int) []int {
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
			for _, c := range m.Content {
				if c.Type == ai.TypeToolCall {
					owed[c.ID] = true
				}
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
