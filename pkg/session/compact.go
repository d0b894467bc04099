package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"gopi/internal/pijson"
	"gopi/pkg/ai"
)

// Compaction defaults, as pi's.
const (
	DefaultReserveTokens    = 16384
	DefaultKeepRecentTokens = 20000
)

// CompactOptions tune Compact. The zero value gives pi's defaults.
type CompactOptions struct {
	KeepRecentTokens   int    // recent tokens kept verbatim; default 20,000
	ReserveTokens      int    // the summary may use 80% of this; default 16,384
	CustomInstructions string // appended to the prompt as "Additional focus: …"
	Reasoning          bool   // ask a reasoning model to think hard (pi: "high")
	// Estimate counts a message's tokens; default EstimateTokens.
	Estimate func(ai.Message) int
	Now      func() time.Time // timestamp of the summary request; default time.Now
	// MaxInputTokens bounds the history a summary request carries (the
	// summarising model's window less its answer); 0: no bound. The
	// oldest messages past it are left out of the request, and the
	// prompt says so: a session far bigger than the window still gets a
	// summary instead of a request the provider refuses on every resume.
	MaxInputTokens int
}

// summaryOverhead is what a summary request holds besides the history:
// the system prompt, the instructions and the previous summary's wrapper.
const summaryOverhead = 2048

func (o CompactOptions) withDefaults() CompactOptions {
	if o.KeepRecentTokens <= 0 {
		o.KeepRecentTokens = DefaultKeepRecentTokens
	}
	if o.ReserveTokens <= 0 {
		o.ReserveTokens = DefaultReserveTokens
	}
	if o.Estimate == nil {
		o.Estimate = EstimateTokens
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// plan is pi's CompactionPreparation.
type plan struct {
	firstKept       string
	toSummarize     []ai.Message
	turnPrefix      []ai.Message
	splitTurn       bool
	tokensBefore    int
	previousSummary string
	files           fileOps
	omitted         int // the oldest messages of toSummarize left out to fit MaxInputTokens
}

// Compact summarizes the part of path before a cut point that keeps about
// KeepRecentTokens of recent messages (never cutting at a tool result), and
// returns a compaction entry under the path's leaf for the caller to
// append. A previous compaction's summary is updated rather than lost, and
// its file lists carried over. It fails with ErrNothingToCompact when there
// is nothing before the cut point.
func Compact(ctx context.Context, model ai.Model, path []Entry, opts CompactOptions) (Entry, error) {
	opts = opts.withDefaults()
	p, err := prepare(path, opts)
	if err != nil {
		return Entry{}, err
	}
	summary, err := summarize(ctx, model, p, opts)
	if err != nil {
		return Entry{}, err
	}
	readFiles, modifiedFiles := p.files.lists()
	summary += formatFileOperations(readFiles, modifiedFiles)
	details, err := pijson.Marshal(CompactionDetails{ReadFiles: readFiles, ModifiedFiles: modifiedFiles})
	if err != nil {
		return Entry{}, fmt.Errorf("compaction details: %w", err)
	}
	return Entry{
		Type: TypeCompaction, ParentID: Ref(path[len(path)-1].ID),
		Summary: summary, FirstKeptEntryID: p.firstKept, TokensBefore: int64(p.tokensBefore),
		Details: details,
	}, nil
}

func prepare(path []Entry, opts CompactOptions) (*plan, error) {
	if len(path) == 0 || path[len(path)-1].Type == TypeCompaction {
		return nil, fmt.Errorf("compact: the path ends with a compaction: %w", ErrNothingToCompact)
	}
	prev := -1
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == TypeCompaction {
			prev = i
			break
		}
	}
	start := prev + 1
	cut := findCutPoint(path, start, opts)
	p := &plan{firstKept: path[cut.firstKept].ID, splitTurn: cut.splitTurn,
		files: fileOps{read: map[string]bool{}, modified: map[string]bool{}}}
	p.tokensBefore = estimateContext(path[max(prev, 0):], opts.Estimate)
	historyEnd := cut.firstKept
	edits := pathEdits(path[start:])
	if cut.splitTurn {
		historyEnd = cut.turnStart
		p.turnPrefix = pathMessages(path[cut.turnStart:cut.firstKept], edits)
	}
	p.toSummarize = pathMessages(path[start:historyEnd], edits)
	if prev >= 0 {
		p.previousSummary = path[prev].Summary
		p.files.carry(path[prev])
	}
	for _, m := range append(p.toSummarize, p.turnPrefix...) {
		p.files.add(m)
	}
	if len(p.toSummarize) == 0 && len(p.turnPrefix) == 0 {
		return nil, fmt.Errorf("compact: everything after the last compaction fits in %d recent tokens: %w",
			opts.KeepRecentTokens, ErrNothingToCompact)
	}
	p.bound(opts)
	return p, nil
}

// bound leaves the oldest messages to summarise out of the request until
// the rest, the previous summary and the prompt fit opts.MaxInputTokens.
// It walks back from the newest message and stops at the first that does
// not fit, so a huge history costs only the estimate of what fits.
func (p *plan) bound(opts CompactOptions) {
	if opts.MaxInputTokens <= 0 {
		return
	}
	overhead := min(summaryOverhead, opts.MaxInputTokens/4) // a tiny window has a short prompt to spare
	left := opts.MaxInputTokens - overhead - (len(p.previousSummary)+3)/4
	keep := len(p.toSummarize)
	for keep > 0 {
		t := opts.Estimate(p.toSummarize[keep-1])
		// The newest message goes whatever its size: a summary of
		// nothing helps no one.
		if t > left && keep < len(p.toSummarize) {
			break
		}
		left -= t
		keep--
	}
	p.omitted = keep
	p.toSummarize = p.toSummarize[keep:]
}

// carry takes over the file lists of a previous pi-made compaction.
func (f *fileOps) carry(prev Entry) {
	if prev.FromHook != nil && *prev.FromHook {
		return
	}
	d, ok := prev.CompactionInfo()
	if !ok {
		return
	}
	for _, p := range d.ReadFiles {
		f.read[p] = true
	}
	for _, p := range d.ModifiedFiles {
		f.modified[p] = true
	}
}

// pathMessages converts entries to the messages the model would see,
// with the context edits of the path applied.
func pathMessages(es []Entry, edits map[string]*Entry) []ai.Message {
	var out []ai.Message
	for i := range es {
		e := &es[i]
		m, ok := entryMessage(*e)
		if ok && edits[e.ID] != nil {
			var pm *ai.Message
			if pm, ok = editedMessage(e, &m, edits[e.ID]); ok {
				m = *pm
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

// pathEdits maps each entry a context_edit among es targets to the
// newest such edit; nil when there is none.
func pathEdits(es []Entry) map[string]*Entry {
	var edits map[string]*Entry
	for i := range es {
		if e := &es[i]; e.Type == TypeContextEdit {
			if edits == nil {
				edits = map[string]*Entry{}
			}
			edits[e.TargetID] = e
		}
	}
	return edits
}

// estimateContext is pi's estimateContextTokens: the last valid assistant
// usage plus estimates of the messages after it. It walks back from the
// newest entry, so only the messages after that answer are converted.
func estimateContext(es []Entry, est func(ai.Message) int) int {
	total := 0
	for i := len(es) - 1; i >= 0; i-- {
		m, ok := entryMessage(es[i])
		if !ok {
			continue
		}
		if m.Role == ai.RoleAssistant && m.StopReason != ai.StopAborted && m.StopReason != ai.StopError {
			u := m.Usage
			used := u.TotalTokens
			if used == 0 {
				used = u.Input + u.Output + u.CacheRead + u.CacheWrite
			}
			if used > 0 {
				return int(used) + total
			}
		}
		total += est(m)
	}
	return total
}

// summarize asks the model for the history summary and, for a split turn,
// the turn prefix summary (concurrently, as pi does), and merges them.
func summarize(ctx context.Context, model ai.Model, p *plan, opts CompactOptions) (string, error) {
	if !p.splitTurn || len(p.turnPrefix) == 0 {
		return historySummary(ctx, model, p, opts)
	}
	var history, prefix string
	var herr, perr error
	var wg sync.WaitGroup
	wg.Go(func() {
		history = "No prior history."
		if len(p.toSummarize) > 0 {
			history, herr = historySummary(ctx, model, p, opts)
		}
	})
	wg.Go(func() {
		prefix, perr = ask(ctx, model, conversationPrompt(p.turnPrefix, turnPrefixPrompt), opts.ReserveTokens/2, false, opts)
	})
	wg.Wait()
	if err := errors.Join(herr, perr); err != nil {
		return "", err
	}
	return history + "\n\n---\n\n**Turn Context (split turn):**\n\n" + prefix, nil
}

func historySummary(ctx context.Context, model ai.Model, p *plan, opts CompactOptions) (string, error) {
	prompt := summarizationPrompt
	if p.previousSummary != "" {
		prompt = updateSummarizationPrompt
	}
	if opts.CustomInstructions != "" {
		prompt += "\n\nAdditional focus: " + opts.CustomInstructions
	}
	var previous []string
	if p.previousSummary != "" {
		previous = []string{"<previous-summary>\n", p.previousSummary, "\n</previous-summary>\n\n"}
	}
	if p.omitted > 0 {
		previous = append(previous, fmt.Sprintf("Note: the %d oldest messages of this conversation were too long to include and are left out; "+
			"summarize what is shown, and say that earlier history is missing.\n\n", p.omitted))
	}
	text := conversationPrompt(p.toSummarize, append(previous, prompt)...)
	return ask(ctx, model, text, opts.ReserveTokens*8/10, opts.Reasoning, opts)
}

// ask sends one summary request and returns the answer's text blocks
// joined by newlines.
func ask(ctx context.Context, model ai.Model, text string, maxTokens int, reasoning bool, opts CompactOptions) (string, error) {
	req := &ai.Request{
		SystemPrompt: SummarizationSystemPrompt,
		Messages:     []ai.Message{ai.UserText(text, opts.Now().UnixMilli())},
		MaxTokens:    maxTokens,
	}
	if reasoning {
		req.Thinking = ai.ThinkingHigh
	}
	msg, err := ai.Collect(model.Stream(ctx, req))
	if err == nil && (msg.StopReason == ai.StopError || msg.StopReason == ai.StopAborted) {
		err = errors.New(msg.ErrorMessage)
	}
	if err != nil {
		return "", fmt.Errorf("summarization failed: %w", err)
	}
	var parts []string
	for _, c := range msg.Content {
		if c.Type == ai.TypeText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n"), nil
}

// ContextTokens estimates the tokens the context of path uses, as pi does:
// the last valid assistant usage since the last compaction plus chars/4
// estimates of the messages after it.
func ContextTokens(path []Entry) int {
	prev := 0
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == TypeCompaction {
			prev = i
			break
		}
	}
	return estimateContext(path[prev:], EstimateTokens)
}

// ShouldCompact reports whether a context of tokens passes window minus
// reserve (pi's auto-compaction threshold; reserve 0 means 16,384).
func ShouldCompact(tokens, window, reserve int) bool {
	if reserve <= 0 {
		reserve = DefaultReserveTokens
	}
	return window > 0 && tokens > window-reserve
}
