package responses

import (
	"gopi/pkg/ai"
	"gopi/pkg/ai/provider"
)

// The end of a response: its terminal events, usage and failures.

// closeAll ends the blocks of items that got no done event, in the order
// they were opened.
func (d *decoder) closeAll() bool {
	for len(d.items) > 0 {
		key, first := 0, -1
		for k, o := range d.items {
			if first < 0 || o.idx < first {
				key, first = k, o.idx
			}
		}
		o := d.items[key]
		delete(d.items, key)
		var ok bool
		switch o.kind {
		case "reasoning":
			ok = d.b.ThinkingEnd(o.idx, "", false)
		case "message":
			ok = d.b.TextEnd(o.idx, "")
		default:
			ok = d.b.ToolCallEnd(o.idx)
		}
		if !ok {
			return false
		}
	}
	return true
}

// finish ends the answer at response.completed or response.incomplete.
// An answer cut at max_output_tokens stops for its length; one stopped by
// the content filter, or holding a refusal, is refused (ai.ErrRefused);
// one incomplete for a reason gopi does not know is an error.
func (d *decoder) finish(r *response) (ai.StopReason, error) {
	if r != nil && r.Usage != nil {
		d.setUsage(r.Usage)
	}
	if !d.closeAll() {
		return "", errStopped
	}
	if r != nil {
		d.b.SetRawStopReason(rawStopReason(r))
	}
	if r != nil && r.Status == "incomplete" {
		reason := ""
		if r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		if reason == "max_output_tokens" {
			return ai.StopLength, nil
		}
		msg := "the response ended incomplete (incomplete_details.reason " + reason + ")"
		if reason == "content_filter" {
			return "", ai.Refused("the answer was stopped by the server's content filter (incomplete_details.reason content_filter)")
		}
		return "", &ai.ProviderError{Class: ai.ClassServer, Message: msg}
	}
	if d.refused {
		return "", ai.Refused("the model declined to answer (a refusal content part)")
	}
	if d.sawTools {
		return ai.StopToolUse, nil
	}
	return ai.StopStop, nil
}

// setUsage records the usage of the response. input_tokens includes the
// cached tokens, which are priced apart; output_tokens includes the
// reasoning tokens, which are billed as output and counted there.
func (d *decoder) setUsage(u *usage) {
	var cached, reasoning int64 // pi 1.6 records 0 reasoning tokens when none are reported
	if u.InputTokensDetails != nil {
		cached = u.InputTokensDetails.CachedTokens
	}
	if u.OutputTokensDetails != nil {
		reasoning = u.OutputTokensDetails.ReasoningTokens
	}
	d.b.SetUsage(d.info.WithCost(ai.Usage{
		Input: u.InputTokens - cached, Output: u.OutputTokens, CacheRead: cached, Reasoning: &reasoning, TotalTokens: u.TotalTokens,
	}))
}

// rawStopReason is the response's own word for how it ended, as pi 1.6
// records it: the status, with the incomplete reason after a dot when
// there is one ("incomplete.max_output_tokens").
func rawStopReason(r *response) string {
	if r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "" {
		return r.Status + "." + r.IncompleteDetails.Reason
	}
	return r.Status
}

// failed classifies response.failed by its error's code.
func failed(r *response) error {
	ae := provider.APIError{}
	if r != nil && r.Error != nil {
		ae = provider.APIError{Code: provider.CodeText(r.Error.Code), Message: r.Error.Message}
	}
	return streamError(ae)
}

// errorEvent classifies an error event: code and message at its top, or
// in an error object.
func errorEvent(ev streamEvent) error {
	if ev.Error != nil {
		return streamError(ev.Error.provider())
	}
	return streamError(provider.APIError{Code: provider.CodeText(ev.Code), Message: ev.Message})
}
