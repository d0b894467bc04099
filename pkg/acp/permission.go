package acp

import (
	"encoding/json"
	"fmt"
)

// permissionOptions are the answers offered for a refused call (built
// when asked: nothing of ACP is made in a run that does not use it).
func permissionOptions() []map[string]string {
	return []map[string]string{
		{"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
		{"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
		{"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
		{"optionId": "reject-always", "name": "Always reject", "kind": "reject_always"},
	}
}

func permissionKey(p Permission) string { return p.Tool + "\x00" + p.Operation + "\x00" + p.Target }

// askPermission asks the client about a call the permission rules refuse,
// from the tool's goroutine. An "always" answer holds for the session and
// is said on the diagnostics stream. Without an answer (no prompt
// running, the client gone, the prompt cancelled, the wait over) the
// rule decides: refused.
func (s *Server) askPermission(ss *sess, p Permission) bool {
	key := permissionKey(p)
	ss.mu.Lock()
	if v, ok := ss.always[key]; ok {
		ss.mu.Unlock()
		return v
	}
	ctx, tr := ss.ctx, ss.turn
	ss.mu.Unlock()
	if ctx == nil {
		return false
	}
	tc := map[string]any{"toolCallId": "permission", "title": p.Tool, "kind": "other"}
	if tr != nil {
		tr.mu.Lock()
		for id, c := range tr.calls {
			if c.name == p.Tool && c.target == p.Target {
				tc = map[string]any{"toolCallId": id}
				for k, v := range c.update {
					if k == "title" || k == "kind" || k == "locations" || k == "rawInput" {
						tc[k] = v
					}
				}
				break
			}
		}
		tr.mu.Unlock()
	}
	resp, err := s.request(ctx, "session/request_permission", map[string]any{
		"sessionId": ss.id, "toolCall": tc, "options": permissionOptions()})
	if err != nil || resp == nil || resp.err != nil {
		if resp != nil && resp.err != nil {
			fmt.Fprintf(s.opts.Diag, "gopi: the editor could not ask about %s (%s): the rule decides\n", p.Tool, resp.err.Message)
		}
		return false
	}
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if json.Unmarshal(resp.result, &r) != nil || r.Outcome.Outcome != "selected" {
		return false
	}
	allow := r.Outcome.OptionID == "allow-once" || r.Outcome.OptionID == "allow-always"
	if r.Outcome.OptionID == "allow-always" || r.Outcome.OptionID == "reject-always" {
		ss.mu.Lock()
		if ss.always == nil {
			ss.always = map[string]bool{}
		}
		ss.always[key] = allow
		ss.mu.Unlock()
		word := "refused"
		if allow {
			word = "allowed"
		}
		what := p.Tool
		if p.Target != "" {
			what += " " + p.Target
		}
		fmt.Fprintf(s.opts.Diag, "gopi: permission: %s is %s for the rest of session %s (the editor's answer; %s)\n", what, word, ss.id, p.Rule)
	}
	return allow
}
