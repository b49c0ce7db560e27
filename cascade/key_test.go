package cascade_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// A decision's cache key covers exactly what its question shows: HaluEval's
// right and hallucinated answers to one question over the same contexts
// share chunk relevance, sufficiency and conflict (whose prompts never show
// the answer), and nothing that does look at the answer.
func TestKeysCoverWhatThePromptShows(t *testing.T) {
	ref := "Arthur's Magazine"
	right := &guard.Sample{
		ID:       "halueval-qa-0-right",
		Question: "Which magazine was started first Arthur's Magazine or First for Women?",
		Contexts: []guard.Context{
			{ID: "c1", Text: "Arthur's Magazine (1844–1846) was an American literary periodical published in Philadelphia in the 19th century."},
			{ID: "c2", Text: "First for Women is a woman's magazine published by Bauer Media Group in the USA."},
		},
		Answer:    "Arthur's Magazine",
		Reference: &ref,
	}
	all := []guard.Decision{guard.ChunkRelevance, guard.ContextSufficiency, guard.ContextConflict, guard.AnswerRelevance,
		guard.Groundedness, guard.Contradiction, guard.Correctness}
	f := &fake{P: 0.9}
	c := newCascade(t, f)
	ctx := context.Background()
	mustEscalate(t, c, ctx, escalation(right, all...))
	if n := len(f.Requests()); n != 1 {
		t.Fatalf("first escalation made %d fallback calls; want 1", n)
	}

	hallucinated := *right
	hallucinated.ID = "halueval-qa-0-hallucinated"
	hallucinated.Answer = "First for Women was started first."
	out := mustEscalate(t, c, ctx, escalation(&hallucinated, all...))
	st := c.Stats()
	// 2 chunks + sufficiency + conflict from the cache; answer relevance,
	// groundedness, contradiction and correctness asked again.
	if st.CacheHits != 4 || st.CacheMisses != 8+4 {
		t.Errorf("after the pair: %d hits, %d misses; want 4, 12", st.CacheHits, st.CacheMisses)
	}
	reqs := f.Requests()
	if len(reqs) != 2 {
		t.Fatalf("fallback calls = %d; want 2", len(reqs))
	}
	got := reqs[1].Decisions
	want := []guard.Decision{guard.AnswerRelevance, guard.Groundedness, guard.Contradiction, guard.Correctness}
	if !slices.Equal(got, want) {
		t.Errorf("second call asked %v; want %v (the decisions that look at the answer)", got, want)
	}
	for _, e := range out {
		if e.Abstained {
			t.Errorf("%v/%s abstained: %s", e.Decision, e.ContextID, e.Reason)
		}
	}

	// Another reference: only correctness shows it.
	other := "First for Women"
	third := *right
	third.Reference = &other
	mustEscalate(t, c, ctx, escalation(&third, all...))
	if got := f.Requests()[2].Decisions; !slices.Equal(got, []guard.Decision{guard.Correctness}) {
		t.Errorf("after a reference change the fallback was asked %v; want [correctness]", got)
	}

	// One chunk's text changes: that chunk and the set-level decisions over
	// every context miss; the other chunk and answer relevance hit.
	fourth := *right
	fourth.Contexts = []guard.Context{right.Contexts[0], {ID: "c2", Text: "First for Women started in 1989."}}
	before := c.Stats()
	mustEscalate(t, c, ctx, escalation(&fourth, all...))
	after := c.Stats()
	if hits := after.CacheHits - before.CacheHits; hits != 3 { // c1, answer relevance, correctness
		t.Errorf("after a chunk change: %d hits; want 3 (chunk c1, answer relevance, correctness)", hits)
	}
	checkStats(t, after)
}

func TestInputs(t *testing.T) {
	cases := []struct {
		d    guard.Decision
		want cascade.Input
	}{
		{guard.ChunkRelevance, cascade.InputQuestion | cascade.InputChunk},
		{guard.ContextSufficiency, cascade.InputQuestion | cascade.InputContexts},
		{guard.ContextConflict, cascade.InputQuestion | cascade.InputContexts},
		{guard.AnswerRelevance, cascade.InputQuestion | cascade.InputAnswer},
		{guard.Groundedness, cascade.InputQuestion | cascade.InputContexts | cascade.InputAnswer},
		{guard.Contradiction, cascade.InputQuestion | cascade.InputContexts | cascade.InputAnswer},
		{guard.Correctness, cascade.InputQuestion | cascade.InputReference | cascade.InputAnswer},
	}
	for _, c := range cases {
		if got := cascade.Inputs(c.d); got != c.want {
			t.Errorf("Inputs(%v) = %b; want %b", c.d, got, c.want)
		}
	}
}
