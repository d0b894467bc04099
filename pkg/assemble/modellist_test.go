package assemble_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"gopi/pkg/ai"
	"gopi/pkg/ai/catalog"
	"gopi/pkg/assemble"
)

// declaredProviders reads providers as settings declare them.
func declaredProviders(t *testing.T, js string) map[string]assemble.Provider {
	t.Helper()
	provs := map[string]assemble.Provider{}
	if err := json.Unmarshal([]byte(js), &provs); err != nil {
		t.Fatal(err)
	}
	return provs
}

const declaredJSON = `{
 "local": {"api": "openai", "baseUrl": "http://127.0.0.1:1/v1", "models": [{"id": "qwen", "contextWindow": 32768}]},
 "anthropic": {"models": [{"id": "house", "contextWindow": 50000}, {"id": "claude-sonnet-4-6", "contextWindow": 100000}]}}`

func TestListModels(t *testing.T) {
	all := catalog.All()
	got, err := assemble.ListModels(nil, "")
	if err != nil || len(got) != len(all) {
		t.Fatalf("catalog alone: %d rows, %v", len(got), err)
	}
	for i, m := range got {
		if m.Declared || m.Provider != all[i].Provider || m.ID != all[i].ID {
			t.Fatalf("row %d: %+v, want the catalog's %s/%s", i, m, all[i].Provider, all[i].ID)
		}
	}
	got, err = assemble.ListModels(declaredProviders(t, declaredJSON), "")
	if err != nil || len(got) != len(all)+2 {
		t.Fatalf("%d rows, %v", len(got), err)
	}
	i := slices.IndexFunc(got, func(m assemble.ListedModel) bool { return m.Provider == "anthropic" && m.ID == "claude-sonnet-4-6" })
	if i != slices.IndexFunc(all, func(m ai.Info) bool { return m.Provider == "anthropic" && m.ID == "claude-sonnet-4-6" }) ||
		!got[i].Declared || got[i].ContextWindow != 100000 || got[i].Prices.Input == 0 {
		t.Errorf("declared over the catalog's row, in its place: %d %+v", i, got[i])
	}
	tail := got[len(all):] // providers in name order, each's models in its order
	if tail[0].Provider != "anthropic" || tail[0].ID != "house" || tail[1].Provider != "local" || tail[1].ID != "qwen" || tail[1].API != "openai" || !tail[1].Declared {
		t.Errorf("appended: %+v", tail)
	}
}

// The catalog's first row, declared, is replaced in its place.
func TestListModelsReplacesTheFirstRow(t *testing.T) {
	first := catalog.All()[0]
	provs := declaredProviders(t, `{"`+first.Provider+`": {"models": [{"id": "`+first.ID+`", "contextWindow": 1234}]}}`)
	got, err := assemble.ListModels(provs, "")
	if err != nil || len(got) != len(catalog.All()) || !got[0].Declared || got[0].ID != first.ID || got[0].ContextWindow != 1234 {
		t.Errorf("%d rows, first %+v, %v", len(got), got[0], err)
	}
}

func TestListModelsOfOneProvider(t *testing.T) {
	provs := declaredProviders(t, declaredJSON)
	got, err := assemble.ListModels(provs, "local")
	if err != nil || len(got) != 1 || got[0].ID != "qwen" {
		t.Fatalf("local: %+v %v", got, err)
	}
	got, _ = assemble.ListModels(provs, "openai")
	if len(got) != len(catalog.ForProvider("openai")) {
		t.Errorf("openai: %d rows", len(got))
	}
	_, err = assemble.ListModels(provs, "nosuch")
	var ae *assemble.Error
	if !errors.As(err, &ae) || ae.Class != ai.ClassUsage || err.Error() != `--provider "nosuch": no models; the providers are anthropic, openai, anthropic, local` {
		t.Errorf("unknown provider: %v", err)
	}
}

func TestWriteModels(t *testing.T) {
	models := []assemble.ListedModel{
		{Info: ai.Info{Provider: "p", ID: "m", ContextWindow: 1000, MaxOutputTokens: 100, Prices: ai.Prices{Input: 1.5, Output: 2}, Reasoning: true, Images: true}},
		{Info: ai.Info{Provider: "local", ID: "qwen-long-name", ContextWindow: 32768}, Declared: true},
	}
	var b bytes.Buffer
	if err := assemble.WriteModels(&b, models, false); err != nil {
		t.Fatal(err)
	}
	want := "PROVIDER/MODEL        CONTEXT  OUTPUT  $/M IN  $/M OUT  REASONING  IMAGES  SOURCE\n" +
		"p/m                   1000     100     1.50    2.00     true       true    catalog\n" +
		"local/qwen-long-name  32768    0       0.00    0.00     false      false   declared\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := assemble.WriteModels(&b, models, true); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b.Bytes(), &rows); err != nil || len(rows) != 2 || rows[1]["declared"] != true || rows[1]["id"] != "qwen-long-name" {
		t.Errorf("JSON %s: %v", b.String(), err)
	}
	if _, ok := rows[0]["declared"]; ok || strings.Count(b.String(), "\n") != 1 {
		t.Errorf("a catalog row says nothing of declared; one line: %s", b.String())
	}
}

func TestProviderCandidates(t *testing.T) {
	got := assemble.ProviderCandidates(declaredProviders(t, declaredJSON+``))
	var values []string
	for _, c := range got {
		values = append(values, c.Value)
	}
	if !slices.Equal(values, []string{"anthropic", "openai", "faux", "local"}) {
		t.Fatalf("values %q", values)
	}
	if got[0].Description != "Anthropic Messages API (ANTHROPIC_API_KEY)" || got[3].Description != "declared in settings (openai API)" {
		t.Errorf("descriptions %q", got)
	}
	provs := declaredProviders(t, `{"zed": {"api": "anthropic"}, "b": {"api": "openai-responses"}}`)
	got = assemble.ProviderCandidates(provs)
	if len(got) != 5 || got[3].Value != "b" || got[4].Value != "zed" || got[3].Description != "declared in settings (openai-responses API)" {
		t.Errorf("sorted: %q", got)
	}
	if got := assemble.ProviderCandidates(nil); len(got) != 3 {
		t.Errorf("none declared: %q", got)
	}
}

func TestModelCandidates(t *testing.T) {
	provs := declaredProviders(t, declaredJSON)
	got := assemble.ModelCandidates(provs, "")
	byValue := map[string]string{}
	for _, c := range got {
		if _, twice := byValue[c.Value]; twice {
			t.Errorf("%s offered twice", c.Value)
		}
		byValue[c.Value] = c.Description
	}
	for _, m := range catalog.All() {
		if _, ok := byValue[m.Provider+"/"+m.ID]; !ok {
			t.Errorf("%s/%s not offered", m.Provider, m.ID)
		}
	}
	if byValue["local/qwen"] != "32k context" || byValue["anthropic/claude-sonnet-4-6"] != "100k context" || byValue["anthropic/house"] != "50k context" {
		t.Errorf("declared: %q %q %q", byValue["local/qwen"], byValue["anthropic/claude-sonnet-4-6"], byValue["anthropic/house"])
	}
	got = assemble.ModelCandidates(provs, "local")
	if len(got) != 1 || got[0].Value != "qwen" {
		t.Errorf("local: %q", got)
	}
	got = assemble.ModelCandidates(nil, "openai")
	if want := catalog.ForProvider("openai"); len(got) != len(want) || got[0].Value != want[0].ID {
		t.Errorf("openai: %q", got)
	}
	if got := assemble.ModelCandidates(nil, "nosuch"); got != nil {
		t.Errorf("nosuch: %q", got)
	}
}

func TestModelCandidateDescriptions(t *testing.T) {
	provs := declaredProviders(t, `{"x": {"api": "openai", "models": [
		{"id": "big", "name": "Big One", "contextWindow": 2000000},
		{"id": "mid", "name": "Mid", "contextWindow": 1500000},
		{"id": "named", "name": "Named"},
		{"id": "bare"},
		{"id": "small", "contextWindow": 999999},
		{"id": "exact", "contextWindow": 1000000}]}}`)
	want := map[string]string{"exact": "1M context", "big": "Big One · 2M context", "mid": "Mid · 1.5M context", "named": "Named", "bare": "", "small": "999k context"}
	for _, c := range assemble.ModelCandidates(provs, "x") {
		if want[c.Value] != c.Description {
			t.Errorf("%s: %q, want %q", c.Value, c.Description, want[c.Value])
		}
		delete(want, c.Value)
	}
	if len(want) != 0 {
		t.Errorf("not offered: %v", want)
	}
}
