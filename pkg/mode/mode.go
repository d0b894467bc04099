package mode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
	"gopi/pkg/loop"
	"gopi/pkg/sandbox"
	"gopi/pkg/session"
	"gopi/pkg/structured"
	"gopi/pkg/tools"
)

// Mode is an output encoding.
type Mode string

// The modes of gopi run.
const (
	Print  Mode = "print"
	JSON   Mode = "json"
	Events Mode = "events"
)

// Parse checks a --mode value.
func Parse(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Print, JSON, Events:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q: use print, json or events", s)
}

// IO is where a mode writes.
type IO struct {
	Out io.Writer
	Err io.Writer
	// ErrTerminal enables progress lines on Err (a spinner, retries).
	ErrTerminal bool
}

// Header is the first line of events output: the session header with the
// file, the leaf the run continues from, the model and the active tools.
type Header struct {
	session.Header
	File   string   `json:"-"`
	LeafID string   `json:"-"` // "" for a new session
	Model  ai.Info  `json:"-"`
	Tools  []string `json:"-"`
}

// MarshalJSON writes the session header line as the session file has it,
// with gopi's fields added after its own.
func (h Header) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(h.Header)
	if err != nil {
		return nil, err
	}
	var leaf *string
	if h.LeafID != "" {
		leaf = &h.LeafID
	}
	tools := h.Tools
	if tools == nil {
		tools = []string{}
	}
	type model struct {
		Provider string `json:"provider"`
		ID       string `json:"id"`
	}
	extra, err := pijson.Marshal(struct {
		SchemaVersion int      `json:"schemaVersion"`
		File          string   `json:"file"`
		LeafID        *string  `json:"leafId"`
		Model         model    `json:"model"`
		Tools         []string `json:"tools"`
	}{SchemaVersion, h.File, leaf, model{h.Model.Provider, h.Model.ID}, tools})
	if err != nil {
		return nil, err
	}
	raw = bytes.TrimSuffix(bytes.TrimSpace(raw), []byte("}"))
	return append(append(raw, ','), extra[1:]...), nil
}

// SchemaVersion is the version of the output's shapes (docs/schema/
// output.schema.json): every line of json and events output carries it.
// A change to a shape changes that file in the same commit; a change a
// parser could trip on raises the version.
const SchemaVersion = 1

var versionField = `,"schemaVersion":` + strconv.Itoa(SchemaVersion)

// withVersion puts "schemaVersion" after the "type" of the event line
// that starts at b[start:] (every event's JSON starts with its type, a
// plain word).
func withVersion(b []byte, start int) []byte {
	const prefix = `{"type":"`
	line := b[start:]
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return b
	}
	end := bytes.IndexByte(line[len(prefix):], '"')
	if end < 0 {
		return b
	}
	at := start + len(prefix) + end + 1
	field := versionField
	b = append(b, field...)
	copy(b[at+len(field):], b[at:len(b)-len(field)])
	copy(b[at:], field)
	return b
}

// Options configure one Run.
type Options struct {
	Mode    Mode
	Session *SessionInfo // nil: not shown; LeafID is filled in after the run
	Header  Header       // events only
	Start   time.Time    // when the invocation began, for durationMs
	Now     func() time.Time
	// Then are further prompts, one message each, as pi sends the message
	// arguments after the first: each is sent once the one before it
	// ended with stop or length (an error, an abort or the step limit
	// ends the invocation there). The outcome covers them all: the
	// messages, steps and usage of every run, the reason and text of the
	// last.
	Then []ai.Message
	// Schema, when set, is what the final answer (of the last prompt)
	// must satisfy: an answer that does not is sent back to the model
	// with what is wrong, up to OutputRetries times (in the same
	// session), and still failing, the invocation fails with class
	// schema.
	Schema        *structured.Schema
	OutputRetries int
	// Files, when set, lists the files the run's tools changed and says
	// whether that list may miss some (the result's files and
	// filesInexact).
	Files func() (files []tools.FileChange, inexact bool)
	// Guard is the run's sandbox and permission rules: the result's
	// sandbox mode and denials (nil: "off", none).
	Guard *sandbox.Guard
}

// Delta lines (message_update events carrying a text, thinking or
// tool-argument delta, nearly every line of a long answer) are written in
// batches: a delta line waits in the writer until the next line of
// another event, until deltaBatch bytes are waiting, or at most
// deltaDelay, whichever comes first. A streamed answer then costs a write
// per batch instead of one per delta; the bytes are the same.
const (
	deltaBatch = 32 << 10
	deltaDelay = time.Millisecond
)

// lineWriter writes whole lines and keeps the first error.
type lineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	err     error
	pending []byte // delta lines not yet written, then the line being written
	timer   *time.Timer
	armed   bool // timer will flush pending
}

func (l *lineWriter) json(v any) { l.line(encodeLine(v)) }

// encodeLine is v's JSON, or an encoding_error object saying why there is
// none.
func encodeLine(v any) []byte {
	b, err := pijson.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"type": "encoding_error", "message": err.Error()})
	}
	return b
}

// result writes what is pending, then obj through o as the one result
// line (nothing after a failed write, but the output ends all the same).
func (l *lineWriter) result(o *Output, obj ResultObject) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush()
	if l.err != nil {
		_ = o.end(nil)
		return
	}
	l.err = o.end(append(encodeLine(obj), '\n'))
}

// event writes one event line, or keeps a delta's line for the next
// write. Lines are encoded into one buffer (a buffer of a long message's
// size is not kept), without encoding/json's reflection for deltas (see
// loop.Encoder).
func (l *lineWriter) event(enc *loop.Encoder, e loop.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return // nothing more is written after a failed write
	}
	start := len(l.pending)
	b, err := enc.Append(l.pending, e)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"type": "encoding_error", "message": err.Error()})
		b = append(l.pending[:start], b...)
	}
	l.pending = append(withVersion(b, start), '\n')
	if isDelta(e) && len(l.pending) < deltaBatch {
		l.flushLater()
		return
	}
	l.flush()
}

// isDelta reports an event whose line may wait for the next.
func isDelta(e loop.Event) bool {
	if e.Type != loop.MessageUpdate || e.Stream == nil {
		return false
	}
	switch e.Stream.Type {
	case ai.EventTextDelta, ai.EventThinkingDelta, ai.EventToolCallDelta:
		return true
	}
	return false
}

// flushLater makes the timer write what is pending, unless it will already.
func (l *lineWriter) flushLater() {
	if l.armed {
		return
	}
	l.armed = true
	if l.timer == nil {
		l.timer = time.AfterFunc(deltaDelay, l.timed)
		return
	}
	l.timer.Reset(deltaDelay)
}

func (l *lineWriter) timed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed = false
	l.flush()
}

// flush writes what is pending; l.mu is held.
func (l *lineWriter) flush() {
	if len(l.pending) > 0 && l.err == nil {
		_, l.err = l.w.Write(l.pending)
	}
	if l.pending = l.pending[:0]; cap(l.pending) > 64<<10 {
		l.pending = nil
	}
}

// close writes what is pending and stops the timer: the run's events are
// over.
func (l *lineWriter) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer != nil {
		l.timer.Stop()
		l.armed = false
	}
	l.flush()
}

func (l *lineWriter) text(s string) {
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush()
	if l.err == nil {
		_, l.err = io.WriteString(l.w, s)
	}
}

// line writes b and a line end in one write of its own.
func (l *lineWriter) line(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush()
	if l.err == nil {
		_, l.err = l.w.Write(append(b, '\n'))
	}
}

// retryLine says a model request failed and will be sent again.
func retryLine(r *ai.RetryInfo) string {
	return fmt.Sprintf("gopi: model request failed (%s); retry %d of %d in %.1fs",
		r.ErrorMessage, r.Attempt, r.MaxAttempts-1, r.Delay.Seconds())
}

// summaryRetryLine says a compaction's summary request failed and will be
// sent again.
func summaryRetryLine(r *ai.RetryInfo) string {
	return fmt.Sprintf("gopi: summary request failed (%s); retry %d of %d in %.1fs",
		r.ErrorMessage, r.Attempt, r.MaxAttempts-1, r.Delay.Seconds())
}
