package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/provider/providertest"
)

// FuzzDecodeChunks feeds the decoder chunks of every dialect and random
// ones: it never panics, every tool call ends with a JSON object for its
// arguments, and a thinking signature that looks like reasoning_details
// is a JSON array.
func FuzzDecodeChunks(f *testing.F) {
	for _, file := range []string{"text", "tools", "reasoning", "ollama_parallel", "ollama_noindex", "gemini_tools",
		"magistral", "vllm_reasoning", "xai_usage", "moonshot_usage", "openrouter_reasoning"} {
		var datas []string
		for _, line := range strings.Split(providertest.File(f, "testdata/"+file+".sse"), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && d != "[DONE]" {
				datas = append(datas, d)
			}
		}
		f.Add(strings.Join(datas, "\n"))
	}
	f.Add(`{"choices":[{"delta":{"content":[{"type":"thinking","thinking":"x"},{"type":"image_url"}],"reasoning_details":[{"index":0,"type":"t","text":1},{"index":0,"type":"t","text":"a"},null,7]}}]}`)
	f.Fuzz(func(t *testing.T, chunks string) {
		var evs []ai.Event
		b := ai.NewBuilder(gpt41, 1, func(e ai.Event) bool { evs = append(evs, e); return true })
		d := newDecoder(b, gpt41, 1, nil)
		for _, c := range strings.Split(chunks, "\n") {
			if d.handle(c) != nil {
				break
			}
		}
		if _, err := d.end(); err != nil && err == errStopped {
			t.Fatal("consumer never stopped")
		}
		msg := b.Done(ai.StopStop)
		for _, c := range msg.Content {
			switch c.Type {
			case ai.TypeToolCall:
				var obj map[string]json.RawMessage
				if json.Unmarshal(c.Arguments, &obj) != nil {
					t.Fatalf("arguments %s are not an object", c.Arguments)
				}
			case ai.TypeThinking:
				if strings.HasPrefix(c.ThinkingSignature, "[") && !json.Valid([]byte(c.ThinkingSignature)) {
					t.Fatalf("signature %s is not JSON", c.ThinkingSignature)
				}
			}
		}
	})
}
