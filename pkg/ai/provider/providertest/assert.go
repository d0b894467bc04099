package providertest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"gopi/pkg/ai"
)

// AssertJSON holds got to the JSON value want (formatting aside).
func AssertJSON(t testing.TB, want string, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want: %v", err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got: %v\n%s", err, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

// AssertNoSecret fails when secret shows in any event's error (its causes
// unwrapped to the end included), retry notice or message.
func AssertNoSecret(t testing.TB, evs []ai.Event, secret string) {
	t.Helper()
	for _, e := range evs {
		b, _ := json.Marshal(e.Message)
		s := string(b) + errorTexts(e.Err)
		if e.Retry != nil {
			s += e.Retry.ErrorMessage
		}
		if strings.Contains(s, secret) {
			t.Fatalf("API key leaked in %s event: %s", e.Type, s)
		}
	}
}

// ProviderError is the *ai.ProviderError the stream ended with.
func ProviderError(t testing.TB, evs []ai.Event) *ai.ProviderError {
	t.Helper()
	var pe *ai.ProviderError
	if !errors.As(evs[len(evs)-1].Err, &pe) {
		t.Fatalf("last event error = %v, want *ai.ProviderError", evs[len(evs)-1].Err)
	}
	return pe
}

// errorTexts joins the texts of err and of every error it wraps.
func errorTexts(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error() + "\n"
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		s += errorTexts(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			s += errorTexts(e)
		}
	}
	return s
}
