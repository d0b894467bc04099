package ai

// Usage counts the tokens of one model response and what they cost.
type Usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
	// Reasoning is the part of Output the model spent reasoning, as
	// OpenAI's APIs report it (pi 1.6); nil when not reported.
	Reasoning   *int64 `json:"reasoning,omitempty"`
	TotalTokens int64  `json:"totalTokens"`
	Cost        Cost   `json:"cost"`
	// CacheWrite1h is the part of CacheWrite written to the one-hour
	// cache (pi 1.6); nil when not reported.
	CacheWrite1h *int64 `json:"cacheWrite1h,omitempty"`
}

// Cost is in US dollars.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
	// TotalFromProvider says the provider reported Total itself (pi 1.6);
	// nil when not recorded.
	TotalFromProvider *bool `json:"totalFromProvider,omitempty"`
}

// Add returns the sum of two usages, costs included.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		Input:       u.Input + o.Input,
		Output:      u.Output + o.Output,
		CacheRead:   u.CacheRead + o.CacheRead,
		CacheWrite:  u.CacheWrite + o.CacheWrite,
		TotalTokens: u.TotalTokens + o.TotalTokens,
		Cost: Cost{
			Input:      u.Cost.Input + o.Cost.Input,
			Output:     u.Cost.Output + o.Cost.Output,
			CacheRead:  u.Cost.CacheRead + o.Cost.CacheRead,
			CacheWrite: u.Cost.CacheWrite + o.Cost.CacheWrite,
			Total:      u.Cost.Total + o.Cost.Total,
			// The sum came from the provider when every part did.
			TotalFromProvider: andOpt(u.Cost.TotalFromProvider, o.Cost.TotalFromProvider),
		},
		CacheWrite1h: addOpt(u.CacheWrite1h, o.CacheWrite1h),
		Reasoning:    addOpt(u.Reasoning, o.Reasoning),
	}
}

// addOpt adds two optional counts: nil when neither is set.
func addOpt(a, b *int64) *int64 {
	if a == nil && b == nil {
		return nil
	}
	var n int64
	if a != nil {
		n += *a
	}
	if b != nil {
		n += *b
	}
	return &n
}

// andOpt is a and b, either alone when the other is not set, nil when
// neither is.
func andOpt(a, b *bool) *bool {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	v := *a && *b
	return &v
}

// Prices are US dollars per million tokens.
type Prices struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// Info describes a model: where it is served and what it can do.
type Info struct {
	ID              string `json:"id"`
	Name            string `json:"name,omitempty"`
	Provider        string `json:"provider"`
	API             string `json:"api"`
	ContextWindow   int    `json:"contextWindow"`
	MaxOutputTokens int    `json:"maxOutputTokens"`
	Prices          Prices `json:"prices"`
	Reasoning       bool   `json:"reasoning"`
	Images          bool   `json:"images,omitempty"`
	// BaseURL is the API address requests go to, when known (pi's model
	// object shows it; never a secret). Not written with the Info.
	BaseURL string `json:"-"`
}

// WithCost returns u with its cost computed from the model's prices (and
// marked so: totalFromProvider false) and its total token count filled in
// when the provider did not send one.
func (i Info) WithCost(u Usage) Usage {
	const perToken = 1.0 / 1_000_000
	u.Cost.Input = float64(u.Input) * i.Prices.Input * perToken
	u.Cost.Output = float64(u.Output) * i.Prices.Output * perToken
	u.Cost.CacheRead = float64(u.CacheRead) * i.Prices.CacheRead * perToken
	// A one-hour cache write costs twice the input price (Anthropic's
	// rule, as pi 1.6 prices it); the rest the cache write price.
	long := int64(0)
	if u.CacheWrite1h != nil {
		long = min(*u.CacheWrite1h, u.CacheWrite)
	}
	u.Cost.CacheWrite = (float64(u.CacheWrite-long)*i.Prices.CacheWrite + float64(long)*2*i.Prices.Input) * perToken
	u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
	// The total is gopi's sum of the prices, as pi 1.6 records it.
	computed := false
	u.Cost.TotalFromProvider = &computed
	if u.TotalTokens == 0 {
		u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	}
	return u
}

// ContextTokens is how full the context was at the last answer of msgs
// that counted tokens (input, cached, output, as pi's footer counts
// them); false when none did.
func ContextTokens(msgs []Message) (int64, bool) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != RoleAssistant {
			continue
		}
		u := msgs[i].Usage
		if n := u.Input + u.Output + u.CacheRead + u.CacheWrite; n > 0 {
			return n, true
		}
	}
	return 0, false
}
