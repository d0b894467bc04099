package mode

import (
	"fmt"

	"gopi/pkg/loop"
)

// trimLine says what a request left out of the conversation, and why.
func trimLine(t *loop.TrimInfo) string {
	return "gopi: " + trimText(t)
}

func trimText(t *loop.TrimInfo) string {
	why := "because compaction is disabled"
	switch t.Reason {
	case loop.TrimCompactionFailed:
		why = "because compaction failed: " + t.ErrorMessage
	case loop.TrimAfterCompaction:
		why = "even after compaction"
	}
	turns := "turn"
	if t.Turns != 1 {
		turns = fmt.Sprintf("%d turns", t.Turns)
	}
	messages := "messages"
	if t.Messages == 1 {
		messages = "message"
	}
	return fmt.Sprintf("the conversation does not fit the model's %d-token window; left out the oldest %s (%d %s) %s",
		t.ContextWindow, turns, t.Messages, messages, why)
}
