// Package winjob holds a process and every process it starts in a
// Windows job object: the command starts suspended in a Ctrl-C group of
// its own, is put in a job whose processes die when its last handle
// closes, and is then resumed, so that no child escapes the job before it
// is in. The bash tool (pkg/tools), MCP's stdio servers (pkg/mcp) and
// command hooks (pkg/extension) end whole process trees with it. It has
// code on Windows only.
package winjob
