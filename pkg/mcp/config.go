// Package mcp offers the tools of Model Context Protocol servers to the
// model, through the official Go SDK: servers configured in the
// "mcpServers" shape other clients use (Claude Code's .mcp.json, pi's
// mcp.json) are started in parallel, each within a start timeout, over
// stdio (a process group of its own, stopped with a bounded wait) or
// streamable HTTP (headers, a bearer token from an environment variable);
// their tools become tools.Tool values named mcp__<server>__<tool> whose
// arguments are checked against the server's JSON Schema before the call.
// A server that fails or dies is reported with its reason and the tail of
// its stderr; its tools are withdrawn. A server's changed tool list
// (notifications/tools/list_changed) is read again before the next model
// request. A tool name is one tool's over all servers (one that is taken
// is not offered, and reported); what a tool adds to every request is
// bounded. A stdio server's line that is not a message is dropped without
// ending the connection; on Linux a stdio server dies with gopi. Headers
// and the bearer token go to the server's own origin only, and a URL's
// credentials are shown as ***. Nothing here reads the process's
// environment: the caller gives it.
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of a server's timeouts.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultCallTimeout  = 60 * time.Second
)

// Server is one configured server.
type Server struct {
	Name string
	// Command, Args, Env and Cwd describe a stdio server. Env values may
	// hold ${VAR} (or ${VAR:-default}), expanded from the caller's
	// environment when the server starts.
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// URL and Headers describe a streamable HTTP server; header values
	// may hold ${VAR}. BearerTokenEnv names the variable whose value is
	// sent as "Authorization: Bearer …".
	URL            string
	Headers        map[string]string
	BearerTokenEnv string
	// Required makes a server that cannot start stop the run.
	Required bool
	// Disabled servers are listed, never started.
	Disabled bool
	// StartTimeout bounds starting the server and listing its tools;
	// CallTimeout one tool call. Zero takes the manager's default.
	StartTimeout time.Duration
	CallTimeout  time.Duration
	// Source is the file the entry came from, named in messages.
	Source string
}

// Transport names the server's transport: "stdio" or "http".
func (s Server) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// Target is what the server runs or reaches, for listings: the command
// line or the URL with its credentials redacted (never a header).
func (s Server) Target() string {
	if s.URL != "" {
		return redactURL(s.URL)
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

// redacted stands for a credential in what gopi shows.
const redacted = "***"

// secretParam matches the names of query parameters that carry
// credentials (token=, api_key=, sig=, …).
var secretParam = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)token|key|secret|pass|pwd|auth|credential|sig|session|jwt|bearer|code`)
})

// redactURL is u with its user information and the values of its
// secret-looking query parameters replaced by ***.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an address that does not parse)"
	}
	user := p.User != nil
	p.User = nil
	if p.RawQuery != "" {
		parts := strings.Split(p.RawQuery, "&")
		for i, kv := range parts {
			k, _, ok := strings.Cut(kv, "=")
			if name, err := url.QueryUnescape(k); ok && (err != nil || secretParam().MatchString(name)) {
				parts[i] = k + "=" + redacted
			}
		}
		p.RawQuery = strings.Join(parts, "&")
	}
	if user { // url.User would escape the stars
		return strings.Replace(p.String(), "://", "://"+redacted+"@", 1)
	}
	return p.String()
}

// urlSecrets are the credentials the server's URL holds: its user
// information and the values of its secret-looking query parameters, as
// written and decoded.
func (s Server) urlSecrets() []string {
	p, err := url.Parse(s.URL)
	if s.URL == "" || err != nil {
		return nil
	}
	var out []string
	add := func(v string) {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if p.User != nil {
		add(p.User.Username())
		pw, _ := p.User.Password()
		add(pw)
		add(p.User.String())
	}
	for _, kv := range strings.Split(p.RawQuery, "&") {
		k, v, ok := strings.Cut(kv, "=")
		name, err := url.QueryUnescape(k)
		if !ok || (err == nil && !secretParam().MatchString(name)) {
			continue
		}
		add(v)
		if dv, err := url.QueryUnescape(v); err == nil {
			add(dv)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) }) // the longest first
	return out
}

// minSecret is the shortest credential replaced on its own, away from
// its URL: shorter ones would blot out ordinary words.
const minSecret = 4

// Redact replaces the credentials of the server's URL in text (a
// reason, an error the SDK or net/http wrote) with ***: the URL itself
// first, as written and as net/http shows it, then each credential.
func (s Server) Redact(text string) string {
	if s.URL == "" {
		return text
	}
	safe := redactURL(s.URL)
	if p, err := url.Parse(s.URL); err == nil {
		text = strings.ReplaceAll(text, p.Redacted(), safe)
		if _, ok := p.User.Password(); ok { // how net/http's errors show it
			shown := strings.Replace(p.String(), p.User.String()+"@", url.User(p.User.Username()).String()+":"+redacted+"@", 1)
			text = strings.ReplaceAll(text, shown, safe)
		}
	}
	text = strings.ReplaceAll(text, s.URL, safe)
	for _, v := range s.urlSecrets() {
		if len(v) >= minSecret {
			text = strings.ReplaceAll(text, v, redacted)
		}
	}
	return text
}

// SecretNames are the environment variables the server's headers and
// bearer token read: their values are credentials.
func (s Server) SecretNames() []string {
	var names []string
	if s.BearerTokenEnv != "" {
		names = append(names, s.BearerTokenEnv)
	}
	keys := make([]string, 0, len(s.Headers))
	for k := range s.Headers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, m := range varPattern().FindAllStringSubmatch(s.Headers[k], -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
	}
	return names
}

// entry is one server in a file, as written.
type entry struct {
	Type              *string           `json:"type"`
	Command           *string           `json:"command"`
	Args              []string          `json:"args"`
	Env               map[string]string `json:"env"`
	Cwd               *string           `json:"cwd"`
	URL               *string           `json:"url"`
	Headers           map[string]string `json:"headers"`
	BearerTokenEnvVar *string           `json:"bearerTokenEnvVar"`
	Required          *bool             `json:"required"`
	Enabled           *bool             `json:"enabled"`
	Disabled          *bool             `json:"disabled"`
	Timeout           *float64          `json:"timeout"`
	StartTimeout      *float64          `json:"startTimeout"`
}

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// varPattern matches ${NAME} and ${NAME:-default}.
var varPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)
})

// Config is the servers of several files merged: a later file's server
// replaces an earlier one's of the same name (names that differ only in
// - and _ are the same), and an entry with neither command nor url (pi's
// override) changes only whether the earlier one is enabled or required.
type Config struct {
	Servers []Server
}

// Merge reads the "mcpServers" object of one file (raw is that object,
// not the whole file). Relative cwd values resolve against dir; a
// leading ~/ in a command, an argument or cwd names home. Any fault is
// an error naming the file and the server.
func (c *Config) Merge(file string, raw json.RawMessage, dir, home string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return fmt.Errorf("%s: \"mcpServers\" must be an object of named servers, e.g. {\"fs\": {\"command\": \"npx\", \"args\": [...]}}", file)
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	slices.Sort(names) // the same fault is reported first every time
	seen := map[string]string{}
	for _, name := range names {
		if !namePattern().MatchString(name) {
			return fmt.Errorf("%s: MCP server name %q: use 1 to 64 letters, digits, _ or -", file, name)
		}
		if other, dup := seen[canonical(name)]; dup {
			return fmt.Errorf("%s: MCP servers %q and %q differ only in - and _, which name the same tools: rename one", file, other, name)
		}
		seen[canonical(name)] = name
		if err := c.mergeOne(file, name, entries[name], dir, home); err != nil {
			return err
		}
	}
	return nil
}

func canonical(name string) string { return strings.ReplaceAll(name, "-", "_") }

func (c *Config) mergeOne(file, name string, raw json.RawMessage, dir, home string) error {
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return fmt.Errorf("%s: MCP server %q has the wrong shape: %v", file, name, err)
	}
	i := slices.IndexFunc(c.Servers, func(s Server) bool { return canonical(s.Name) == canonical(name) })
	if e.Command == nil && e.URL == nil && e.Type == nil {
		if i < 0 {
			return fmt.Errorf("%s: MCP server %q: give \"command\" (a program run over stdio) or \"url\" (a streamable HTTP endpoint)", file, name)
		}
		applySwitches(&c.Servers[i], e)
		return nil
	}
	s, err := newServer(file, name, e, dir, home)
	if err != nil {
		return err
	}
	if i >= 0 {
		c.Servers[i] = s
	} else {
		c.Servers = append(c.Servers, s)
	}
	return nil
}

func applySwitches(s *Server, e entry) {
	if e.Enabled != nil {
		s.Disabled = !*e.Enabled
	}
	if e.Disabled != nil {
		s.Disabled = *e.Disabled
	}
	if e.Required != nil {
		s.Required = *e.Required
	}
}

func newServer(file, name string, e entry, dir, home string) (Server, error) {
	s := Server{Name: name, Source: file}
	if err := s.configure(e, dir, home); err != nil {
		return Server{}, fmt.Errorf("%s: MCP server %q: %v", file, name, err)
	}
	applySwitches(&s, e)
	return s, nil
}

// configure sets the server's transport, its settings and timeouts
// from e; an error says what to change.
func (s *Server) configure(e entry, dir, home string) error {
	kind, err := transport(e)
	if err != nil {
		return err
	}
	if kind == "stdio" {
		err = s.configureStdio(e, dir, home)
	} else {
		err = s.configureHTTP(e)
	}
	if err != nil {
		return err
	}
	for k, v := range s.Env {
		if strings.HasPrefix(v, "!") {
			return fmt.Errorf(`env %s: values made by running a command ("!…") are not supported: use ${VAR}`, k)
		}
	}
	for k, v := range s.Headers {
		if strings.HasPrefix(v, "!") {
			return fmt.Errorf(`header %s: values made by running a command ("!…") are not supported: use ${VAR}`, k)
		}
	}
	if s.CallTimeout, err = seconds(e.Timeout); err != nil {
		return fmt.Errorf("timeout: %v", err)
	}
	if s.StartTimeout, err = seconds(e.StartTimeout); err != nil {
		return fmt.Errorf("startTimeout: %v", err)
	}
	return nil
}

// transport is e's transport, "stdio" or "http": its type, or http when
// it has a url and stdio otherwise.
func transport(e entry) (string, error) {
	kind := ""
	if e.Type != nil {
		kind = *e.Type
	}
	switch kind {
	case "":
		if e.URL != nil {
			return "http", nil
		}
		return "stdio", nil
	case "stdio", "http":
		return kind, nil
	case "streamable-http", "streamableHttp":
		return "http", nil
	case "sse":
		return "", errors.New(`the SSE transport is not supported: use the server's streamable HTTP endpoint (often /mcp instead of /sse) with "type": "http"`)
	}
	return "", fmt.Errorf(`type %q: use "stdio" or "http"`, kind)
}

// configureStdio sets the command, its arguments (~ expanded), env and
// cwd (relative to dir).
func (s *Server) configureStdio(e entry, dir, home string) error {
	if e.Command == nil || strings.TrimSpace(*e.Command) == "" {
		return errors.New(`give "command", the program to run (its arguments in "args")`)
	}
	if e.URL != nil || e.Headers != nil || e.BearerTokenEnvVar != nil {
		return errors.New(`a stdio server takes "command", "args", "env" and "cwd", not "url", "headers" or "bearerTokenEnvVar"`)
	}
	s.Command = tilde(*e.Command, home)
	for _, a := range e.Args {
		s.Args = append(s.Args, tilde(a, home))
	}
	s.Env = e.Env
	if e.Cwd != nil && *e.Cwd != "" {
		s.Cwd = tilde(*e.Cwd, home)
		if !filepath.IsAbs(s.Cwd) {
			s.Cwd = filepath.Join(dir, s.Cwd)
		}
	}
	return nil
}

// configureHTTP sets the URL, headers and the bearer token's variable.
func (s *Server) configureHTTP(e entry) error {
	if e.URL == nil || !(strings.HasPrefix(*e.URL, "http://") || strings.HasPrefix(*e.URL, "https://")) {
		return errors.New(`give "url", the server's http:// or https:// address`)
	}
	if e.Command != nil || e.Args != nil || e.Env != nil || e.Cwd != nil {
		return errors.New(`an HTTP server takes "url", "headers" and "bearerTokenEnvVar", not "command", "args", "env" or "cwd"`)
	}
	s.URL, s.Headers = *e.URL, e.Headers
	if e.BearerTokenEnvVar != nil {
		s.BearerTokenEnv = *e.BearerTokenEnvVar
	}
	return nil
}

// seconds reads a timeout in seconds; nil is 0 (the default).
func seconds(v *float64) (time.Duration, error) {
	if v == nil {
		return 0, nil
	}
	if !(*v > 0) || *v > 86400 {
		return 0, fmt.Errorf("%v: give seconds above 0 and at most 86400", *v)
	}
	return time.Duration(*v * float64(time.Second)), nil
}

func tilde(s, home string) string {
	if home != "" && strings.HasPrefix(s, "~/") {
		return filepath.Join(home, s[2:])
	}
	return s
}

// expand replaces ${VAR} and ${VAR:-default} in v; a variable that is
// not set and has no default is an error naming it.
func expand(v string, getenv func(string) string) (string, error) {
	var missing string
	out := varPattern().ReplaceAllStringFunc(v, func(m string) string {
		sub := varPattern().FindStringSubmatch(m)
		if val := getenv(sub[1]); val != "" {
			return val
		}
		if strings.Contains(m, ":-") {
			return sub[2]
		}
		if missing == "" {
			missing = sub[1]
		}
		return ""
	})
	if missing != "" {
		return "", fmt.Errorf("${%s} is not set", missing)
	}
	return out, nil
}
