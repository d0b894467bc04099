package agent

import "errors"

// Errors the Agent returns.
var (
	// ErrBusy: Prompt or Continue while a run is active. Use Steer or
	// FollowUp to add input to the running one.
	ErrBusy = errors.New("agent is busy: a run is active (use steer or follow-up to add to it)")
	// ErrNotRunning: Steer or FollowUp with no run that can still take input.
	ErrNotRunning = errors.New("queued input is accepted only while a run is active and not yet finished")
	// ErrNothingToContinue: Continue without a user message or tool result to answer.
	ErrNothingToContinue = errors.New("nothing to continue: the transcript must end with a user message or a tool result")
	// ErrEmptyPrompt: Prompt without messages.
	ErrEmptyPrompt = errors.New("empty prompt")
)
