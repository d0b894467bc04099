// Command fakeserver answers every model request at once with a short
// streamed text answer, in the Anthropic Messages format at /v1/messages
// and the OpenAI Chat Completions format at /chat/completions, so that
// scripts/bench measures gopi and not a network. It prints its base URL
// on stdout and serves until killed.
//
// With -tokens, -thinking or -write-bytes it streams a long answer
// instead (see long.go), to measure what a long answer costs. With
// -replies FILE it plays a scenario, one reply per request (replies.go).
// With -arrivals it appends to a file the time each request arrives, in
// microseconds since 1970, so that scripts/bench can tell how long a run
// takes to send its first request. With -save it writes the body of
// every request it answers to a file (the last one wins), so that
// scripts/benchresume can post the same body from a bare program.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

const anthropicStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"claude-opus-4-6","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Done."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}

event: message_stop
data: {"type":"message_stop"}

`

const openaiStream = `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1752000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1752000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Done."},"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1752000000,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}

data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1752000000,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":2,"total_tokens":102}}

data: [DONE]

`

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	var l long
	flag.IntVar(&l.tokens, "tokens", 0, "stream an answer of this many text deltas (one word each)")
	flag.IntVar(&l.thinking, "thinking", 0, "stream this many thinking deltas (one word each) before the answer")
	flag.IntVar(&l.writeBytes, "write-bytes", 0, "first answer a `write` tool call of big.txt whose content has this many bytes; the request carrying its result gets the text answer")
	flag.IntVar(&l.chunk, "chunk", 64, "bytes of tool-call arguments per delta (with -write-bytes)")
	arrivals := flag.String("arrivals", "", "append the arrival time of each request (Unix microseconds, one a line) to this `file`")
	replyFile := flag.String("replies", "", "answer each request with the next line of this `file` (see replies.go)")
	save := flag.String("save", "", "write each request's body to this `file` before answering")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "http://%s\n", ln.Addr())
	serve := serveShort
	if l.tokens > 0 || l.thinking > 0 || l.writeBytes > 0 {
		serve = l.serve
	}
	if *replyFile != "" {
		r, err := loadReplies(*replyFile)
		if err != nil {
			log.Fatal(err)
		}
		serve = r.serve
	}
	if *save != "" {
		serve = saving(*save, serve)
	}
	if *arrivals != "" {
		serve = stamped(*arrivals, serve)
	}
	log.Fatal(http.Serve(ln, http.HandlerFunc(serve)))
}

// stamped records when each request arrives, before it is answered.
func stamped(file string, next http.HandlerFunc) http.HandlerFunc {
	var mu sync.Mutex
	return func(w http.ResponseWriter, r *http.Request) {
		now := time.Now().UnixMicro()
		mu.Lock()
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			fmt.Fprintln(f, now)
			err = f.Close()
		}
		mu.Unlock()
		if err != nil {
			log.Fatal(err)
		}
		next(w, r)
	}
}

func serveShort(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	stream := anthropicStream
	if strings.HasSuffix(r.URL.Path, "/chat/completions") {
		stream = openaiStream
	}
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, stream)
}

// saving writes the request body to file, then lets next answer.
func saving(file string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err == nil {
			err = os.WriteFile(file, body, 0o644)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next(w, r)
	}
}
