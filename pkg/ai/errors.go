package ai

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Class sorts failures for exit codes and the json result's error.class.
type Class string

// Error classes, as the json output names them.
const (
	ClassUsage           Class = "usage"
	ClassAuth            Class = "auth"
	ClassQuota           Class = "quota"
	ClassRateLimit       Class = "rate_limit"
	ClassOverloaded      Class = "overloaded"
	ClassServer          Class = "server"
	ClassNetwork         Class = "network"
	ClassContextOverflow Class = "context_overflow"
	ClassTimeout         Class = "timeout"
	ClassAborted         Class = "aborted"
	ClassMaxSteps        Class = "max_steps"
	ClassBudgetTokens    Class = "budget_tokens" // the run's token budget was spent
	ClassBudgetUSD       Class = "budget_usd"    // the run's dollar budget was spent
	ClassSchema          Class = "schema"        // the answer did not satisfy --output-schema
	ClassRequired        Class = "required"      // a sandbox or MCP server the run requires could not start
	ClassSession         Class = "session"
	ClassInternal        Class = "internal"
)

// ProviderError is a classified failure of a model request.
type ProviderError struct {
	Class      Class
	Status     int           // HTTP status, 0 when none
	Retryable  bool          // the same request may succeed later
	RetryAfter time.Duration // the server's hint, 0 when none
	RetryNow   bool          // the server's hint is "now" (retry-after: 0)
	Message    string        // what the provider said, without credentials
	Err        error         // underlying cause, may be nil
}

func (e *ProviderError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s (HTTP %d): %s", e.Class, e.Status, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Class, e.Message)
}

func (e *ProviderError) Unwrap() error { return e.Err }

// ErrRefused is the cause of every answer the model, or the provider's
// safety filter, declined to give: Anthropic's stop_reason refusal (and
// sensitive), OpenAI's finish_reason content_filter and a message's
// refusal, the Responses API's refusal content and content_filter. The
// message ends as pi ends it (stop reason error, the provider's words as
// its error), the answer's text kept; errors.Is(err, ErrRefused) tells a
// refusal from other failures (ACP's stopReason refusal).
var ErrRefused = errors.New("the model declined to answer")

// Refused is the error of a refused answer, message in the provider's
// words; it is not retried: the same request would be refused again.
func Refused(message string) *ProviderError {
	return &ProviderError{Class: ClassServer, Message: message, Err: ErrRefused}
}

// ClassOf returns the class of err: a ProviderError's own, aborted for a
// cancelled context, timeout for an expired deadline, internal otherwise.
func ClassOf(err error) Class {
	var pe *ProviderError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &pe):
		return pe.Class
	case errors.Is(err, context.DeadlineExceeded):
		return ClassTimeout
	case errors.Is(err, context.Canceled):
		return ClassAborted
	}
	return ClassInternal
}
