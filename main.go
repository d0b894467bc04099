// Command gopi is a headless coding agent: a prompt goes in, an LLM
// answers while reading, editing and running things through tools, and the
// answer comes out as text, one JSON line, or a stream of JSON events.
package main

import (
	"os"

	"gopi/cmd"
)

func main() { os.Exit(cmd.Main(os.Args[1:], cmd.OSSystem())) }
