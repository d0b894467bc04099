package ai

import (
	"encoding/json"
	"gopi/internal/pijson"
)

// Some providers send what belongs to a block apart from its text: a
// signature on a tool call that gopi's Content has no field for, or the
// signature of the reasoning only once the message ends. These setters
// record it on the message the Builder assembles.

// SetExtra keeps value under key in the Extra of block idx, where pi's
// fields gopi does not model live (a tool call's thoughtSignature), so the
// session stores it and the adapter can send it back. Set before the block
// ends, it is in the end event too.
func (b *Builder) SetExtra(idx int, key string, value json.RawMessage) {
	if idx < 0 || idx >= len(b.msg.Content) {
		return
	}
	pijson.AddExtra(&b.msg.Content[idx].Extra, key, value)
}

// SetThinkingSignature replaces the signature of thinking block idx after
// it ended, for a provider that sends the reasoning's signature only with
// the end of the message. The final message carries it; the block's end
// event, already emitted, does not.
func (b *Builder) SetThinkingSignature(idx int, signature string) {
	if idx < 0 || idx >= len(b.msg.Content) || b.msg.Content[idx].Type != TypeThinking {
		return
	}
	if _, open := b.open[idx]; open {
		return
	}
	b.msg.Content[idx].ThinkingSignature = signature
}

// SetResponseModel records the model the provider says answered (pi's
// responseModel) when it is not the one asked for; the first one given
// is kept, as pi keeps it.
func (b *Builder) SetResponseModel(asked, answered string) {
	if answered == "" || answered == asked || b.msg.Extra["responseModel"] != nil {
		return
	}
	pijson.AddExtra(&b.msg.Extra, "responseModel", pijson.AppendString(nil, answered))
}

// SetRawStopReason records the provider's own word for why the answer
// stopped (pi's rawStopReason: Anthropic's stop_reason, a chat
// completion's finish_reason, a response's status).
func (b *Builder) SetRawStopReason(reason string) {
	if reason == "" {
		return
	}
	pijson.AddExtra(&b.msg.Extra, "rawStopReason", pijson.AppendString(nil, reason))
}

// SetResponseID records the provider's id of the response (pi's
// responseId); the first one given is kept, as pi keeps it.
func (b *Builder) SetResponseID(id string) {
	if id == "" || b.msg.Extra["responseId"] != nil {
		return
	}
	pijson.AddExtra(&b.msg.Extra, "responseId", pijson.AppendString(nil, id))
}
