package lexical_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// retrievalSamples are question-and-contexts pairs the answer-invariance
// test varies the answer of: a policy question with a relevant chunk, its
// copy (a tie for the best chunk) and irrelevant ones, and a two-hop question
// over titled paragraphs.
var retrievalSamples = []guard.Sample{
	{
		Question: "How many days do customers have to request a refund?",
		Contexts: []guard.Context{
			{ID: "refund", Text: "Refund policy. Customers may request a refund within 30 days of purchase. Refunds are issued to the original payment method."},
			{ID: "shipping", Text: "Shipping. Orders ship within 2 business days. Express delivery costs $12 and arrives in one day."},
			{ID: "warranty", Text: "Warranty. Every kettle carries a two-year warranty that covers defects but not limescale damage."},
			{ID: "refund-copy", Text: "Refund policy. Customers may request a refund within 30 days of purchase. Refunds are issued to the original payment method."},
		},
	},
	{
		Question: "Which government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
		Contexts: []guard.Context{
			{ID: "c1", Text: "Kiss and Tell (film)\nKiss and Tell is a 1945 American comedy film starring then 17-year-old Shirley Temple as Corliss Archer."},
			{ID: "c2", Text: "Shirley Temple\nShirley Temple Black was an American actress, singer, dancer, businesswoman, and diplomat who served as Chief of Protocol of the United States."},
			{ID: "c3", Text: "Janet Waldo\nJanet Waldo was an American radio actress who played Corliss Archer on CBS."},
		},
	},
}

// answerVariants returns the answers the invariance test tries on s: none,
// off-topic, right, a wrong number, a copy of a context, a refusal, an
// attributed claim and a long one.
func answerVariants(s guard.Sample) map[string]string {
	long := strings.Repeat("The store also sells kettles, mugs and filters, and ships them worldwide. ", 40)
	return map[string]string{
		"empty":     "",
		"off-topic": "Our kettles come in blue, red and green.",
		"right":     "Customers have 30 days to request a refund. Shirley Temple served as Chief of Protocol.",
		"number":    "Customers have 90 days to request a refund.",
		"copy":      s.Contexts[len(s.Contexts)-1].Text,
		"refusal":   "The documents don't say.",
		"preamble":  "According to the provided context, refunds are issued to the original payment method.",
		"long":      long,
	}
}

// Chunk relevance and context sufficiency read the question and the
// contexts only (issue 19, item 1): with both fixed, every answer gives
// the same estimates (P, evidence, everything) and the same features, whether
// the judge is asked for the retrieval decisions alone or for all of them
// (the answer's blocks computed first), and whatever sample ran before on
// the pooled analysis.
func TestRetrievalEstimatesIgnoreTheAnswer(t *testing.T) {
	j, err := lexical.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	retrieval := []guard.Decision{guard.ChunkRelevance, guard.ContextSufficiency}
	for si, base := range retrievalSamples {
		var want []string
		wantFrom := ""
		for _, name := range []string{"empty", "off-topic", "right", "number", "copy", "refusal", "preamble", "long"} {
			s := base
			s.Answer = answerVariants(base)[name]
			for _, ds := range [][]guard.Decision{retrieval, guard.Decisions} {
				got := retrievalJSON(t, j, &s, ds)
				if want == nil {
					want, wantFrom = got, name
					continue
				}
				if k := firstDiff(got, want); k >= 0 {
					t.Errorf("sample %d: answer %q (%d decisions asked) moves the retrieval output:\n got %s\nwant %s (answer %q)",
						si, name, len(ds), at(got, k), at(want, k), wantFrom)
				}
			}
		}
	}
}

// retrievalJSON judges s for decisions ds and returns its chunk relevance
// and context sufficiency estimates, then their raw features, one JSON
// text each.
func retrievalJSON(t *testing.T, j *lexical.Judge, s *guard.Sample, ds []guard.Decision) []string {
	t.Helper()
	es, err := j.Judge(context.Background(), guard.Request{Sample: s, Decisions: ds})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	add := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	for _, e := range es {
		if e.Decision == guard.ChunkRelevance || e.Decision == guard.ContextSufficiency {
			add(e)
		}
	}
	f := j.Features(s)
	add(f.ChunkRelevance)
	add(f.ContextSufficiency)
	return out
}

// firstDiff returns the first index where got and want differ, -1 when
// they are equal.
func firstDiff(got, want []string) int {
	for k := range max(len(got), len(want)) {
		if at(got, k) != at(want, k) {
			return k
		}
	}
	return -1
}

func at(s []string, k int) string {
	if k < len(s) {
		return s[k]
	}
	return "(missing)"
}

// The chunk features of a context do not depend on the order of the
// contexts (ties for the best chunk included), and they say what they are
// meant to: on the two-hop sample, the passage the question names leads
// (lead_in_question), and the passage on the woman it names, which shares
// no word with the question, is reached through it (named_by_question_chunk)
// while a passage on someone it does not name is not.
func TestChunkFeaturesOrderAndHops(t *testing.T) {
	j, err := lexical.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	names := lexical.FeatureNames(guard.ChunkRelevance)
	col := func(name string) int {
		for i, n := range names {
			if n == name {
				return i
			}
		}
		t.Fatalf("no chunk feature %q in %v", name, names)
		return -1
	}
	for si, base := range retrievalSamples {
		s := base
		byID := map[string][]float64{}
		for ci, x := range j.Features(&s).ChunkRelevance {
			byID[s.Contexts[ci].ID] = x
		}
		rev := base
		rev.Contexts = nil
		for i := len(base.Contexts) - 1; i >= 0; i-- {
			rev.Contexts = append(rev.Contexts, base.Contexts[i])
		}
		for ci, x := range j.Features(&rev).ChunkRelevance {
			id := rev.Contexts[ci].ID
			if got, want := fmtVec(x), fmtVec(byID[id]); got != want {
				t.Errorf("sample %d, context %s: reversed order gives %s; want %s", si, id, got, want)
			}
		}
	}
	hop := retrievalSamples[1]
	x := j.Features(&hop).ChunkRelevance
	tests := []struct {
		ctx, feature string
		want         float64
	}{
		{"c2", "question_coverage", 0}, // Shirley Temple: no word of the question
		{"c2", "named_by_question_chunk", 1},
		{"c3", "named_by_question_chunk", 0}, // "Waldo" stands in no chunk the question names
		{"c1", "lead_in_question", 1},        // "Kiss and Tell (film)": every word is the question's
	}
	for _, tt := range tests {
		ci := map[string]int{"c1": 0, "c2": 1, "c3": 2}[tt.ctx]
		if got := x[ci][col(tt.feature)]; got != tt.want {
			t.Errorf("%s %s = %v; want %v (vector %s)", tt.ctx, tt.feature, got, tt.want, fmtVec(x[ci]))
		}
	}
}

func fmtVec(x []float64) string {
	b, _ := json.Marshal(x)
	return string(b)
}
