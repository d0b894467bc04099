package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"gopi/internal/interrupt"
	"gopi/pkg/ai"
	"gopi/pkg/assemble"
)

// Exit codes: the contract scripts and CI rely on.
const (
	ExitOK          = 0
	ExitInternal    = 1
	ExitUsage       = 2
	ExitProvider    = 3
	ExitAuth        = 4
	ExitSession     = 5
	ExitMaxSteps    = 6
	ExitTimeout     = 7
	ExitBudget      = 8
	ExitSchema      = 9
	ExitRequired    = 10
	ExitInterrupted = interrupt.ExitCode // 130: a signal, or stdout's reader went away
)

// exitCodesHelp is shown in gopi run --help.
const exitCodesHelp = `Exit codes:
  0    the model stopped with an answer
  1    internal error
  2    usage or input error (nothing was sent to a model, no file was changed)
  3    the model or provider failed (after retries)
  4    authentication or quota refused
  5    the session could not be read or written (locked, changed by another program, disk full)
  6    max steps reached
  7    --timeout expired
  8    a budget was spent (--max-budget-tokens, --max-budget-usd)
  9    the answer did not satisfy --output-schema after its retries
  10   something the run requires could not start (a sandbox asked for, a required MCP server), before any request
  130  interrupted (SIGINT/SIGTERM/SIGHUP, or stdout's reader went away)`

// exitCode maps an error class to the exit code. A provider's own stall
// timeout is a provider failure; only the --timeout deadline exits 7.
func exitCode(class ai.Class, err error) int {
	switch class {
	case "":
		return ExitOK
	case ai.ClassUsage:
		return ExitUsage
	case ai.ClassAuth, ai.ClassQuota:
		return ExitAuth
	case ai.ClassRateLimit, ai.ClassOverloaded, ai.ClassServer, ai.ClassNetwork, ai.ClassContextOverflow:
		return ExitProvider
	case ai.ClassTimeout:
		var pe *ai.ProviderError
		if errors.As(err, &pe) {
			return ExitProvider
		}
		return ExitTimeout
	case ai.ClassAborted:
		return ExitInterrupted
	case ai.ClassMaxSteps:
		return ExitMaxSteps
	case ai.ClassBudgetTokens, ai.ClassBudgetUSD:
		return ExitBudget
	case ai.ClassSchema:
		return ExitSchema
	case ai.ClassRequired:
		return ExitRequired
	case ai.ClassSession:
		return ExitSession
	}
	return ExitInternal
}

// classedError is a failure before the run, with its class.
type classedError = assemble.Error

func usageErr(format string, a ...any) error { return assemble.Usagef(format, a...) }

func sessionErr(err error) error { return assemble.SessionErr(err) }

// classOf returns the class of a failure before the run.
func classOf(err error) ai.Class {
	var ce *classedError
	if errors.As(err, &ce) {
		return ce.Class
	}
	if errors.Is(err, context.Canceled) {
		return ai.ClassAborted
	}
	if strings.HasPrefix(err.Error(), "unknown command ") {
		return ai.ClassUsage // cobra's, which has no type of its own
	}
	return ai.ClassOf(err)
}

// usageArgs makes a wrong number of arguments a usage error (exit 2) in
// c and every command below it; cobra's own errors would exit 1.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return argsUsageErr(c, args, err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// reported is an error whose output was already written; Main only exits.
type reported struct{ code int }

func (r *reported) Error() string { return fmt.Sprintf("exit %d", r.code) }
