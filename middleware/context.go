package middleware

import (
	"context"
	"sync"

	"github.com/tmc/langchaingo/schema"

	"github.com/ragtriage/ragtriage/guard"
)

// CallInfo is what the caller may attach to one chain call through
// WithCallInfo. Every field is optional.
type CallInfo struct {
	// ID identifies the sample in records and spans; records are joined to
	// labels by it. Empty: a random ID.
	ID string
	// Reference is the known right answer; with it the guard also judges
	// correctness. nil: absent (not the empty string).
	Reference *string
	// Metadata is copied to the sample and its record (never to spans).
	Metadata map[string]any
}

type callInfoKey struct{}
type outcomeKey struct{}
type captureKey struct{}

// WithCallInfo attaches info to the chain call made with the returned
// context.
func WithCallInfo(ctx context.Context, info CallInfo) context.Context {
	return context.WithValue(ctx, callInfoKey{}, &info)
}

// WithReference attaches a reference answer to the chain call made with the
// returned context. It keeps any other CallInfo already attached. It sets
// guard.Sample.Reference (JSON and dataset name "referenceAnswer") to ref.
// The sample is then judged with the with-reference decision set,
// correctness included, even for an empty ref. Without WithReference there
// is no reference.
func WithReference(ctx context.Context, ref string) context.Context {
	info := callInfoFrom(ctx)
	info.Reference = &ref
	return WithCallInfo(ctx, info)
}

func callInfoFrom(ctx context.Context) CallInfo {
	if p, ok := ctx.Value(callInfoKey{}).(*CallInfo); ok {
		return *p
	}
	return CallInfo{}
}

// Outcome is what a wrapped chain learnt about one call. Get one with
// WithOutcome before the call; the wrapper fills it before the call returns
// (shadow evaluation happens later and does not fill Result). Read it only
// after the call has returned.
type Outcome struct {
	// ID is the sample's ID.
	ID string
	// Mode is "inline", "shadow" or "off".
	Mode string
	// Sample is what was captured (unredacted: an Outcome stays in the
	// process). Empty when nothing was captured.
	Sample guard.Sample
	// OriginalQuestion is the user's question when the chain condensed it
	// into Sample.Question (ConversationalRetrievalQA); otherwise empty.
	OriginalQuestion string
	// Evaluated is true when the guard ran inline and gave a result.
	Evaluated bool
	// Result is the guard's result, when Evaluated.
	Result guard.Result
	// Action is what the gate acted on: the result's action, or Review when
	// there is no result.
	Action guard.Action
	// Gated is true when the gate changed the output: it replaced the answer
	// or returned a *GateError.
	Gated bool
	// Queued is true when the sample went to the shadow queue.
	Queued bool
	// Err is why there is no result. A judge that failed is part of the
	// result: Result.Errors, Result.Err.
	Err error
}

// WithOutcome returns a context for one chain call and the Outcome the
// wrapped chain will fill for that call.
func WithOutcome(ctx context.Context) (context.Context, *Outcome) {
	o := new(Outcome)
	return context.WithValue(ctx, outcomeKey{}, o), o
}

// OutcomeFrom returns the Outcome attached with WithOutcome, or nil.
func OutcomeFrom(ctx context.Context) *Outcome {
	o, _ := ctx.Value(outcomeKey{}).(*Outcome)
	return o
}

// capture collects what the wrapped retrievers and LLMs saw during one
// wrapped chain call. Safe for concurrent use: a hand-built chain may
// retrieve from several goroutines.
type capture struct {
	cfg *config

	mu        sync.Mutex
	retrieved bool
	generated bool
	query     string
	docs      []schema.Document
	// texts holds the docs' texts as the retriever spans redacted them. It
	// lines up with docs only when every retrieval redacted its documents.
	texts      []string
	lastAnswer string
}

func captureFrom(ctx context.Context) *capture {
	c, _ := ctx.Value(captureKey{}).(*capture)
	return c
}

// addRetrieval adds what one retrieval returned. texts holds the docs'
// redacted texts, or nil when the retriever did not redact them.
func (c *capture) addRetrieval(q string, docs []schema.Document, texts []string) {
	c.mu.Lock()
	c.retrieved = true
	c.query = q
	c.docs = append(c.docs, docs...)
	// A retrieval that did not redact leaves texts short of docs for good.
	c.texts = append(c.texts, texts...)
	c.mu.Unlock()
}

// redacted returns the docs' redacted texts when every retrieval redacted
// them, else nil. The caller holds c.mu.
func (c *capture) redacted() []string {
	if len(c.texts) != len(c.docs) {
		return nil
	}
	return c.texts
}

func (c *capture) addGeneration(text string) {
	c.mu.Lock()
	c.generated = true
	c.lastAnswer = text
	c.mu.Unlock()
}
