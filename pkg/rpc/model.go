package rpc

import (
	"context"
	"fmt"
	"slices"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// rpcModel is pi's Model object.
type rpcModel struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	API           string   `json:"api"`
	Provider      string   `json:"provider"`
	BaseURL       string   `json:"baseUrl,omitempty"`
	Reasoning     bool     `json:"reasoning"`
	Input         []string `json:"input"`
	Cost          ai.Prices
	ContextWindow int `json:"contextWindow"`
	MaxTokens     int `json:"maxTokens"`
}

// MarshalJSON writes the cost under pi's key.
func (m rpcModel) MarshalJSON() ([]byte, error) {
	type plain struct {
		ID            string    `json:"id"`
		Name          string    `json:"name"`
		API           string    `json:"api"`
		Provider      string    `json:"provider"`
		BaseURL       string    `json:"baseUrl,omitempty"`
		Reasoning     bool      `json:"reasoning"`
		Input         []string  `json:"input"`
		Cost          ai.Prices `json:"cost"`
		ContextWindow int       `json:"contextWindow"`
		MaxTokens     int       `json:"maxTokens"`
	}
	return pijson.Marshal(plain(m))
}

func modelObject(i ai.Info) rpcModel {
	input := []string{"text"}
	if i.Images {
		input = append(input, "image")
	}
	name := i.Name
	if name == "" {
		name = i.ID
	}
	return rpcModel{ID: i.ID, Name: name, API: i.API, Provider: i.Provider, BaseURL: i.BaseURL, Reasoning: i.Reasoning, Input: input,
		Cost: i.Prices, ContextWindow: i.ContextWindow, MaxTokens: i.MaxOutputTokens}
}

func (r *Server) cmdModels(_ context.Context, _ *rpcCommand) (any, error) {
	models := []rpcModel{}
	for _, m := range r.host.Models() {
		models = append(models, modelObject(m))
	}
	return map[string]any{"models": models}, nil
}

func (r *Server) cmdSetModel(_ context.Context, c *rpcCommand) (any, error) {
	prov, err := need(c.Provider, "provider")
	if err != nil {
		return nil, err
	}
	id, err := need(c.ModelID, "modelId")
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(r.host.Models(), func(m ai.Info) bool { return m.Provider == prov && m.ID == id }) {
		return nil, fmt.Errorf("Model not found: %s/%s", prov, id)
	}
	w := r.atLeaf()
	w.Model = prov + "/" + id
	o, err := r.reopen(w)
	if err != nil {
		return nil, err
	}
	return modelObject(o.Model), nil
}

func (r *Server) cmdCycleModel(_ context.Context, _ *rpcCommand) (any, error) {
	models := r.host.Models()
	cur, _ := r.current()
	r.mu.Lock()
	if r.pendingModel != nil { // asked for during the run: cycle on from it
		cur.Model = *r.pendingModel
	}
	r.mu.Unlock()
	at := slices.IndexFunc(models, func(m ai.Info) bool { return m.Provider == cur.Model.Provider && m.ID == cur.Model.ID })
	if len(models) == 0 || (len(models) == 1 && at == 0) {
		return nullJSON, nil
	}
	next := models[(at+1)%len(models)]
	w := r.atLeaf()
	w.Model = next.Provider + "/" + next.ID
	o, err := r.reopen(w)
	if err != nil {
		return nil, err
	}
	return struct {
		Model    rpcModel         `json:"model"`
		Thinking ai.ThinkingLevel `json:"thinkingLevel"`
		IsScoped bool             `json:"isScoped"`
	}{modelObject(o.Model), r.level(), false}, nil
}

// levels are the thinking levels of a model as pi lists them: off alone
// without reasoning, else off to high (set_thinking_level takes xhigh
// too, gopi knowing no model that declares it).
func levels(m ai.Info) []ai.ThinkingLevel {
	if !m.Reasoning {
		return []ai.ThinkingLevel{ai.ThinkingOff}
	}
	return []ai.ThinkingLevel{ai.ThinkingOff, ai.ThinkingMinimal, ai.ThinkingLow, ai.ThinkingMedium, ai.ThinkingHigh}
}

// setThinking switches to level, clamped to the model as pi clamps it;
// thinking_level_changed says the level in use when it changed.
func (r *Server) setThinking(level ai.ThinkingLevel) error {
	old := r.level()
	r.mu.Lock()
	r.thinking = level
	r.mu.Unlock()
	w := r.atLeaf()
	w.Thinking = level
	if _, err := r.reopen(w); err != nil {
		r.mu.Lock()
		r.thinking = old
		r.mu.Unlock()
		return err
	}
	if now := r.level(); now != old {
		r.notice("thinking_level_changed", "level", string(now))
	}
	return nil
}

func (r *Server) cmdSetThinking(_ context.Context, c *rpcCommand) (any, error) {
	l, err := need(c.Level, "level")
	if err != nil {
		return nil, err
	}
	if !slices.Contains(ai.ThinkingLevels, ai.ThinkingLevel(l)) {
		return nil, fmt.Errorf("level %q: use off, minimal, low, medium, high or xhigh", l)
	}
	return nil, r.setThinking(ai.ThinkingLevel(l))
}

func (r *Server) cmdCycleThinking(_ context.Context, _ *rpcCommand) (any, error) {
	cur, _ := r.current()
	ls := levels(cur.Model)
	if len(ls) == 1 {
		return nullJSON, nil
	}
	next := ls[(slices.Index(ls, r.level())+1)%len(ls)] // xhigh (index -1) cycles to off
	if err := r.setThinking(next); err != nil {
		return nil, err
	}
	return map[string]any{"level": next}, nil
}

func (r *Server) cmdThinkingLevels(_ context.Context, _ *rpcCommand) (any, error) {
	cur, _ := r.current()
	return map[string]any{"levels": levels(cur.Model)}, nil
}
