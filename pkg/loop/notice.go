package loop

import (
	"encoding/json"

	"gopi/pkg/ai"
)

// What the context of a request went through before it was sent: a layer
// above the loop (the Runtime's context projection) compacts or trims it
// from inside the model's stream and reports that through Config.Notices,
// so the model's stream carries only what the model said.

// Reasons of a context_trimmed event.
const (
	TrimCompactionDisabled = "compactionDisabled" // automatic compaction is off
	TrimCompactionFailed   = "compactionFailed"   // it was tried and failed (ErrorMessage says why)
	TrimAfterCompaction    = "afterCompaction"    // the compacted context still does not fit
)

// TrimInfo describes the oldest turns a request leaves out.
type TrimInfo struct {
	Reason        string // one of the Trim* reasons
	ContextWindow int    // the model's window, in tokens
	Turns         int    // whole turns left out
	Messages      int    // their messages
	// FirstDroppedEntryID and FirstKeptEntryID bound what is left out:
	// the messages from the first (after a compaction's summary) up to,
	// not including, the second.
	FirstDroppedEntryID string
	FirstKeptEntryID    string
	Tokens              int    // the estimated tokens of the messages sent
	ErrorMessage        string // compactionFailed: why
}

// CompactionInfo describes an automatic compaction of the context.
type CompactionInfo struct {
	Reason           string // "threshold" or "overflow"
	Summary          string // end: the new summary ("" when it failed)
	FirstKeptEntryID string // end
	TokensBefore     int    // end
	WillRetry        bool   // end: the failed request is sent again
	ErrorMessage     string // end: why compaction failed
	Aborted          bool   // end: it was cancelled (no result, no ErrorMessage)
	// EstimatedTokensAfter is the estimated size of the context the
	// compaction left (end).
	EstimatedTokensAfter int
	// Details is what the compaction entry keeps in its details (end).
	Details json.RawMessage
	// Usage is what the summary requests spent (end, when it succeeded).
	Usage *ai.Usage
}
