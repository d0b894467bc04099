package e2e

import (
	"fmt"
	"io"
)

// responsesWire renders replies in the OpenAI Responses API's format
// (requests to /responses): typed events, each with its event line, ended
// by response.completed. A tool reply reasons first, so a script can see
// the reasoning item come back in the next request (rs_ID, with the
// encrypted content enc_ID), and its call has the ids call_ID and fc_ID.
var responsesWire = wireFormat{
	text: func(w io.Writer, id, model, text string) {
		responsesStart(w, id, model, text)
		responsesEvent(w, "response.output_item.done", fmt.Sprintf(`{"output_index":0,"item":{"id":"msg_%s","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":%s}],"role":"assistant"}}`, id, jsonString(text)))
		responsesEnd(w, id, model, len(words(text)))
	},
	tool: func(w io.Writer, id, model, name, args string) {
		responsesEvent(w, "response.created", responsesObject(id, model, "in_progress", "null"))
		responsesEvent(w, "response.output_item.added", fmt.Sprintf(`{"output_index":0,"item":{"id":"rs_%s","type":"reasoning","summary":[]}}`, id))
		responsesEvent(w, "response.reasoning_summary_part.added", fmt.Sprintf(`{"item_id":"rs_%s","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}}`, id))
		responsesEvent(w, "response.reasoning_summary_text.delta", fmt.Sprintf(`{"item_id":"rs_%s","output_index":0,"summary_index":0,"delta":"A tool will do."}`, id))
		responsesEvent(w, "response.output_item.done", fmt.Sprintf(`{"output_index":0,"item":{"id":"rs_%s","type":"reasoning","summary":[{"type":"summary_text","text":"A tool will do."}],"encrypted_content":"enc_%s"}}`, id, id))
		item := fmt.Sprintf(`{"id":"fc_%s","type":"function_call","status":"in_progress","arguments":"","call_id":"call_%s","name":%s}`, id, id, jsonString(name))
		responsesEvent(w, "response.output_item.added", `{"output_index":1,"item":`+item+`}`)
		half := len(args) / 2
		for _, part := range []string{args[:half], args[half:]} {
			responsesEvent(w, "response.function_call_arguments.delta", fmt.Sprintf(`{"item_id":"fc_%s","output_index":1,"delta":%s}`, id, jsonString(part)))
		}
		responsesEvent(w, "response.function_call_arguments.done", fmt.Sprintf(`{"item_id":"fc_%s","output_index":1,"arguments":%s}`, id, jsonString(args)))
		responsesEvent(w, "response.output_item.done", fmt.Sprintf(`{"output_index":1,"item":{"id":"fc_%s","type":"function_call","status":"completed","arguments":%s,"call_id":"call_%s","name":%s}}`, id, jsonString(args), id, jsonString(name)))
		responsesEnd(w, id, model, 12)
	},
	start: responsesStart,
	midstreamError: func(w io.Writer) {
		responsesEvent(w, "error", `{"code":"server_is_overloaded","message":"The server is overloaded","param":null}`)
	},
	errorBody: func(code int) string {
		codes := map[int]string{400: "context_length_exceeded", 401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded", 500: "server_error"}
		return fmt.Sprintf(`{"error":{"message":"fake %d","type":"invalid_request_error","param":null,"code":%q}}`, code, codes[code])
	},
}

// responsesEvent writes one event; data is the object without its type.
func responsesEvent(w io.Writer, name, data string) {
	fmt.Fprintf(w, "event: %s\ndata: {\"type\":%q,%s\n\n", name, name, data[1:])
}

func responsesObject(id, model, status, usage string) string {
	return fmt.Sprintf(`{"response":{"id":"resp_%s","object":"response","created_at":1756300000,"status":%q,"error":null,"incomplete_details":null,"model":%s,"output":[],"store":false,"usage":%s}}`,
		id, status, jsonString(model), usage)
}

// responsesStart sends the response's start and a message's text deltas,
// unended.
func responsesStart(w io.Writer, id, model, text string) {
	responsesEvent(w, "response.created", responsesObject(id, model, "in_progress", "null"))
	responsesEvent(w, "response.in_progress", responsesObject(id, model, "in_progress", "null"))
	responsesEvent(w, "response.output_item.added", fmt.Sprintf(`{"output_index":0,"item":{"id":"msg_%s","type":"message","status":"in_progress","content":[],"role":"assistant"}}`, id))
	responsesEvent(w, "response.content_part.added", fmt.Sprintf(`{"item_id":"msg_%s","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}}`, id))
	for _, part := range words(text) {
		responsesEvent(w, "response.output_text.delta", fmt.Sprintf(`{"item_id":"msg_%s","output_index":0,"content_index":0,"delta":%s}`, id, jsonString(part)))
	}
}

func responsesEnd(w io.Writer, id, model string, out int) {
	usage := fmt.Sprintf(`{"input_tokens":100,"input_tokens_details":{"cached_tokens":0},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d}`, out, 100+out)
	responsesEvent(w, "response.completed", responsesObject(id, model, "completed", usage))
}
