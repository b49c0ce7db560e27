package guardtest

import (
	"fmt"
	"maps"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
)

// namedSample is one of the built-in samples TestJudge judges.
type namedSample struct {
	name string
	s    guard.Sample
}

// samples returns fresh copies of the built-in samples. Every one is valid
// under guard.DefaultLimits.
func samples() []namedSample {
	refund := refundContexts()
	return append(contextVariants(refund), edgeCases(refund)...)
}

// refundContexts are three contexts of a shop's help pages, one with a
// retrieval score and one with metadata.
func refundContexts() []guard.Context {
	score := 0.91
	return []guard.Context{
		{ID: "policy#1", Text: "Refunds are processed within 5 business days of the return being received.", Score: &score},
		{ID: "policy#2", Text: "Items bought on sale are not refundable, but they can be exchanged within 30 days."},
		{ID: "faq#7", Text: "Our support line is open from 9:00 to 17:00, Monday to Friday.", Metadata: map[string]any{"source": "faq"}},
	}
}

// manyContexts are twelve short contexts, one with a non-ASCII ID and two
// with the same text.
func manyContexts() []guard.Context {
	many := make([]guard.Context, 12)
	for i := range many {
		many[i] = guard.Context{ID: fmt.Sprintf("chunk-%02d", i), Text: fmt.Sprintf("Shipping to zone %d takes %d days.", i%4, 2+i%3)}
	}
	many[11].ID = "chunk-ñ-11" // non-ASCII ID
	many[10].Text = many[9].Text
	return many
}

// contextVariants are ordinary samples with several, one, no and many
// contexts, with and without a reference.
func contextVariants(refund []guard.Context) []namedSample {
	return []namedSample{
		{"contexts", guard.Sample{
			ID:       "s-contexts",
			Question: "How long do refunds take?",
			Contexts: refund,
			Answer:   "Refunds are processed within 5 business days.",
			Metadata: map[string]any{"tenant": "acme"},
		}},
		{"contexts+reference", guard.Sample{
			ID:        "s-contexts-ref",
			Question:  "Can I get a refund for a sale item?",
			Contexts:  refund,
			Answer:    "Yes, sale items are refundable within 5 days.",
			Reference: guard.Ref("No. Sale items are not refundable; they can only be exchanged within 30 days."),
		}},
		{"one-context", guard.Sample{
			Question: "When is support open?",
			Contexts: refund[2:],
			Answer:   "Support is open from 9 to 5 on weekdays.",
		}},
		{"no-contexts", guard.Sample{
			Question: "What is the capital of Australia?",
			Answer:   "Canberra.",
		}},
		{"no-contexts+reference", guard.Sample{
			Question:  "What is the capital of Australia?",
			Answer:    "Sydney.",
			Reference: guard.Ref("Canberra"),
		}},
		{"many-contexts", guard.Sample{
			Question: "How long does shipping to zone 2 take?",
			Contexts: manyContexts(),
			Answer:   "Shipping to zone 2 takes 4 days.",
		}},
	}
}

// edgeCases are samples with Unicode text, empty fields and a long context.
func edgeCases(refund []guard.Context) []namedSample {
	return []namedSample{
		{"unicode", guard.Sample{
			Question: "Combien coûte l'abonnement « Pro » ? 料金はいくらですか？",
			Contexts: []guard.Context{
				{ID: "fr", Text: "L’abonnement « Pro » coûte 20 € par mois — TVA incluse. ✅"},
				{ID: "ja", Text: "プロプランの料金は月額20ユーロです。"},
				{ID: "ar", Text: "تكلفة الاشتراك ٢٠ يورو شهريًا."},
				{ID: "combining", Text: "Cafe\u0301 prices: 3\u00a0€ \U0001F9CB; zero\u200bwidth and e\u0301\u0301 marks."},
			},
			Answer:    "Il coûte 20 € par mois (月額20ユーロ). 🎉",
			Reference: guard.Ref("20 € / mois"),
		}},
		{"empty-answer", guard.Sample{
			Question: "How long do refunds take?",
			Contexts: refund[:1],
			Answer:   "",
		}},
		{"empty-reference", guard.Sample{
			Question:  "How long do refunds take?",
			Contexts:  refund[:2],
			Answer:    "Five business days.",
			Reference: guard.Ref(""),
		}},
		{"empty-texts", guard.Sample{
			Contexts: []guard.Context{{ID: "empty"}},
		}},
		{"long", guard.Sample{
			Question: "Is the warranty transferable?",
			Contexts: []guard.Context{
				{ID: "long", Text: strings.Repeat("The warranty covers manufacturing defects for two years. ", 600) + "The warranty is not transferable."},
				{ID: "short", Text: "Warranty claims need the original receipt."},
			},
			Answer: "No, the warranty is not transferable.\n\nIt covers manufacturing defects for two years.",
		}},
	}
}

// allDecisions returns the decisions the guard asks about s: all seven with
// a reference, all but correctness without.
func allDecisions(s *guard.Sample) []guard.Decision {
	out := make([]guard.Decision, 0, len(guard.Decisions))
	for _, d := range guard.Decisions {
		if d == guard.Correctness && !s.HasReference() {
			continue
		}
		out = append(out, d)
	}
	return out
}

// request builds the request the guard would send for s and ds.
func request(s *guard.Sample, ds []guard.Decision) guard.Request {
	return guard.Request{Sample: s, Decisions: ds}
}

// subsets are the partial requests TestJudge makes, for a sample: each
// decision alone and a few pairs.
func subsets(s *guard.Sample) [][]guard.Decision {
	var out [][]guard.Decision
	for _, d := range allDecisions(s) {
		out = append(out, []guard.Decision{d})
	}
	out = append(out,
		[]guard.Decision{guard.Groundedness, guard.Contradiction},
		[]guard.Decision{guard.ContextConflict, guard.ChunkRelevance},
		[]guard.Decision{guard.AnswerRelevance, guard.ContextSufficiency},
	)
	return out
}

// cloneSample returns a copy of s that shares nothing a judge could modify
// through s (metadata maps are copied one level deep).
func cloneSample(s *guard.Sample) guard.Sample {
	c := *s
	if s.Reference != nil {
		c.Reference = guard.Ref(*s.Reference)
	}
	c.Metadata = maps.Clone(s.Metadata)
	if s.Contexts != nil {
		c.Contexts = make([]guard.Context, len(s.Contexts))
		for i, x := range s.Contexts {
			if x.Score != nil {
				v := *x.Score
				x.Score = &v
			}
			x.Metadata = maps.Clone(x.Metadata)
			c.Contexts[i] = x
		}
	}
	return c
}
