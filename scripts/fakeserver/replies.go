package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
)

// replies answers each request with the next line of a reply file, so
// that a scenario (a prompt, a tool call, an answer, a failed attempt)
// can be played to any client, pi as well as gopi:
//
//	text WORDS...    an answer
//	tool NAME JSON   one tool call with JSON arguments
//	status CODE      an error status with the vendor's error body
//
// A text or tool line may begin with in=N: the answer then reports N
// input tokens (Anthropic's stream; 100 otherwise), which is how a
// scenario puts a session past the compaction threshold.
//
// A request after the last reply gets status 500.
type replies struct {
	mu    sync.Mutex
	lines []string
	calls int // tool calls sent, for their ids
}

func loadReplies(path string) (*replies, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := &replies{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		_, bare := inputTokens(line)
		switch kind, _, _ := strings.Cut(bare, " "); kind {
		case "text", "tool", "status":
		default:
			return nil, fmt.Errorf("%s line %d: unknown kind %q (use text, tool or status)", path, i+1, kind)
		}
		r.lines = append(r.lines, line)
	}
	return r, nil
}

// next returns the next reply and the id of its tool call.
func (r *replies) next() (string, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.lines) == 0 {
		return "status 500", ""
	}
	line := r.lines[0]
	r.lines = r.lines[1:]
	if strings.HasPrefix(line, "tool ") {
		r.calls++
	}
	return line, fmt.Sprintf("call_%d", r.calls)
}

func (r *replies) serve(w http.ResponseWriter, req *http.Request) {
	_, _ = io.Copy(io.Discard, req.Body)
	openai := strings.HasSuffix(req.URL.Path, "/chat/completions")
	line, id := r.next()
	input, line := inputTokens(line)
	kind, rest, _ := strings.Cut(line, " ")
	if kind == "status" {
		code, _ := strconv.Atoi(rest)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		if openai {
			fmt.Fprintf(w, `{"error":{"message":"status %d","type":"server_error"}}`, code)
		} else {
			fmt.Fprintf(w, `{"type":"error","error":{"type":"overloaded_error","message":"status %d"}}`, code)
		}
		return
	}
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	var s streamer = &anthropicWriter{w: bw, input: input}
	if openai {
		s = &openaiWriter{w: bw}
	}
	s.begin()
	if kind == "tool" {
		name, args, _ := strings.Cut(rest, " ")
		s.toolCall(id, name, args, 64)
	} else {
		s.text(rest)
	}
	s.end(kind == "tool")
	_ = bw.Flush()
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = w.Write(buf.Bytes())
}

// inputTokens splits a reply line's in=N prefix from the rest (0 when
// there is none).
func inputTokens(line string) (int, string) {
	first, rest, ok := strings.Cut(line, " ")
	if n, err := strconv.Atoi(strings.TrimPrefix(first, "in=")); ok && strings.HasPrefix(first, "in=") && err == nil {
		return n, rest
	}
	return 0, line
}
