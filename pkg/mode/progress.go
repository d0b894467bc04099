package mode

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"gopi/pkg/agent"
	"gopi/pkg/loop"
	"gopi/pkg/oneline"
)

// progress draws one status line on a terminal's stderr: the running
// tool with its key argument and elapsed time, and retry notices.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	now     func() time.Time
	line    string
	since   time.Time
	ticker  *time.Ticker
	done    chan struct{}
	stopped bool
	running []string // tool calls in flight (events arrive one at a time)
}

func newProgress(w io.Writer, now func() time.Time) *progress {
	p := &progress{w: w, now: now, ticker: time.NewTicker(120 * time.Millisecond), done: make(chan struct{})}
	go p.tick()
	return p
}

func (p *progress) tick() {
	frame := 0
	for {
		select {
		case <-p.done:
			return
		case <-p.ticker.C:
			frame++
			p.mu.Lock()
			if p.line != "" {
				fmt.Fprintf(p.w, "\r\033[K%s %s (%.1fs)", oneline.Spinner[frame%len(oneline.Spinner)], p.line, p.now().Sub(p.since).Seconds())
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) set(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.line != "" && line == "" {
		fmt.Fprint(p.w, "\r\033[K")
	}
	p.line, p.since = line, p.now()
}

func (p *progress) event(e agent.Event) {
	switch e.Type {
	case loop.ToolStart:
		p.running = append(p.running, e.ToolCallID)
		p.set(e.ToolName + oneline.KeyArgument(e.Args))
	case loop.ToolEnd:
		p.running = slices.DeleteFunc(p.running, func(id string) bool { return id == e.ToolCallID })
		if n := len(p.running); n > 0 {
			p.set(fmt.Sprintf("%d tool(s) running", n))
		} else {
			p.set("")
		}
	case loop.MessageStart:
		if e.Message != nil && e.Message.Role == "assistant" {
			p.set("thinking")
		}
	case loop.MessageEnd:
		p.set("")
	case loop.RetryStart:
		p.set("")
		p.mu.Lock()
		fmt.Fprintln(p.w, retryLine(e.Retry))
		p.mu.Unlock()
	case loop.SummaryRetryScheduled:
		p.set("")
		p.mu.Lock()
		fmt.Fprintln(p.w, summaryRetryLine(e.Retry))
		p.mu.Unlock()
	case loop.ContextTrimmed:
		p.set("")
		p.mu.Lock()
		fmt.Fprintln(p.w, trimLine(e.Trim))
		p.mu.Unlock()
	case loop.CompactionStart:
		p.set("compacting the context")
	case loop.CompactionEnd:
		p.set("")
		if line := compactionLine(e.Compaction); line != "" {
			p.mu.Lock()
			fmt.Fprintln(p.w, line)
			p.mu.Unlock()
		}
	}
}

func (p *progress) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	p.ticker.Stop()
	close(p.done)
	if p.line != "" {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
