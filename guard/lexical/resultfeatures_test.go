package lexical

import (
	"context"
	"reflect"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// TestResultFeaturesEqualFeatures holds the vectors a guard's result
// carries (Result.Features) to what Features returns, the vectors profiles
// are fitted on, on the bundled samples (the golden inputs only under
// -short): one per decision asked, chunk relevance one per context.
func TestResultFeaturesEqualFeatures(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(guard.WithJudge(j))
	if err != nil {
		t.Fatal(err)
	}
	samples := bundledSamples(t)
	if testing.Short() {
		samples = samples[:314]
	}
	for i := range samples {
		s := &samples[i]
		res, err := g.Evaluate(context.Background(), *s)
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		rf := res.Features
		if rf == nil || rf.Version != FeaturesVersion {
			t.Fatalf("%s: Features = %+v; want version %s", s.ID, rf, FeaturesVersion)
		}
		want := j.Features(s)
		n := len(s.Contexts) + 5
		if s.Reference != nil {
			n++
		}
		if len(rf.Vectors) != n {
			t.Fatalf("%s: %d vectors; want %d", s.ID, len(rf.Vectors), n)
		}
		for ci, c := range s.Contexts {
			if got := rf.Vector(guard.ChunkRelevance, c.ID); !reflect.DeepEqual(got, want.ChunkRelevance[ci]) {
				t.Fatalf("%s: chunk %s vector %v; Features says %v", s.ID, c.ID, got, want.ChunkRelevance[ci])
			}
		}
		for d, x := range map[guard.Decision][]float64{guard.ContextSufficiency: want.ContextSufficiency,
			guard.ContextConflict: want.ContextConflict, guard.AnswerRelevance: want.AnswerRelevance,
			guard.Groundedness: want.Groundedness, guard.Contradiction: want.Contradiction, guard.Correctness: want.Correctness} {
			if got := rf.Vector(d, ""); !reflect.DeepEqual(got, x) {
				t.Fatalf("%s: %s vector %v; Features says %v", s.ID, d, got, x)
			}
		}
	}
}

func TestWithoutFeatures(t *testing.T) {
	j, err := New(nil, WithoutFeatures())
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(guard.WithJudge(j))
	if err != nil {
		t.Fatal(err)
	}
	s := bundledSamples(t)[0]
	res, err := g.Evaluate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Features != nil || j.FeaturesVersion() != "" {
		t.Errorf("WithoutFeatures: Features = %+v, FeaturesVersion %q", res.Features, j.FeaturesVersion())
	}
	for _, e := range res.Estimates {
		if e.Features != nil {
			t.Fatalf("estimate %v carries features", e.Decision)
		}
	}
}
