// Package nearest finds the known name a mistyped one was meant to be:
// the "did you mean" of settings keys and agent files' tool names.
package nearest

import "strings"

// Name is the known name nearest to name by edit distance (ignoring
// case), when it is near enough to be a slip of the keyboard, or else one
// that name begins (at least 4 characters of it); "" when none is.
func Name(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" && bestD <= max(1, len(name)/4) {
		return best
	}
	for _, k := range known { // a name cut short: pi's "apiKey" for "apiKeyEnv"
		if len(name) >= 4 && strings.HasPrefix(strings.ToLower(k), strings.ToLower(name)) {
			return k
		}
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
