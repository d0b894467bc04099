package session

import "gopi/pkg/ai"

// cutPoint is where a compaction starts keeping entries (pi's CutPointResult).
type cutPoint struct {
	firstKept int  // index of the first entry kept
	turnStart int  // index of the user message starting the split turn, or -1
	splitTurn bool // the cut is inside a turn
}

// findCutPoint is pi's: walk back from the newest entry adding message
// estimates until keepRecentTokens is reached, then cut at the nearest
// valid cut point at or after there (never a tool result), and take in
// the settings entries just before it.
func findCutPoint(path []Entry, start int, opts CompactOptions) cutPoint {
	cuts := validCutPoints(path, start)
	if len(cuts) == 0 {
		return cutPoint{firstKept: start, turnStart: -1}
	}
	acc, cut := 0, cuts[0]
	for i := len(path) - 1; i >= start; i-- {
		if path[i].Type != TypeMessage || path[i].Message == nil {
			continue
		}
		n := 0
		if m, ok := llmMessage(*path[i].Message); ok {
			n = opts.Estimate(m)
		}
		if acc += n; n != 0 && acc >= opts.KeepRecentTokens {
			// The nearest cut point at or after i; none (the newest
			// messages are tool results): the newest cut point, as pi.
			cut = cuts[len(cuts)-1]
			for _, c := range cuts {
				if c >= i {
					cut = c
					break
				}
			}
			break
		}
	}
	for cut > start {
		if t := path[cut-1].Type; t == TypeCompaction || t == TypeMessage {
			break
		}
		cut--
	}
	if isRole(path[cut], ai.RoleUser) {
		return cutPoint{firstKept: cut, turnStart: -1}
	}
	ts := turnStartIndex(path, cut, start)
	return cutPoint{firstKept: cut, turnStart: ts, splitTurn: ts != -1}
}

func isRole(e Entry, role string) bool {
	return e.Type == TypeMessage && e.Message != nil && e.Message.Role == role
}

// validCutPoints lists entries a kept part may start with: any message but
// a tool result, custom messages and branch summaries.
func validCutPoints(path []Entry, start int) []int {
	var cuts []int
	for i := start; i < len(path); i++ {
		e := path[i]
		switch {
		case e.Type == TypeBranchSummary || e.Type == TypeCustomMessage:
			cuts = append(cuts, i)
		case e.Type == TypeMessage && e.Message != nil:
			switch e.Message.Role {
			case ai.RoleUser, ai.RoleAssistant, "bashExecution", "custom", "branchSummary", "compactionSummary":
				cuts = append(cuts, i)
			}
		}
	}
	return cuts
}

// turnStartIndex finds the user message (or bash execution, custom message,
// branch summary) that starts the turn holding entry i, or -1.
func turnStartIndex(path []Entry, i, start int) int {
	for ; i >= start; i-- {
		e := path[i]
		if e.Type == TypeBranchSummary || e.Type == TypeCustomMessage ||
			isRole(e, ai.RoleUser) || isRole(e, "bashExecution") {
			return i
		}
	}
	return -1
}
