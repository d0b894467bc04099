package exitcode

import (
	"errors"

	"gopi/internal/interrupt"
	"gopi/pkg/ai"
)

// Exit codes.
const (
	OK          = 0
	Internal    = 1
	Usage       = 2
	Provider    = 3
	Auth        = 4
	Session     = 5
	MaxSteps    = 6
	Timeout     = 7
	Budget      = 8
	Schema      = 9
	Required    = 10
	Interrupted = interrupt.ExitCode // 130: a signal, or stdout's reader went away
)

// Of maps an error class to the exit code. A provider's own stall
// timeout is a provider failure; only the --timeout deadline exits 7.
func Of(class ai.Class, err error) int {
	switch class {
	case "":
		return OK
	case ai.ClassUsage:
		return Usage
	case ai.ClassAuth, ai.ClassQuota:
		return Auth
	case ai.ClassRateLimit, ai.ClassOverloaded, ai.ClassServer, ai.ClassNetwork, ai.ClassContextOverflow:
		return Provider
	case ai.ClassTimeout:
		var pe *ai.ProviderError
		if errors.As(err, &pe) {
			return Provider
		}
		return Timeout
	case ai.ClassAborted:
		return Interrupted
	case ai.ClassMaxSteps:
		return MaxSteps
	case ai.ClassBudgetTokens, ai.ClassBudgetUSD:
		return Budget
	case ai.ClassSchema:
		return Schema
	case ai.ClassRequired:
		return Required
	case ai.ClassSession:
		return Session
	}
	return Internal
}
