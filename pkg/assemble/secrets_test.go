package assemble

import (
	"slices"
	"testing"
)

func TestScrubEnvRemovesCredentials(t *testing.T) {
	in := []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk-1", "OPENAI_API_KEY=sk-2", "my_api_key=x", "GH_AUTH_TOKEN=t", "API_KEY=k", "HOME=/h",
		"LOCAL_TOKEN=declared", "COPY_OF_KEY=sk-in-use"}
	got := ScrubEnv(in, []string{"LOCAL_TOKEN"}, "sk-in-use")
	if !slices.Equal(got, []string{"PATH=/bin", "HOME=/h"}) {
		t.Fatalf("got %v", got)
	}
}
