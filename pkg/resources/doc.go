// Package resources finds what a project tells the agent — context files
// (AGENTS.md, CLAUDE.md), a replacement or appended system prompt, skills
// and prompt templates — and turns them into the system prompt text and
// the expansion of `/skill:name` and `/template` prompts.
//
// Guarantees:
//   - Nothing is read from the process: the working directory, the home
//     folder, GOPI_HOME, the clock and the filesystem are all injected
//     through Options, so the same inputs always give the same prompt.
//   - Load never fails because of a project's content: an unreadable file,
//     invalid frontmatter or a name collision becomes an entry in
//     Catalog.Skipped or Catalog.Warnings that says what is wrong and
//     where; only an unusable Options value is an error.
//   - Every file is read through ReadFile: a regular file of at most
//     MaxFileSize (1 MiB), never opened in a way that blocks. A named
//     pipe, a device or a larger file is skipped with its path and why.
//   - A project's .gopi folder (and pi's .pi folder, after it) is found in
//     the working directory or any parent up to the repository root
//     (ProjectRoots), nearest first, so the project's skills, templates
//     and SYSTEM.md apply wherever in it a session starts; outside a
//     repository only the working directory's own folders count.
//   - Bare mode and the No* switches discover nothing of their kind; what
//     was switched off is listed in Catalog.Skipped.
//   - Expansion is a single pass: text that arguments bring in is never
//     expanded again, and a prompt that names no known skill or template
//     is returned exactly as typed.
//
// Behaviour follows upstream pi (packages/coding-agent/src/core:
// resource-loader, system-prompt, skills, prompt-templates), except that a
// project's skill or template wins a name collision with a user-wide one,
// and that pi reads .pi only in the working directory.
package resources
