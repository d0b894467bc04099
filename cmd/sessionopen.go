package cmd

import "gopi/pkg/assemble"

// gcPaused reads a session with the collector paused (assemble.GCPaused):
// the session commands share one pause with the run's store.
func gcPaused[T any](read func() (T, error)) (T, error) { return assemble.GCPaused(read) }

func looksLikePath(ref string) bool { return assemble.LooksLikePath(ref) }
