// Package demo holds what the examples share: a tiny in-memory knowledge
// base with a keyword retriever, a scripted generator LLM (a simulation: it
// returns canned answers, no model runs), and the guard the examples gate
// with — the embedded judges under their shipped, calibrated policy, with
// what they leave uncertain escalated through package cascade to an LLM
// judge (package guard/llmjudge). Offline, that judge's model is
// ScriptedStandInLLM, a scripted stand-in for an LLM (a simulation too).
// No threshold here is tuned to the examples: the embedded judges' come
// from their calibration profile, and FallbackThresholds says where the
// fallback's come from (the CLI's default reading of a fallback judge).
// Nothing here touches the network.
package demo

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"
)

// Docs is the knowledge base.
var Docs = []schema.Document{
	{PageContent: "Paris is the capital and largest city of France.", Metadata: map[string]any{"id": "geo/france"}},
	{PageContent: "Mars has two small moons, Phobos and Deimos.", Metadata: map[string]any{"id": "astro/mars-moons"}},
	{PageContent: "Mars is the fourth planet from the Sun.", Metadata: map[string]any{"id": "astro/mars"}},
	{PageContent: "Customers may request a full refund within 30 days of purchase.", Metadata: map[string]any{"id": "policy/refunds"}},
	{PageContent: "Standard shipping takes 5 to 7 business days. Express shipping costs extra.", Metadata: map[string]any{"id": "policy/shipping"}},
}

// A Case is one question and the answer the scripted LLM gives to it.
type Case struct {
	Name     string // what the guard makes of it: "pass", "fail", "escalate" or "miss"
	Question string
	Answer   string
}

// Cases are four questions and the scripted answers to them. Under
// NewGuard (checked by the tests):
//
//   - "pass": the embedded judges leave it uncertain (no context-sufficiency
//     threshold of theirs is safe enough to use), the fallback judge settles
//     every escalated decision, and it passes (route fallback, allow);
//   - "fail": "90 days" against a context that says 30. The embedded judges
//     see the mismatch but do not fail it on their own (the shipped policy
//     never fails groundedness confidently: no threshold kept its error
//     promise on every labelled source), so it is escalated, and the
//     fallback judge settles it as unsupported: GENERATOR_UNGROUNDED, route
//     fallback, block;
//   - "escalate": the embedded judges leave it uncertain and the fallback
//     cannot settle whether "a few business days" is supported by "5 to 7
//     business days" (its sampled replies disagree): JUDGE_UNCERTAIN, and
//     the fail-closed rule withholds the answer for review;
//   - "miss": the keyword retriever matches the question on a common word
//     ("and") and returns a passage about something else entirely; the
//     generator answers from its own memory. The embedded judges cannot
//     certify a retrieval miss (the shipped profile has no chunk relevance
//     fail side); the fallback finds the passage irrelevant:
//     RETRIEVAL_MISS, route fallback, block.
var Cases = []Case{
	{"pass", "What is the capital of France?", "Paris is the capital of France."},
	{"fail", "How long do I have to ask for a refund?", "You can get a full refund within 90 days of purchase."},
	{"escalate", "How long does standard shipping take?", "Shipping takes a few business days."},
	{"miss", "Who painted the Mona Lisa and where does it hang?", "Leonardo da Vinci painted it; it hangs in the Louvre."},
}

// Retriever returns the K documents sharing the most words with the query
// (at least one; ties in the order of Docs). It is a naive keyword search:
// a common word is enough for a match. Safe for concurrent use.
type Retriever struct{ K int }

// GetRelevantDocuments ranks Docs by shared words.
func (r Retriever) GetRelevantDocuments(ctx context.Context, query string) ([]schema.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k := r.K
	if k <= 0 {
		k = 2
	}
	qw := words(query)
	type scored struct {
		i int
		n int
	}
	var hits []scored
	for i, d := range Docs {
		n := 0
		for w := range words(d.PageContent) {
			if qw[w] {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, scored{i, n})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].n > hits[b].n })
	out := make([]schema.Document, 0, k)
	for _, h := range hits[:min(k, len(hits))] {
		d := Docs[h.i]
		d.Score = float32(h.n) / float32(len(qw))
		out = append(out, d)
	}
	return out, nil
}

var stop = map[string]bool{"the": true, "a": true, "of": true, "is": true, "what": true, "how": true, "do": true, "i": true, "to": true, "does": true, "for": true, "have": true}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if !stop[w] {
			m[w] = true
		}
	}
	return m
}

// ScriptedLLM is the examples' generator, a simulated model: it answers a
// prompt that contains one of the Cases' questions with that case's answer,
// and "I don't know." to anything else. No model runs. Safe for concurrent
// use.
type ScriptedLLM struct {
	mu    sync.Mutex
	calls int
}

var _ llms.Model = (*ScriptedLLM)(nil)

// GenerateContent returns the scripted answer.
func (m *ScriptedLLM) GenerateContent(ctx context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.calls++
	m.mu.Unlock()
	var prompt strings.Builder
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			if t, ok := p.(llms.TextContent); ok {
				prompt.WriteString(t.Text)
			}
		}
	}
	answer := "I don't know."
	for _, c := range Cases {
		if strings.Contains(prompt.String(), c.Question) {
			answer = c.Answer
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: answer, StopReason: "stop"}}}, nil
}

// Call implements the deprecated single-prompt method.
func (m *ScriptedLLM) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// Calls returns how many generations were made.
func (m *ScriptedLLM) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}
