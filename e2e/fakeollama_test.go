package e2e

import (
	"fmt"
	"net/http"
	"strings"
)

// ollamaTools answers with parallel tool calls as Ollama's OpenAI
// endpoint streams them: each call whole in its own chunk, every one at
// index 0 (ids of its own), then finish_reason tool_calls, the usage chunk
// and [DONE]. The reply line is
//
//	ollamatools NAME ARGS ;; NAME ARGS ...
//
// where ARGS is sent as it is, valid JSON or not. Only a Chat Completions
// request can get it.
func ollamaTools(w http.ResponseWriter, r *http.Request, id, model, spec string) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, "fake provider: an ollamatools reply is for /chat/completions", http.StatusTeapot)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	chunk := func(delta, finish string) {
		fmt.Fprintf(w, `data: {"id":"chatcmpl-%s","object":"chat.completion.chunk","created":1752000000,"model":%s,"system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`+"\n\n",
			id, jsonString(model), delta, finish)
	}
	for i, c := range strings.Split(spec, ";;") {
		name, args, _ := strings.Cut(strings.TrimSpace(c), " ")
		chunk(fmt.Sprintf(`{"role":"assistant","content":"","tool_calls":[{"id":"call_%s_%d","index":0,"type":"function","function":{"name":%s,"arguments":%s}}]}`,
			id, i, jsonString(name), jsonString(strings.TrimSpace(args))), "null")
	}
	chunk(`{"role":"assistant","content":""}`, `"tool_calls"`)
	fmt.Fprintf(w, `data: {"id":"chatcmpl-%s","object":"chat.completion.chunk","created":1752000000,"model":%s,"system_fingerprint":"fp_ollama","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":30,"total_tokens":130}}`+"\n\ndata: [DONE]\n\n",
		id, jsonString(model))
}
