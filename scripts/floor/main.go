// Command floor is the least a one-turn run can cost: a bare Go program
// that sends the request gopi sends for `gopi run --bare --no-tools
// --provider anthropic --base-url URL PROMPT` (same body and headers, on
// net/http and encoding/json), reads the streamed answer and prints its
// text. scripts/bench runs it side by side with gopi against
// scripts/fakeserver. With -hello it prints a line and exits, the floor
// of `gopi version`.
//
//	floor [-hello] URL PROMPT
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"
)

type block struct {
	Type         string            `json:"type"`
	Text         string            `json:"text"`
	CacheControl map[string]string `json:"cache_control,omitempty"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

type request struct {
	Model     string    `json:"model"`
	MaxTokens int       `json:"max_tokens"`
	System    []block   `json:"system"`
	Messages  []message `json:"messages"`
	Stream    bool      `json:"stream"`
}

// system is the prompt gopi builds with --bare --no-tools.
const system = "You are an expert coding assistant operating inside gopi, a coding agent harness. You help users by reading files, executing commands, editing code, and writing new files.\n\nAvailable tools:\n(none)\n\nIn addition to the tools above, you may have access to other custom tools depending on the project.\n\nGuidelines:\n- Be concise in your responses\n- Show file paths clearly when working with files\n\nCurrent date: %s\nCurrent working directory: %s"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-hello" {
		fmt.Println("hello, world")
		return
	}
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: floor [-hello] URL PROMPT")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(url, prompt string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	eph := map[string]string{"type": "ephemeral"}
	body, err := json.Marshal(request{
		Model:     "claude-sonnet-4-6",
		MaxTokens: 32000,
		System:    []block{{Type: "text", Text: fmt.Sprintf(system, time.Now().Format(time.DateOnly), wd), CacheControl: eph}},
		Messages:  []message{{Role: "user", Content: []block{{Type: "text", Text: prompt, CacheControl: eph}}}},
		Stream:    true,
	})
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, url+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Anthropic-Beta", "fine-grained-tool-streaming-2025-05-14")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", os.Getenv("ANTHROPIC_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	out := bufio.NewWriter(os.Stdout)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		var ev struct {
			Type  string `json:"type"`
			Delta struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"delta"`
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			return err
		}
		if ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" {
			out.WriteString(ev.Delta.Text)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	out.WriteString("\n")
	return out.Flush()
}
