// Package assemble is one invocation's host: from typed settings it
// builds one Assembly holding everything a run needs, the model, the
// tools (built-in, custom, the task tool's sub-agents and the MCP
// servers' tools), the system prompt from the resources found, the
// sandbox guard, the hooks, the session store and the leaf it continues
// from, the spill folder and the process groups bash calls leave
// running, and from them the Runtime (runtime.New).
// Every front door (gopi run, chat, rpc, acp, the task tool's children)
// is the same few calls: New, Open, Reopen as often as asked, Close.
//
// Its promises:
//   - It reads no flags, settings files or process state: the caller
//     resolves the settings and hands in the environment as Env. Nothing
//     is sent to a model. The settings are never changed, so a model
//     switch lasts only for the Assembly that made it.
//   - A refusal of the settings is an *Error whose ai.Class decides the
//     caller's exit code (a sandbox or a required MCP server that cannot
//     be had: ai.ClassRequired).
//   - New loads the resources (Settings.Resources: context files, skills,
//     templates, the system prompt's files, defined agents; a refused
//     prompt file is said first), builds the system prompt for the tools
//     offered, then the sandbox guard and, for a new session, chooses the
//     model; nothing is written. Open opens the session store and
//     builds the first Runtime; the MCP servers start with it, once, in
//     parallel and before any request.
//   - Reopen builds a Runtime for another leaf, model, thinking level,
//     session (switched, forked or new) or automatic compaction. It keeps
//     what the Assembly holds beside the session: the MCP servers, the
//     guard, the spill folder and the process groups. A session left for
//     another is released only once the new Runtime is built; on error
//     the current Runtime and session stay in use. Each Runtime it builds
//     is traced with Settings.Telemetry.Prompts.
//   - Close releases everything, in this order: the process groups bash
//     calls left running (SIGKILL, a bounded wait), the MCP servers, the
//     sandbox's helper, the spill folder (kept when the session names a
//     file in it, and earlier kept folders swept once a week old), and
//     last the session store and its lock. Kill ends the processes at
//     once for a forced exit; Abandon then ends the traces of the runs
//     still going (aborted, the exit code given) and sends what was
//     recorded, within the telemetry's flush bound.
package assemble
