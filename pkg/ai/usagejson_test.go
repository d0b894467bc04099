package ai

import (
	"encoding/json"
	"math"
	"testing"
)

// A usage is written exactly as encoding/json writes it, optional
// fields and number formats included, and a cost that is no number is
// encoding/json's error.
func TestUsageJSONIsEncodingJSONs(t *testing.T) {
	n, yes, no := int64(7), true, false
	for _, u := range []Usage{
		{},
		{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, TotalTokens: 10, Cost: Cost{Input: 0.003, Output: 0.015, CacheRead: 3e-7, CacheWrite: 1e21, Total: 12345.678}},
		{Input: -1, Reasoning: &n, CacheWrite1h: &n, Cost: Cost{Total: -0.5, TotalFromProvider: &yes}},
		{Output: math.MaxInt64, Cost: Cost{Input: 1e-6, Output: 1e20, TotalFromProvider: &no}},
		{Cost: Cost{Input: math.SmallestNonzeroFloat64, Output: math.MaxFloat64, CacheRead: -1e-9}},
	} {
		want, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		got, err := u.AppendJSON([]byte("x"))
		if err != nil || string(got) != "x"+string(want) {
			t.Errorf("AppendJSON(%+v) = %s, %v; want x%s", u, got, err, want)
		}
		m := Message{Role: RoleAssistant, Usage: u}
		viaMessage, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back struct{ Usage json.RawMessage }
		if err := json.Unmarshal(viaMessage, &back); err != nil || string(back.Usage) != string(want) {
			t.Errorf("message usage %s, %v; want %s", back.Usage, err, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		u := Usage{Cost: Cost{CacheWrite: f}}
		_, jerr := json.Marshal(u)
		if _, err := u.AppendJSON(nil); err == nil || jerr == nil {
			t.Errorf("cost %v: AppendJSON error %v, encoding/json error %v; want both", f, err, jerr)
		}
		if _, err := json.Marshal(Message{Role: RoleAssistant, Usage: u}); err == nil {
			t.Errorf("cost %v: the message was written", f)
		}
	}
}
