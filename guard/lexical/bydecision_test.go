package lexical

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// bundledSamples reads every sample bundled with the module: the golden
// inputs (testdata) and the development rows (../../data/dev).
func bundledSamples(t testing.TB) []guard.Sample {
	t.Helper()
	names := []string{"testdata/golden-rows.jsonl", "testdata/golden-planted.jsonl"}
	dev, err := filepath.Glob("../../data/dev/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(dev) == 0 {
		t.Fatal("no development rows in ../../data/dev")
	}
	var out []guard.Sample
	for _, name := range append(names, dev...) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var s guard.Sample
			if err := json.Unmarshal(line, &s); err != nil {
				t.Fatalf("%s:%d: %v", name, i+1, err)
			}
			out = append(out, s)
		}
	}
	return out
}

// block is the feature vector of decision d in f, chunk vectors joined.
func block(f *featureSet, d guard.Decision) []float64 {
	switch d {
	case guard.ChunkRelevance:
		var x []float64
		for _, c := range f.chunks {
			x = append(x, c...)
		}
		return x
	case guard.ContextSufficiency:
		return slices.Clone(f.suff)
	case guard.ContextConflict:
		return slices.Clone(f.conflict)
	case guard.AnswerRelevance:
		return slices.Clone(f.relev)
	case guard.Groundedness:
		return slices.Clone(f.ground[:])
	case guard.Contradiction:
		return slices.Clone(f.contra)
	case guard.Correctness:
		return slices.Clone(f.correct)
	}
	return nil
}

// blockEvidence is what the evidence of decision d reads from f besides
// its vector.
func blockEvidence(f *featureSet, d guard.Decision) any {
	switch decisionPart[d] {
	case partGround:
		return [5]any{slices.Clone(f.sents), slices.Clone(f.mismatches), slices.Clone(f.flips), slices.Clone(f.absent), slices.Clone(f.swapped)}
	case partSuff:
		return slices.Clone(f.missingQ)
	case partConflict:
		return slices.Clone(f.conflicts)
	case partRelev:
		return f.ansWin
	}
	return nil
}

func sameBits(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// TestFeaturesByDecision holds the features computed for one decision to
// those of the full computation, bit for bit, on every bundled sample; it
// checks that no other decision's block is computed, and that the judge's
// estimates for that decision alone equal those of a request for all.
func TestFeaturesByDecision(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	samples := bundledSamples(t)
	if testing.Short() {
		samples = samples[:314] // the golden inputs
	}
	ctx := context.Background()
	full, sub := new(analysis), new(analysis)
	for i := range samples {
		s := &samples[i]
		loadSample(full, s, j.vocab)
		extract(full, j.vocab, &full.feat)
		all, err := j.Judge(ctx, guard.Request{Sample: s, Decisions: guard.Decisions})
		if err != nil {
			t.Fatalf("%s: Judge: %v", s.ID, err)
		}
		for _, d := range guard.Decisions {
			loadSample(sub, s, j.vocab)
			prepare(sub, &sub.feat)
			sub.feat.need(sub, j.vocab, decisionPart[d])
			if want := decisionPart[d]; sub.feat.done&^partQWin != want {
				t.Fatalf("%s: %s computed blocks %b; want %b", s.ID, d, sub.feat.done, want)
			}
			if got, want := block(&sub.feat, d), block(&full.feat, d); !sameBits(got, want) {
				t.Fatalf("%s: %s features alone = %v; with every decision %v", s.ID, d, got, want)
			}
			if got, want := blockEvidence(&sub.feat, d), blockEvidence(&full.feat, d); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %s evidence inputs alone = %+v; with every decision %+v", s.ID, d, got, want)
			}
			for _, other := range guard.Decisions {
				if decisionPart[other] != decisionPart[d] && len(block(&sub.feat, other)) > 0 && !allZero(block(&sub.feat, other)) {
					t.Fatalf("%s: a request for %s computed %s features", s.ID, d, other)
				}
			}
			one, err := j.Judge(ctx, guard.Request{Sample: s, Decisions: []guard.Decision{d}})
			if err != nil {
				t.Fatalf("%s: Judge(%s): %v", s.ID, d, err)
			}
			if want := estimatesOf(all, d); (len(one) > 0 || len(want) > 0) && !reflect.DeepEqual(one, want) {
				t.Fatalf("%s: Judge(%s) = %+v; from a request for all %+v", s.ID, d, one, want)
			}
		}
	}
	t.Logf("%d samples, %d decisions each", len(samples), len(guard.Decisions))
}

func allZero(x []float64) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}

func estimatesOf(es []guard.Estimate, d guard.Decision) []guard.Estimate {
	var out []guard.Estimate
	for _, e := range es {
		if e.Decision == d {
			out = append(out, e)
		}
	}
	return out
}
