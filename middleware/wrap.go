package middleware

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"

	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/schema"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
)

// Chain is a chains.Chain that behaves like the chain it wraps. It has the
// same input and output keys, memory, outputs and errors. It captures and
// traces every call, and evaluates it when a guard or shadow is set. It is
// immutable after New and safe for concurrent use if the wrapped chain is.
type Chain struct {
	inner   chains.Chain
	orig    chains.Chain // the chain as given, before instrumentation
	cfg     *config
	handler callbacks.Handler
}

var (
	_ chains.Chain           = (*Chain)(nil)
	_ callbacks.HandlerHaver = (*Chain)(nil)
)

// Wrap is New for chains built from constants, like regexp.MustCompile. It
// returns chain wrapped, and panics when New would return an error: a nil
// chain, a nil or typed-nil guard, an invalid option. Where the options
// depend on anything a user or a file can get wrong, call New and handle
// its error.
func Wrap(chain chains.Chain, opts ...Option) chains.Chain {
	c, err := New(chain, opts...)
	if err != nil {
		panic(err.Error())
	}
	return c
}

// New wraps chain, or returns an error naming what is wrong with chain or
// an option. For chains.RetrievalQA and chains.ConversationalRetrievalQA
// (values or pointers) it instruments a copy, and the caller's chain is not
// modified. The copy's retriever is wrapped with WrapRetriever. The LLMs of
// its StuffDocuments and condense-question LLMChains are wrapped with
// WrapLLM. Any other chain must use a retriever wrapped with WrapRetriever
// for its call to be captured; it may use LLMs wrapped with WrapLLM.
//
// With WithGuard the answer is evaluated inline and gated. With WithShadow
// it is handed to a shadow evaluator. With neither, calls are captured and
// traced only.
//
// Wrapping is idempotent in effect: only the outermost wrapped chain of a
// call captures. A wrapped chain called inside another one's call passes
// the call straight through. New returns chain itself when it is already a
// *Chain and no options are given.
func New(chain chains.Chain, opts ...Option) (*Chain, error) {
	if chain == nil {
		return nil, errorf("New: nil chain")
	}
	if w, ok := chain.(*Chain); ok && len(opts) == 0 {
		return w, nil
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	cfg.warnWithholdAll()
	if cfg.inst, err = newInstruments(cfg.mp); err != nil {
		return nil, err
	}
	if cfg.teach, err = newTeaching(cfg, cfg.mp); err != nil {
		return nil, err
	}
	if cfg.sink != nil {
		size := cfg.sinkQueue
		if size == 0 {
			size = DefaultSinkQueue
		}
		cfg.records = newRecordQueue(cfg, size)
	}
	if cfg.name == "" {
		cfg.name = fmt.Sprintf("%T", chain)
	}
	c := &Chain{inner: instrument(chain, cfg), orig: chain, cfg: cfg}
	if h, ok := chain.(callbacks.HandlerHaver); ok {
		c.handler = h.GetCallbackHandler()
	}
	return c, nil
}

// instrument returns a copy of known chains with their retriever and LLMs
// wrapped.
func instrument(chain chains.Chain, cfg *config) chains.Chain {
	switch c := chain.(type) {
	case chains.RetrievalQA:
		c.Retriever = wrapR(c.Retriever, cfg)
		c.CombineDocumentsChain = instrument(c.CombineDocumentsChain, cfg)
		return c
	case *chains.RetrievalQA:
		if c == nil {
			return chain
		}
		cp := *c
		return instrument(cp, cfg)
	case chains.ConversationalRetrievalQA:
		c.Retriever = wrapR(c.Retriever, cfg)
		c.CombineDocumentsChain = instrument(c.CombineDocumentsChain, cfg)
		c.CondenseQuestionChain = instrument(c.CondenseQuestionChain, cfg)
		return c
	case *chains.ConversationalRetrievalQA:
		if c == nil {
			return chain
		}
		cp := *c
		return instrument(cp, cfg)
	case chains.StuffDocuments:
		if c.LLMChain != nil {
			c.LLMChain = instrument(c.LLMChain, cfg).(*chains.LLMChain)
		}
		return c
	case *chains.LLMChain:
		if c == nil || c.LLM == nil {
			return chain
		}
		if _, ok := c.LLM.(*LLM); ok {
			return c
		}
		cp := *c
		cp.LLM = newLLM(c.LLM, cfg)
		return &cp
	}
	return chain
}

func wrapR(r schema.Retriever, cfg *config) schema.Retriever {
	if r == nil {
		return nil
	}
	if _, ok := r.(*Retriever); ok {
		return r
	}
	return newRetriever(r, cfg)
}

// Unwrap returns the chain as it was given to New.
func (c *Chain) Unwrap() chains.Chain { return c.orig }

// GetMemory returns the wrapped chain's memory.
func (c *Chain) GetMemory() schema.Memory { return c.inner.GetMemory() } //nolint:ireturn

// GetInputKeys returns the wrapped chain's input keys.
func (c *Chain) GetInputKeys() []string { return c.inner.GetInputKeys() }

// GetOutputKeys returns the wrapped chain's output keys.
func (c *Chain) GetOutputKeys() []string { return c.inner.GetOutputKeys() }

// GetCallbackHandler returns the wrapped chain's callbacks handler, so that
// chains.Call fires the same callbacks as for the wrapped chain.
func (c *Chain) GetCallbackHandler() callbacks.Handler { return c.handler } //nolint:ireturn

// Call runs the wrapped chain's Call. Use chains.Call (or Run, Predict) on
// the wrapped chain as on any chain. It loads and saves the memory and fires
// the callbacks, exactly as for the chain it wraps.
func (c *Chain) Call(ctx context.Context, inputs map[string]any, options ...chains.ChainCallOption) (map[string]any, error) {
	if captureFrom(ctx) != nil {
		// Inside another wrapped chain's call: that one captures.
		return c.inner.Call(ctx, inputs, options...)
	}
	cfg := c.cfg
	capt := &capture{cfg: cfg}
	ctx = context.WithValue(ctx, captureKey{}, capt)
	ctx, span := cfg.tracer.Start(ctx, otelkeys.SpanChain, kindInternal)
	defer span.End()
	out, err := c.inner.Call(ctx, inputs, options...)
	mode := cfg.mode()
	outcome := OutcomeFrom(ctx)
	if outcome != nil {
		outcome.Mode = mode
	}
	c.chainAttrs(span, mode, err)
	if err != nil {
		return out, err
	}
	if mode == modeOff && outcome == nil && !(span.IsRecording() && cfg.redact != nil) {
		return out, nil
	}

	ev, answerKey, serr := c.captured(ctx, span, capt, inputs, out, mode)
	if outcome != nil {
		outcome.ID, outcome.Sample, outcome.OriginalQuestion = ev.id, ev.sample, ev.original
	}
	switch {
	case mode == modeOff:
		return out, nil
	case serr != nil:
		return c.uncaptured(ctx, span, out, answerKey, ev.id, mode, serr, outcome)
	case mode == modeShadow:
		c.toShadow(span, ev, outcome)
		return out, nil
	}
	ev.eval = cfg.inline
	return c.gate(span, out, answerKey, ev.id, ev.run(ctx), outcome)
}

// mode is how the chain evaluates its answers.
func (c *config) mode() string {
	switch {
	case c.inline != nil:
		return modeInline
	case c.shadow != nil:
		return modeShadow
	}
	return modeOff
}

// chainAttrs describes the chain call on its span, and marks the span when
// the wrapped chain failed.
func (c *Chain) chainAttrs(span trace.Span, mode string, err error) {
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(
		attribute.String(otelkeys.OpenInferenceSpanKind, otelkeys.KindChain),
		attribute.String(otelkeys.ChainName, c.cfg.name),
		attribute.String(otelkeys.Mode, mode))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
}

// captured builds the call's sample and puts its ID on the chain span, with
// the question and answer under content capture. answerKey and err are as
// for sample.
func (c *Chain) captured(ctx context.Context, span trace.Span, capt *capture, inputs, out map[string]any, mode string) (ev *evaluation, answerKey string, err error) {
	cfg := c.cfg
	info := callInfoFrom(ctx)
	id := info.ID
	if id == "" {
		id = newID()
	}
	ev = &evaluation{cfg: cfg, id: id, mode: mode, parent: span.SpanContext()}
	var pre []string
	ev.sample, ev.original, pre, answerKey, err = c.sample(capt, inputs, out, &info)
	ev.sample.ID = id
	if cfg.redact != nil {
		ev.texts = &sampleTexts{raw: &ev.sample, rawOriginal: ev.original, pre: pre}
	}
	if !span.IsRecording() {
		return ev, answerKey, err
	}
	span.SetAttributes(attribute.String(otelkeys.SampleID, id))
	if cfg.redact == nil {
		return ev, answerKey, err
	}
	t := ev.asked()
	span.SetAttributes(attribute.String(otelkeys.InputValue, t.asked()), attribute.String(otelkeys.OutputValue, t.answer))
	return ev, answerKey, err
}

// uncaptured handles a call whose sample could not be built (no retrieval,
// no answer). It is counted like an evaluation that gave no result, so that
// the evaluations metric accounts for every guarded call. Inline, the gate
// then treats it as Review; a shadow call returns the chain's output.
func (c *Chain) uncaptured(ctx context.Context, span trace.Span, out map[string]any, answerKey, id, mode string, serr error, outcome *Outcome) (map[string]any, error) {
	cfg := c.cfg
	cfg.handle(errorf("chain %s, sample %s: %w", cfg.name, id, serr))
	v := verdict{action: guard.Review, err: serr}
	cfg.inst.evaluations.Add(ctx, 1, evaluationAttrs(mode, &v))
	if mode == modeShadow {
		if outcome != nil {
			outcome.Err = serr
		}
		return out, nil
	}
	return c.gate(span, out, answerKey, id, v, outcome)
}

// toShadow hands the sample to the shadow evaluator and says on the chain
// span and the Outcome whether it was queued.
func (c *Chain) toShadow(span trace.Span, ev *evaluation, outcome *Outcome) {
	sh := c.cfg.shadow
	ev.eval, ev.shadow = sh.eval, sh
	// After submit, a worker owns ev.
	queued := sh.submit(ev)
	if span.IsRecording() {
		span.SetAttributes(attribute.String(otelkeys.ShadowOutcome, queued))
	}
	if outcome != nil {
		outcome.Queued = queued == shadowQueued
	}
}

// gate applies the inline gate to the verdict.
func (c *Chain) gate(span trace.Span, out map[string]any, answerKey, id string, v verdict, outcome *Outcome) (map[string]any, error) {
	cfg := c.cfg
	if outcome != nil {
		outcome.Evaluated, outcome.Action = v.ok, v.action
		if v.ok {
			outcome.Result = v.res
		}
		outcome.Err = v.err
	}
	if cfg.resultKey != "" {
		if out == nil {
			out = make(map[string]any, 1)
		}
		o := outcome
		if o == nil {
			o = &Outcome{ID: id, Mode: modeInline, Evaluated: v.ok, Action: v.action, Err: v.err}
			if v.ok {
				o.Result = v.res
			}
		}
		out[cfg.resultKey] = o
	}
	enf, stop := cfg.gate.forAction(v.action)
	if !stop || enf == AnnotateOnly {
		return out, nil
	}
	if enf == ReplaceAnswer && answerKey != "" {
		text := cfg.gate.FallbackText
		if text == "" {
			text = DefaultFallbackText
		}
		out[answerKey] = text
		markGated(span, outcome)
		return out, nil
	}
	ge := &GateError{ID: id, Action: v.action, Err: v.err}
	if v.ok {
		r := v.res
		ge.Result = &r
	} else if v.err == nil {
		ge.Err = ErrNoAnswer
	}
	markGated(span, outcome)
	return nil, ge
}

func markGated(span trace.Span, outcome *Outcome) {
	if outcome != nil {
		outcome.Gated = true
	}
	if span.IsRecording() {
		span.SetAttributes(attribute.Bool(otelkeys.Gated, true))
	}
}

// sample builds the guard sample of a call from its capture, inputs and
// outputs. redacted holds the context texts the retriever spans redacted,
// or nil. answerKey is the output key the answer was read from ("" when it
// came from the LLM capture). err says what is missing.
func (c *Chain) sample(capt *capture, inputs, out map[string]any, info *CallInfo) (s guard.Sample, original string, redacted []string, answerKey string, err error) {
	cfg := c.cfg
	capt.mu.Lock()
	defer capt.mu.Unlock()

	// The user's question.
	var asked string
	if cfg.questionKey != "" {
		asked, _ = inputs[cfg.questionKey].(string)
	} else {
		for _, k := range c.inner.GetInputKeys() {
			if q, ok := inputs[k].(string); ok {
				asked = q
				break
			}
		}
	}
	s.Question = asked
	if capt.retrieved {
		s.Question = capt.query
		if asked != "" && asked != capt.query {
			original = asked
		}
	}

	// The answer.
	if cfg.answerKey != "" {
		if a, ok := out[cfg.answerKey].(string); ok {
			s.Answer, answerKey = a, cfg.answerKey
		}
	} else {
		for _, k := range c.inner.GetOutputKeys() {
			if a, ok := out[k].(string); ok {
				s.Answer, answerKey = a, k
				break
			}
		}
	}
	if answerKey == "" && capt.generated {
		s.Answer = capt.lastAnswer
	}

	s.Reference = info.Reference
	s.Metadata = maps.Clone(info.Metadata) // a shadow worker reads it after Call returns
	s.Contexts = contextsOf(capt.docs, cfg.contextID)
	redacted = capt.redacted()
	switch {
	case !capt.retrieved:
		err = ErrNoRetrieval
	case answerKey == "" && !capt.generated:
		err = ErrNoAnswer
	}
	return s, original, redacted, answerKey, err
}

// contextsOf turns documents into contexts with unique IDs.
func contextsOf(docs []schema.Document, idf func(int, schema.Document) string) []guard.Context {
	out := make([]guard.Context, len(docs))
	var seen map[string]int
	for i := range docs {
		d := &docs[i]
		id := idf(i, *d)
		if id == "" {
			id = "doc-" + strconv.Itoa(i+1)
		}
		if len(docs) > 1 {
			if seen == nil {
				seen = make(map[string]int, len(docs))
			}
			if n := seen[id]; n > 0 {
				base := id
				for {
					n++
					id = base + "#" + strconv.Itoa(n)
					if seen[id] == 0 {
						break
					}
				}
				seen[base] = n
			}
			seen[id] = max(seen[id], 1)
		}
		out[i] = guard.Context{ID: id, Text: d.PageContent, Metadata: d.Metadata}
		if d.Score != 0 {
			sc := float64(d.Score)
			out[i].Score = &sc
		}
	}
	return out
}

const hexdigits = "0123456789abcdef"

// newID returns 16 random hex digits.
func newID() string {
	var b [16]byte
	v := rand.Uint64()
	for i := range b {
		b[i] = hexdigits[v&0xf]
		v >>= 4
	}
	return string(b[:])
}
