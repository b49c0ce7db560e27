package llmjudge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tmc/langchaingo/llms"
	"golang.org/x/sync/errgroup"

	"github.com/ragtriage/ragtriage/guard"
)

// Mode says where a judge's probabilities come from.
type Mode uint8

const (
	// Auto uses token log-probabilities when the model's server returns
	// them (through a Transport) and sampling otherwise. After the first
	// call that returns none, the judge samples from then on.
	Auto Mode = iota
	// LogprobsOnly uses log-probabilities and abstains when there are none.
	LogprobsOnly
	// SamplesOnly always samples.
	SamplesOnly
)

func (m Mode) String() string {
	switch m {
	case LogprobsOnly:
		return "logprobs"
	case SamplesOnly:
		return "samples"
	}
	return "auto"
}

// Config configures a Judge. Zero fields take the defaults stated.
type Config struct {
	// Model answers the prompts. Required.
	Model llms.Model
	// Name names the model in results ("gpt-4o-mini"); "model" when empty.
	Name string
	// Mode chooses between log-probabilities and sampling.
	Mode Mode
	// TopLogprobs is how many alternatives of the first token to ask for.
	// Default 5.
	TopLogprobs int
	// MinYesNoMass is the share of the first token's probability that must
	// fall on yes/no tokens for P(yes) to be read from it; below it the
	// judge abstains (the model was about to say something else). Default
	// 0.5.
	MinYesNoMass float64
	// Samples is how many answers are sampled without log-probabilities.
	// Default 5.
	Samples int
	// SampleTemperature is the temperature of sampled answers. Default 1.
	SampleTemperature float64
	// MaxDisagreement is the largest share of valid samples that may vote
	// against the majority; beyond it the judge abstains. Default 0.2
	// (with 5 samples: 4–1 is an answer, 3–2 an abstention).
	MaxDisagreement float64
	// MinValidSamples is how many samples must be parsable; fewer and the
	// judge abstains. Default: more than half of Samples.
	MinValidSamples int
	// MaxTokens bounds a yes/no reply; default 8. EvidenceMaxTokens bounds
	// a groundedness reply with its quotes; default 512.
	MaxTokens         int
	EvidenceMaxTokens int
	// MinQuoteWords is the fewest words a groundedness quote must have
	// (fewer when the context is shorter). Default 3.
	MinQuoteWords int
	// Parallel is how many model calls one Judge call makes at once.
	// Default 4.
	Parallel int
	// CallOptions are added to every model call (for example
	// openai.WithLegacyMaxTokensField() for servers that only know
	// max_tokens).
	CallOptions []llms.CallOption
}

func (c Config) withDefaults() (Config, error) {
	if c.Model == nil {
		return c, errors.New("llmjudge: Config.Model is nil")
	}
	if c.Mode > SamplesOnly {
		return c, fmt.Errorf("llmjudge: unknown mode %d", c.Mode)
	}
	for _, f := range []float64{c.MinYesNoMass, c.SampleTemperature, c.MaxDisagreement} {
		if math.IsNaN(f) || f < 0 {
			return c, fmt.Errorf("llmjudge: config %+v: negative or NaN number", c)
		}
	}
	if c.TopLogprobs < 0 || c.Samples < 0 || c.MinValidSamples < 0 || c.MaxTokens < 0 || c.EvidenceMaxTokens < 0 || c.MinQuoteWords < 0 || c.Parallel < 0 {
		return c, errors.New("llmjudge: config: negative count")
	}
	if c.MinYesNoMass > 1 || c.MaxDisagreement >= 0.5 {
		return c, errors.New("llmjudge: config: MinYesNoMass must be ≤ 1 and MaxDisagreement < 0.5")
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.TopLogprobs, 5)
	def(&c.Samples, 5)
	def(&c.MaxTokens, 8)
	def(&c.EvidenceMaxTokens, 512)
	def(&c.MinQuoteWords, 3)
	def(&c.Parallel, 4)
	def(&c.MinValidSamples, c.Samples/2+1)
	if c.MinValidSamples > c.Samples {
		return c, fmt.Errorf("llmjudge: config: MinValidSamples %d > Samples %d", c.MinValidSamples, c.Samples)
	}
	if c.MinYesNoMass == 0 {
		c.MinYesNoMass = 0.5
	}
	if c.SampleTemperature == 0 {
		c.SampleTemperature = 1
	}
	if c.MaxDisagreement == 0 {
		c.MaxDisagreement = 0.2
	}
	if c.Name == "" {
		c.Name = "model"
	}
	return c, nil
}

// Judge is a guard.Judge backed by an llms.Model: one versioned yes/no
// prompt per decision (per context for chunk relevance). P(yes) comes from
// the first token's log-probabilities where the server returns them, or else
// from the share of yes among sampled answers; the judge abstains when the
// samples disagree too much, and an unparsable or refused reply is an
// abstention, never 0 or 1. Groundedness is fail-closed: the model must
// quote its evidence, the quotes are checked against the contexts, and an
// estimate of 0.5 or more needs every quote found.
//
// A Judge is safe for concurrent use if its Model is.
type Judge struct {
	cfg        Config
	noLogprobs atomic.Bool
}

// New returns a Judge.
func New(cfg Config) (*Judge, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Judge{cfg: c}, nil
}

// Describe implements guard.Describer: the name is "llmjudge/" and the
// model name, the version is PromptVersion.
func (j *Judge) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "llmjudge/" + j.cfg.Name, Version: PromptVersion}
}

// task is one question to the model.
type task struct {
	d   guard.Decision
	ctx string // chunk relevance: the context
	in  promptInput
}

// Judge implements guard.Judge. Transport and API failures (after the
// Transport's retries) make it return an error wrapping the cause, and
// ctx.Err() when the context ended; a reply it cannot use is an abstention.
func (j *Judge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	s := req.Sample
	if s == nil {
		return nil, errors.New("llmjudge: nil sample")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("llmjudge: %w", err)
	}
	var tasks []task
	ref := ""
	if s.Reference != nil {
		ref = *s.Reference
	}
	for _, d := range req.Decisions {
		switch {
		case !d.Valid():
			continue
		case d == guard.ChunkRelevance:
			for _, c := range s.Contexts {
				tasks = append(tasks, task{d: d, ctx: c.ID, in: promptInput{question: s.Question, contexts: []guard.Context{c}}})
			}
		default:
			tasks = append(tasks, task{d: d, in: promptInput{question: s.Question, contexts: s.Contexts, answer: s.Answer, reference: ref}})
		}
	}
	out := make([]guard.Estimate, len(tasks))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(j.cfg.Parallel)
	for i := range tasks {
		t := &tasks[i]
		if t.d == guard.Correctness && s.Reference == nil {
			out[i] = guard.Abstain(t.d, "", "no reference answer")
			continue
		}
		g.Go(func() error {
			e, err := j.estimate(gctx, t, s)
			if err != nil {
				return fmt.Errorf("llmjudge: %v: %w", t.d, err)
			}
			out[i] = e
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			// langchaingo replaces context errors with plain text.
			err = fmt.Errorf("%w (%w)", cerr, err)
		}
		return nil, err
	}
	return out, nil
}

// call is one model call's result.
type call struct {
	texts []string
	lp    *Logprobs
	usage guard.Usage
}

func (j *Judge) generate(ctx context.Context, msgs []llms.MessageContent, top int, opts ...llms.CallOption) (call, error) {
	ctx, lp := WithLogprobs(ctx, top)
	all := append(append([]llms.CallOption(nil), j.cfg.CallOptions...), opts...)
	resp, err := j.cfg.Model.GenerateContent(ctx, msgs, all...)
	c := call{lp: lp, usage: guard.Usage{Calls: 1, Retries: lp.Retries}}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			err = fmt.Errorf("%w (%w)", cerr, err)
		}
		return c, err
	}
	if resp == nil || len(resp.Choices) == 0 {
		return c, errors.New("the model returned no choice")
	}
	for i, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		c.texts = append(c.texts, ch.Content)
		if i == 0 {
			// Token counts are per call, repeated on every choice.
			c.usage.InputTokens = intInfo(ch.GenerationInfo, "PromptTokens")
			c.usage.OutputTokens = intInfo(ch.GenerationInfo, "CompletionTokens")
		}
	}
	return c, nil
}

func intInfo(m map[string]any, k string) int {
	switch v := m[k].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	}
	return 0
}

// estimate answers one task.
func (j *Judge) estimate(ctx context.Context, t *task, s *guard.Sample) (guard.Estimate, error) {
	start := time.Now()
	msgs := prompts[t.d].messages(t.in)
	maxTok := j.cfg.MaxTokens
	if t.d == guard.Groundedness {
		maxTok = j.cfg.EvidenceMaxTokens
	}
	var e guard.Estimate
	var usage guard.Usage
	done := false
	if j.cfg.Mode != SamplesOnly && !(j.cfg.Mode == Auto && j.noLogprobs.Load()) {
		c, err := j.generate(ctx, msgs, j.cfg.TopLogprobs, llms.WithTemperature(0), llms.WithMaxTokens(maxTok))
		usage = usage.Add(c.usage)
		if err != nil {
			return e, err
		}
		if len(c.lp.Choices) > 0 && len(c.lp.Choices[0]) > 0 {
			e, done = j.fromLogprobs(t, s, c.lp.Choices[0], c.texts[0]), true
		} else if j.cfg.Mode == LogprobsOnly {
			e, done = guard.Abstain(t.d, t.ctx, "the model's server returned no log-probabilities"), true
		} else {
			j.noLogprobs.Store(true)
		}
	}
	if !done {
		var texts []string
		for calls := 0; len(texts) < j.cfg.Samples && calls < j.cfg.Samples; calls++ {
			n := j.cfg.Samples - len(texts)
			opts := []llms.CallOption{llms.WithTemperature(j.cfg.SampleTemperature), llms.WithMaxTokens(maxTok)}
			if n > 1 {
				opts = append(opts, llms.WithN(n))
			}
			c, err := j.generate(ctx, msgs, 0, opts...)
			usage = usage.Add(c.usage)
			if err != nil {
				return e, err
			}
			if len(c.texts) > n {
				c.texts = c.texts[:n]
			}
			texts = append(texts, c.texts...)
		}
		e = j.fromSamples(t, s, texts)
	}
	e.Decision, e.ContextID = t.d, t.ctx
	e.Usage = usage
	e.Latency = time.Since(start)
	return e, nil
}

// fromLogprobs reads P(yes) from the first word-bearing token's
// alternatives. For groundedness, P ≥ 0.5 also needs the greedy reply to say
// yes and every quote it gives to be found.
func (j *Judge) fromLogprobs(t *task, s *guard.Sample, toks []TokenLogprob, text string) guard.Estimate {
	k := 0
	for k < len(toks) && strings.Trim(toks[k].Token, " \t\n*_`#>\"'") == "" {
		k++
	}
	if k == len(toks) {
		return guard.Abstain(t.d, t.ctx, "unparsable reply: no word in the reply")
	}
	var pYes, pNo float64
	seen := map[string]bool{}
	add := func(tl TokenLogprob) {
		if seen[tl.Token] || math.IsNaN(tl.Logprob) {
			return
		}
		seen[tl.Token] = true
		switch tokenVote(tl.Token) {
		case voteYes:
			pYes += math.Exp(tl.Logprob)
		case voteNo:
			pNo += math.Exp(tl.Logprob)
		}
	}
	for _, alt := range toks[k].Top {
		add(alt)
	}
	add(TokenLogprob{Token: toks[k].Token, Logprob: toks[k].Logprob})
	if mass := pYes + pNo; mass < j.cfg.MinYesNoMass || mass <= 0 {
		return guard.Abstain(t.d, t.ctx, fmt.Sprintf("unparsable or refused reply: the model began with %s (yes/no probability %.2f)", quoteForReason(toks[k].Token), mass))
	}
	p := pYes / (pYes + pNo)
	if t.d != guard.Groundedness {
		return guard.Estimate{P: p}
	}
	v := parseYesNo(text)
	if v == voteNone {
		return guard.Abstain(t.d, t.ctx, "unparsable reply: "+quoteForReason(text))
	}
	ev, bad := checkQuotes(parseQuotes(text), s, j.cfg.MinQuoteWords)
	if p >= 0.5 {
		switch {
		case v != voteYes:
			return guard.Abstain(t.d, t.ctx, fmt.Sprintf("P(yes) %.2f but the reply says no: no evidence quoted", p))
		case bad != "":
			return guard.Abstain(t.d, t.ctx, "unverified evidence: "+bad)
		case len(ev) == 0:
			return guard.Abstain(t.d, t.ctx, "unverified evidence: the reply quotes nothing")
		}
	}
	return guard.Estimate{P: p, Evidence: ev}
}

// fromSamples turns sampled replies into the share of yes votes, abstaining
// when too few parse or they disagree beyond MaxDisagreement. For
// groundedness a yes counts only when its quotes are all found: an
// unverified yes counts against P, and when too few samples remain that
// are either a verified yes or a plain no, the judge abstains rather than
// call the answer ungrounded on the strength of replies that said yes.
func (j *Judge) fromSamples(t *task, s *guard.Sample, texts []string) guard.Estimate {
	yes, no, unverified := 0, 0, 0
	var ev []guard.Evidence
	firstBad := ""
	for _, text := range texts {
		switch parseYesNo(text) {
		case voteYes:
			if t.d != guard.Groundedness {
				yes++
				continue
			}
			qs := parseQuotes(text)
			e, bad := checkQuotes(qs, s, j.cfg.MinQuoteWords)
			if bad == "" && len(qs) == 0 {
				bad = "the reply quotes nothing"
			}
			if bad != "" {
				unverified++
				if firstBad == "" {
					firstBad = bad
				}
				continue
			}
			yes++
			if ev == nil {
				ev = e
			}
		case voteNo:
			no++
		}
	}
	if real := yes + no; real < j.cfg.MinValidSamples {
		if unverified > 0 {
			return guard.Abstain(t.d, t.ctx, fmt.Sprintf("unverified evidence in %d of %d samples: %s", unverified, len(texts), firstBad))
		}
		return guard.Abstain(t.d, t.ctx, fmt.Sprintf("unparsable or refused replies: %d of %d samples usable", real, len(texts)))
	}
	total := yes + no + unverified
	if float64(min(yes, no+unverified))/float64(total) > j.cfg.MaxDisagreement {
		r := fmt.Sprintf("samples disagree: %d yes, %d no", yes, no)
		if unverified > 0 {
			r += fmt.Sprintf(", %d yes with unverified evidence (%s)", unverified, firstBad)
		}
		return guard.Abstain(t.d, t.ctx, r)
	}
	p := float64(yes) / float64(total)
	if p < 0.5 {
		ev = nil
	}
	return guard.Estimate{P: p, Evidence: ev}
}
