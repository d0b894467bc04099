package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"gopi/internal/lines"
)

// Server is the agent side of one ACP connection.
type Server struct {
	host Host
	opts Options

	wmu  sync.Mutex // guards out and werr
	out  io.Writer
	werr error

	mu       sync.Mutex // guards the fields below
	sessions map[string]*sess
	nextID   int64                     // the next id of a request to the client
	pending  map[string]chan *response // requests to the client awaiting their answer
	closed   bool

	wg sync.WaitGroup // requests being answered
}

// NewServer returns a server writing its messages to out.
func NewServer(out io.Writer, host Host, opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Diag == nil {
		opts.Diag = io.Discard
	}
	if opts.PermissionTimeout <= 0 {
		opts.PermissionTimeout = 5 * time.Minute
	}
	if opts.MaxLine <= 0 {
		opts.MaxLine = 64 << 20
	}
	return &Server{host: host, opts: opts, out: out, sessions: map[string]*sess{}, pending: map[string]chan *response{}}
}

// message is any JSON-RPC 2.0 message: a request (method and id), a
// notification (method, no id) or a response (id, result or error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	result json.RawMessage
	err    *wireError
}

// Serve reads messages from in until it ends or ctx is cancelled; then it
// cancels every prompt, waits until their messages are in their
// sessions, and closes the sessions. It returns the first write error.
func (s *Server) Serve(ctx context.Context, in io.Reader) error {
	lines := make(chan []byte)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(lines)
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			b, err := readLine(br, s.opts.MaxLine)
			if errors.Is(err, errLong) {
				s.send(outError{"2.0", json.RawMessage("null"), wireError{codeInvalidRequest, fmt.Sprintf("a message longer than %d MiB was skipped: send smaller messages", s.opts.MaxLine>>20)}})
				continue
			}
			if len(b) > 0 {
				select {
				case lines <- b:
				case <-stop:
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					fmt.Fprintf(s.opts.Diag, "gopi: reading stdin: %v\n", err)
				}
				return
			}
		}
	}()
	for {
		select {
		case b, ok := <-lines:
			if !ok {
				s.shutdown()
				return s.writeErr()
			}
			b = bytes.TrimSpace(b)
			if len(b) == 0 {
				continue
			}
			s.handle(ctx, b)
		case <-ctx.Done():
			s.shutdown()
			return s.writeErr()
		}
	}
}

var errLong = errors.New("line too long")

// readLine reads one line of at most max bytes (lines.Read); a longer
// one is read to its end, dropped, and errLong returned.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	line, over, err := lines.Read(br, max)
	if over && (err == nil || errors.Is(err, io.EOF)) {
		return nil, errLong
	}
	return line, err
}

func (s *Server) writeErr() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.werr
}

// shutdown cancels every prompt (a prompt not started yet is refused),
// answers every request to the client as cancelled, waits for the
// requests being answered (a session being opened is opened), and closes
// the sessions.
func (s *Server) shutdown() {
	s.mu.Lock()
	s.closed = true
	all := make([]*sess, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	for id, ch := range s.pending {
		close(ch)
		delete(s.pending, id)
	}
	s.mu.Unlock()
	for _, ss := range all {
		ss.cancel()
	}
	s.wg.Wait()
	s.mu.Lock()
	all = all[:0]
	for id, ss := range s.sessions {
		all = append(all, ss)
		delete(s.sessions, id)
	}
	s.mu.Unlock()
	for _, ss := range all {
		ss.s.Close()
	}
}

// send writes one message as one line.
func (s *Server) send(v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // one line, ending in LF
		fmt.Fprintf(s.opts.Diag, "gopi: encoding a message failed: %v\n", err)
		return
	}
	b := buf.Bytes()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return
	}
	_, s.werr = s.out.Write(b)
}

type outResult struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type outError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   wireError       `json:"error"`
}

type outNotice struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type outRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

func (s *Server) reply(id json.RawMessage, result any, err error) {
	if err != nil {
		s.send(outError{"2.0", id, wireError{Code: codeOf(err), Message: err.Error()}})
		return
	}
	if result == nil {
		result = struct{}{}
	}
	s.send(outResult{"2.0", id, result})
}

func (s *Server) notify(method string, params any) { s.send(outNotice{"2.0", method, params}) }

// request sends a request to the client and waits for its answer, for
// ctx, or for the connection to end (nil, nil then: no answer).
func (s *Server) request(ctx context.Context, method string, params any) (*response, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil
	}
	id := s.nextID
	s.nextID++
	key := strconv.FormatInt(id, 10)
	ch := make(chan *response, 1)
	s.pending[key] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, key)
		s.mu.Unlock()
	}()
	s.send(outRequest{"2.0", id, method, params})
	timer := time.NewTimer(s.opts.PermissionTimeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, nil
	}
}

// handle answers one line.
func (s *Server) handle(ctx context.Context, b []byte) {
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		s.send(outError{"2.0", json.RawMessage("null"), wireError{codeParse, "the line is not a JSON-RPC message (" + plainJSONErr(err) + "): send one JSON object per line"}})
		return
	}
	if m.Method == "" {
		if len(m.ID) > 0 && (m.Result != nil || m.Error != nil) {
			s.answered(m)
			return
		}
		s.send(outError{"2.0", idOrNull(m.ID), wireError{codeInvalidRequest, `the message has no "method": send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{...}}`}})
		return
	}
	if m.JSONRPC != "2.0" {
		if len(m.ID) > 0 {
			s.send(outError{"2.0", m.ID, wireError{codeInvalidRequest, `"jsonrpc" must be "2.0"`}})
		}
		return
	}
	if len(m.ID) == 0 || string(m.ID) == "null" {
		s.notice(m)
		return
	}
	switch m.Method {
	case "session/prompt", "session/new", "session/load", "session/resume":
		// These take time; cancel and other requests must be read meanwhile.
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			res, err := s.call(ctx, m)
			s.reply(m.ID, res, err)
		}()
	default:
		res, err := s.call(ctx, m)
		s.reply(m.ID, res, err)
	}
}

func idOrNull(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return json.RawMessage("null")
	}
	return id
}

// plainJSONErr says where a JSON line went wrong, without Go's words.
func plainJSONErr(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%q has the wrong type", te.Field)
	}
	return "invalid JSON"
}

// answered routes a client's response to the request waiting for it.
func (s *Server) answered(m message) {
	key := string(bytes.Trim(m.ID, `"`))
	s.mu.Lock()
	ch, ok := s.pending[key]
	s.mu.Unlock()
	if !ok {
		fmt.Fprintf(s.opts.Diag, "gopi: a response to no request (id %s) was ignored\n", m.ID)
		return
	}
	select {
	case ch <- &response{result: m.Result, err: m.Error}:
	default:
	}
}

// notice handles a notification: session/cancel; others are ignored.
func (s *Server) notice(m message) {
	if m.Method != "session/cancel" {
		return
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	if ss, err := s.session(p.SessionID); err == nil {
		ss.abort() // the reading goes on meanwhile
	}
}

// call runs one request's method.
func (s *Server) call(ctx context.Context, m message) (any, error) {
	decode := func(v any) error {
		if len(m.Params) == 0 {
			return paramsErr(m.Method + ": params are missing")
		}
		if err := json.Unmarshal(m.Params, v); err != nil {
			return paramsErr(m.Method + ": params are wrong (" + plainJSONErr(err) + ")")
		}
		return nil
	}
	switch m.Method {
	case "initialize":
		return s.initialize(decode)
	case "authenticate":
		return nil, &rpcError{codeInvalidParams, "gopi has no authentication methods: it reads API keys from the environment and settings"}
	case "session/new":
		return s.newSession(ctx, decode)
	case "session/load":
		return s.loadSession(ctx, decode, true)
	case "session/resume":
		return s.loadSession(ctx, decode, false)
	case "session/list":
		return s.listSessions(decode)
	case "session/close":
		return s.closeSession(decode)
	case "session/prompt":
		return s.prompt(decode)
	case "session/set_config_option":
		return s.setConfigOption(decode)
	case "session/set_mode":
		return s.setMode(decode)
	}
	return nil, &rpcError{codeNoMethod, fmt.Sprintf("unknown method %q: gopi serves initialize, session/new, session/load, session/resume, session/list, session/close, session/prompt, session/cancel, session/set_mode and session/set_config_option", m.Method)}
}

func (s *Server) initialize(decode func(any) error) (any, error) {
	var p struct {
		ProtocolVersion *int `json:"protocolVersion"`
	}
	if err := decode(&p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == nil {
		return nil, paramsErr(`initialize: "protocolVersion" is missing: send 1`)
	}
	type obj = map[string]any
	return obj{
		"protocolVersion": ProtocolVersion,
		"agentCapabilities": obj{
			"loadSession":        true,
			"promptCapabilities": obj{"image": true, "audio": false, "embeddedContext": true},
			"mcpCapabilities":    obj{"http": true, "sse": false},
			"sessionCapabilities": obj{
				"list": obj{}, "resume": obj{}, "close": obj{},
			},
		},
		"authMethods": []any{},
		"agentInfo":   obj{"name": "gopi", "title": "gopi", "version": s.opts.Version},
	}, nil
}
