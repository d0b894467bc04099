package openai

import (
	"crypto/sha256"
	"encoding/hex"
)

// Tool call ids made by another API do not always suit a Chat Completions
// server: the Responses adapter's are "call_id|item_id", hundreds of
// bytes with '|'; OpenAI refuses ids over 40 characters, and Mistral
// takes only nine letters and digits. Such an id is rewritten on the way
// out by a pure function of it, so a call and its result, converted
// apart, still match, and two ids stay two. The session keeps the
// original.

// maxToolCallID is OpenAI's limit on a tool call id.
const maxToolCallID = 40

// wireID returns id as the server may take it.
func wireID(id string, q Quirks) string {
	if q.NineCharToolIDs {
		if len(id) == 9 && allIDBytes(id, false) {
			return id
		}
		return alnumHash(id, 9)
	}
	if id != "" && len(id) <= maxToolCallID && allIDBytes(id, true) {
		return id
	}
	// Keep a readable head, made of allowed bytes, and make the id unique
	// with a hash of all of it.
	const head = maxToolCallID - 9
	b := make([]byte, 0, maxToolCallID)
	for i := 0; i < len(id) && len(b) < head; i++ {
		c := id[i]
		if !idByte(c, true) {
			c = '_'
		}
		b = append(b, c)
	}
	sum := sha256.Sum256([]byte(id))
	b = append(b, '_')
	b = hex.AppendEncode(b, sum[:4])
	return string(b)
}

func idByte(c byte, punct bool) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || punct && (c == '_' || c == '-')
}

func allIDBytes(s string, punct bool) bool {
	for i := 0; i < len(s); i++ {
		if !idByte(s[i], punct) {
			return false
		}
	}
	return true
}

// alnumHash is n letters and digits taken from a hash of s.
func alnumHash(s string, n int) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	sum := sha256.Sum256([]byte(s))
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[int(sum[i])%len(digits)]
	}
	return string(b)
}
