package mode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/runtime"
	"gopi/pkg/sandbox"
	"gopi/pkg/tools"
)

// SessionInfo names the session a run wrote to.
type SessionInfo struct {
	ID     string `json:"id"`
	File   string `json:"file,omitempty"` // "" with --no-session
	LeafID string `json:"leafId"`
}

// ResultObject is the last line of json and events output, and the one
// line of json output.
type ResultObject struct {
	Type          string       `json:"type"` // "result"
	SchemaVersion int          `json:"schemaVersion"`
	Reason        string       `json:"reason"`
	IsError       bool         `json:"isError"`
	Text          string       `json:"text"`
	Steps         int          `json:"steps"`
	Messages      []ai.Message `json:"messages"`
	Session       *SessionInfo `json:"session,omitempty"`
	Usage         ai.Usage     `json:"usage"`
	// UsageByModel splits Usage per model, only when the run used more
	// than one (a compaction's summaries may come from another model).
	UsageByModel []runtime.ModelUsage `json:"usageByModel,omitempty"`
	// Structured is the final answer as the JSON value --output-schema
	// asked for, once it satisfied the schema.
	Structured json.RawMessage `json:"structured,omitempty"`
	// Files are the files the run's tools changed; FilesInexact says the
	// list may miss some: a tree without git too big to compare whole.
	Files        []tools.FileChange `json:"files"`
	FilesInexact bool               `json:"filesInexact,omitempty"`
	// Sandbox is the sandbox mode the run had ("off" without one);
	// Denials are the operations the sandbox or the permission rules
	// refused.
	Sandbox    string           `json:"sandbox"`
	Denials    []sandbox.Denial `json:"denials"`
	DurationMs int64            `json:"durationMs"`
	Error      *ErrorInfo       `json:"error,omitempty"`
}

// ErrorInfo is the error of a failed invocation.
type ErrorInfo struct {
	Class   ai.Class `json:"class"`
	Message string   `json:"message"`
}

// Reason names how an invocation ended in the result object.
func Reason(res *runtime.Result, err error) string {
	switch {
	case err != nil && res.Reason == "":
		return "error"
	case err != nil:
		return string(loop.ReasonError)
	}
	return string(res.Reason)
}

// Classify returns the error class of a finished run, "" for success.
// A run stopped by the context is aborted (SIGINT) or timeout (the
// --timeout deadline); a stop at the step limit is max_steps, at a budget
// budget_tokens or budget_usd.
func Classify(res *runtime.Result, err error) ai.Class {
	if err != nil {
		var perr *runtime.PoisonError
		if errors.As(err, &perr) {
			return ai.ClassSession
		}
		return ai.ClassOf(err)
	}
	switch res.Reason {
	case loop.ReasonStop, loop.ReasonLength:
		return ""
	case loop.ReasonMaxSteps:
		return ai.ClassMaxSteps
	case loop.ReasonBudgetTokens:
		return ai.ClassBudgetTokens
	case loop.ReasonBudgetUSD:
		return ai.ClassBudgetUSD
	case loop.ReasonAborted:
		if errors.Is(res.Err, context.DeadlineExceeded) {
			return ai.ClassTimeout
		}
		return ai.ClassAborted
	}
	if res.Err == nil {
		return ai.ClassInternal
	}
	var perr *runtime.PoisonError
	if errors.As(res.Err, &perr) {
		return ai.ClassSession
	}
	return ai.ClassOf(res.Err)
}

// errorMessage says what went wrong with a finished run, without
// repeating the class in front of it.
func errorMessage(res *runtime.Result, err error, class ai.Class) string {
	cause := err
	if cause == nil {
		cause = res.Err
	}
	var pe *ai.ProviderError
	if errors.As(cause, &pe) && pe.Class == class {
		if pe.Status != 0 {
			return fmt.Sprintf("HTTP %d: %s", pe.Status, pe.Message)
		}
		return pe.Message
	}
	return strings.TrimPrefix(rawMessage(res, err, class), string(class)+": ")
}

func rawMessage(res *runtime.Result, err error, class ai.Class) string {
	switch {
	case err != nil:
		return err.Error()
	case class == ai.ClassMaxSteps:
		return "the run reached its step limit (--max-steps) before the model finished"
	case class == ai.ClassAborted:
		return "the run was interrupted"
	case class == ai.ClassTimeout && res.Err != nil && errors.Is(res.Err, context.DeadlineExceeded):
		return "the run did not finish before its deadline (--timeout)"
	case res.Err != nil:
		return res.Err.Error()
	}
	if f, ok := res.Final(); ok && f.ErrorMessage != "" {
		return f.ErrorMessage
	}
	return string(class)
}

// FinalText is the answer: the last assistant message's text, only when
// the run ended with one (stop or length). A failed run has no answer.
func FinalText(res *runtime.Result, err error) string {
	if err != nil || (res.Reason != loop.ReasonStop && res.Reason != loop.ReasonLength) {
		return ""
	}
	f, ok := res.Final()
	if !ok {
		return ""
	}
	return f.Text()
}

// NewResultObject builds the result object of a finished run.
func NewResultObject(res *runtime.Result, err error, info *SessionInfo, durationMs int64) ResultObject {
	class := Classify(res, err)
	obj := ResultObject{Type: "result", SchemaVersion: SchemaVersion, Reason: Reason(res, err), IsError: class != "", Text: FinalText(res, err),
		Steps: res.Steps, Session: info, Usage: res.Usage, DurationMs: durationMs, Messages: []ai.Message{}, Files: []tools.FileChange{},
		Sandbox: string(sandbox.Off), Denials: []sandbox.Denial{}}
	if res.Messages != nil {
		obj.Messages = res.New()
	}
	if len(res.ByModel) > 1 {
		obj.UsageByModel = res.ByModel
	}
	if class != "" {
		obj.Error = &ErrorInfo{Class: class, Message: errorMessage(res, err, class)}
	}
	return obj
}

// FailureObject is the result object of an invocation that failed before
// the run: reason error, no messages, the session only if one was opened.
func FailureObject(class ai.Class, err error, info *SessionInfo, durationMs int64) ResultObject {
	return ResultObject{Type: "result", SchemaVersion: SchemaVersion, Reason: "error", IsError: true, Messages: []ai.Message{}, Files: []tools.FileChange{},
		Sandbox: string(sandbox.Off), Denials: []sandbox.Denial{}, Session: info, DurationMs: durationMs, Error: &ErrorInfo{Class: class, Message: err.Error()}}
}
