package mcp

import "fmt"

// takenNote says why t is not offered: first has its name.
func takenNote(t, first *Tool) string {
	return fmt.Sprintf("its tool %q is not offered: its name %s is already that of server %s's tool %q; rename one of the servers", t.remote, t.spec.Name, first.c.server.Name, first.remote)
}

// reportTaken tells Options.Report, once per tool, that t is not offered
// because first has its name.
func (m *Manager) reportTaken(t, first *Tool) {
	key := t.c.server.Name + "\x00" + t.remote
	m.mu.Lock()
	if m.warned == nil {
		m.warned = map[string]bool{}
	}
	seen := m.warned[key]
	m.warned[key] = true
	m.mu.Unlock()
	if !seen && m.opts.Report != nil {
		st := t.c.status()
		st.Reason = takenNote(t, first)
		m.opts.Report(st)
	}
}

// note tells Options.Report something the server did that gopi let
// pass (a line on stdout that is not a message).
func (c *conn) note(what string) {
	if r := c.m.opts.Report; r != nil {
		st := c.status()
		st.Reason = what
		r(st)
	}
}

// noteOnce is note, once per key for the connection.
func (c *conn) noteOnce(key, what string) {
	c.mu.Lock()
	if c.noted == nil {
		c.noted = map[string]bool{}
	}
	seen := c.noted[key]
	c.noted[key] = true
	c.mu.Unlock()
	if !seen {
		c.note(what)
	}
}
