package extension

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"gopi/pkg/ai"
	"gopi/pkg/tools"
)

// postOutcome maps an after-hook run to the call's result. A failing hook,
// exit 2, continue:false or decision "block" withholds the output: the
// model gets an error result with the reason instead (the tool did run).
func postOutcome(r *runResult, call Call, hook string, res tools.Result) (tools.Result, bool) {
	if f := r.failure(); f != "" {
		return withheld(call, hook, f+"; a failing hook withholds the output"), true
	}
	if r.exitCode == 2 {
		return withheld(call, hook, r.denyReason()), true
	}
	o, err := r.parseOutput()
	if err != nil {
		return withheld(call, hook, err.Error()+"; a failing hook withholds the output"), true
	}
	if o == nil {
		return res, false
	}
	if o.Continue != nil && !*o.Continue {
		return withheld(call, hook, firstOf(o.StopReason, o.Reason, "the hook asked to stop (continue: false)")), true
	}
	switch strings.ToLower(o.Decision) {
	case "block", "deny":
		return withheld(call, hook, firstOf(o.Reason, "no reason given")), true
	case "", "approve", "allow":
	default:
		return withheld(call, hook, fmt.Sprintf("the hook answered decision %q; only block is understood after a tool ran", o.Decision)), true
	}
	return applyOutput(o.HookSpecificOutput, call, hook, res)
}

// applyOutput applies a replaced output and additional context.
func applyOutput(hs *specificOutput, call Call, hook string, res tools.Result) (tools.Result, bool) {
	changed := false
	upd := hs.UpdatedToolOutput
	if len(upd) == 0 || string(upd) == "null" {
		upd = hs.UpdatedMCPToolOutput
	}
	if len(upd) > 0 && string(upd) != "null" {
		next, err := replacedOutput(upd, res)
		if err != nil {
			return withheld(call, hook, err.Error()+"; a failing hook withholds the output"), true
		}
		res, changed = next, true
	}
	if ctx := strings.TrimSpace(hs.AdditionalContext); ctx != "" {
		res.Content = append(res.Content, ai.TextContent(ctx))
		changed = true
	}
	return res, changed
}

// replacedOutput reads updatedToolOutput: a string (one text block), an
// array of content blocks, or {"content": string|blocks, "isError": bool,
// "details": any}, fields left out keeping the tool's.
func replacedOutput(raw json.RawMessage, res tools.Result) (tools.Result, error) {
	raw = bytes.TrimSpace(raw)
	switch raw[0] {
	case '"', '[':
		content, err := decodeContent(raw)
		if err != nil {
			return res, err
		}
		res.Content = content
		return res, nil
	case '{':
		var obj struct {
			Content json.RawMessage `json:"content"`
			IsError *bool           `json:"isError"`
			Details json.RawMessage `json:"details"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return res, fmt.Errorf("updatedToolOutput is not valid (%v)", err)
		}
		if len(obj.Content) > 0 {
			content, err := decodeContent(obj.Content)
			if err != nil {
				return res, err
			}
			res.Content = content
		}
		if obj.IsError != nil {
			res.IsError = *obj.IsError
		}
		if len(obj.Details) > 0 {
			res.Details = obj.Details
		}
		return res, nil
	}
	return res, fmt.Errorf("updatedToolOutput must be a string, an array of content blocks or an object, not %s", preview(string(raw)))
}

func decodeContent(raw json.RawMessage) ([]ai.Content, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []ai.Content{ai.TextContent(s)}, nil
	}
	var blocks []ai.Content
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, fmt.Errorf("updatedToolOutput content is neither a string nor content blocks (%v)", err)
	}
	for i, b := range blocks {
		if b.Type != ai.TypeText && b.Type != ai.TypeImage {
			return nil, fmt.Errorf("updatedToolOutput content block %d has type %q; only text and image blocks are allowed", i, b.Type)
		}
	}
	return blocks, nil
}

func withheld(call Call, hook, reason string) tools.Result {
	r := tools.ErrorResult(fmt.Sprintf("The %s call ran, but hook %s withheld its result: %s", call.Name, hook, reason))
	r.Details = Denial{Hook: hook, Reason: reason}
	return r
}
