package calibrate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestAUROC(t *testing.T) {
	const tol = 1e-15
	tests := []struct {
		name  string
		score []float64
		y     []bool
		w     []float64
		want  float64
	}{
		// scikit-learn's roc_auc_score documentation example: 0.75.
		{"sklearn doc example", []float64{0.1, 0.4, 0.35, 0.8}, []bool{false, false, true, true}, nil, 0.75},
		{"perfect", []float64{1, 2, 3, 4}, []bool{false, false, true, true}, nil, 1},
		{"reversed", []float64{4, 3, 2, 1}, []bool{false, false, true, true}, nil, 0},
		{"all tied", []float64{0.5, 0.5, 0.5, 0.5}, []bool{false, true, false, true}, nil, 0.5},
		// Pairs by hand: positive 2 beats negative 1 (1) and ties negative 2
		// (½); positive 3 beats both (2). (1 + ½ + 2)/4 = 7/8.
		{"partial tie", []float64{1, 2, 2, 3}, []bool{false, false, true, true}, nil, 0.875},
		// Weights: W₋ = 3, W₊ = 2. Positive 2 beats negative 1 (weight 2: 2)
		// and ties negative 2 (weight 1: ½); positive 3 beats both (3).
		// (2 + ½ + 3)/(2·3) = 11/12.
		{"weighted", []float64{1, 2, 2, 3}, []bool{false, false, true, true}, []float64{2, 1, 1, 1}, 11.0 / 12},
		{"zero weight row ignored", []float64{1, 5, 2, 3}, []bool{false, false, true, true}, []float64{1, 0, 1, 1}, 1},
		{"infinite scores", []float64{math.Inf(-1), math.Inf(1), 0}, []bool{false, true, true}, nil, 1},
	}
	for _, tt := range tests {
		got, err := AUROC(tt.score, tt.y, tt.w)
		if err != nil || !close(got, tt.want, tol) {
			t.Errorf("%s: AUROC(%v, %v, %v) = %v, %v; want %v", tt.name, tt.score, tt.y, tt.w, got, err, tt.want)
		}
	}
}

// pairwiseAUROC is the O(n²) definition, used as a reference.
func pairwiseAUROC(s []float64, y []bool, w []float64) float64 {
	var num, den float64
	for i := range s {
		for j := range s {
			if !y[i] || y[j] {
				continue
			}
			ww := weightAt(w, i) * weightAt(w, j)
			den += ww
			switch {
			case s[i] > s[j]:
				num += ww
			case s[i] == s[j]:
				num += ww / 2
			}
		}
	}
	return num / den
}

func TestAUROCMatchesPairwise(t *testing.T) {
	const tol = 1e-12
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 2 + r.IntN(30)
		s := make([]float64, n)
		y := make([]bool, n)
		w := make([]float64, n)
		for i := range s {
			s[i] = float64(r.IntN(6)) // many ties
			y[i] = r.IntN(2) == 0
			w[i] = r.Float64() * 3
		}
		y[0], y[1] = true, false
		if trial%2 == 0 {
			w = nil
		}
		got, err := AUROC(s, y, w)
		if want := pairwiseAUROC(s, y, w); err != nil || !close(got, want, tol) {
			t.Fatalf("AUROC(%v, %v, %v) = %v, %v; pairwise definition gives %v", s, y, w, got, err, want)
		}
	}
}

func TestAUROCErrors(t *testing.T) {
	tests := []struct {
		name  string
		score []float64
		y     []bool
		w     []float64
		want  error
	}{
		{"empty", nil, nil, nil, ErrEmpty},
		{"no negatives", []float64{1, 2}, []bool{true, true}, nil, ErrOneClass},
		{"no positives", []float64{1, 2}, []bool{false, false}, nil, ErrOneClass},
		{"negatives at weight 0", []float64{1, 2}, []bool{true, false}, []float64{1, 0}, ErrOneClass},
		{"NaN", []float64{1, math.NaN()}, []bool{true, false}, nil, ErrNaN},
		{"negative weight", []float64{1, 2}, []bool{true, false}, []float64{1, -1}, ErrWeight},
	}
	for _, tt := range tests {
		if _, err := AUROC(tt.score, tt.y, tt.w); !errors.Is(err, tt.want) {
			t.Errorf("%s: AUROC error = %v; want %v", tt.name, err, tt.want)
		}
	}
	mustPanic(t, "AUROC(length mismatch)", func() { AUROC([]float64{1}, []bool{true, false}, nil) })
	mustPanic(t, "AUROC(weight length mismatch)", func() { AUROC([]float64{1}, []bool{true}, []float64{}) })
}

func TestAUROCDoesNotMutate(t *testing.T) {
	s := []float64{0.3, 0.1, 0.9, 0.5}
	y := []bool{false, true, true, false}
	s0 := slices.Clone(s)
	if _, err := AUROC(s, y, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s, s0) {
		t.Errorf("AUROC reordered its input: %v; was %v", s, s0)
	}
}

func TestBrier(t *testing.T) {
	const tol = 1e-15
	tests := []struct {
		name string
		p    []float64
		y    []bool
		w    []float64
		want float64
	}{
		// scikit-learn's brier_score_loss documentation example; by hand
		// (0.1² + 0.1² + 0.2² + 0.3²)/4 = 0.15/4 = 0.0375.
		{"sklearn doc example", []float64{0.1, 0.9, 0.8, 0.3}, []bool{false, true, true, false}, nil, 0.0375},
		// (1·0.1² + 3·0.3²)/4 = (0.01 + 0.27)/4 = 0.07.
		{"weighted", []float64{0.1, 0.7}, []bool{false, true}, []float64{1, 3}, 0.07},
		{"perfect", []float64{0, 1}, []bool{false, true}, nil, 0},
		{"worst", []float64{1, 0}, []bool{false, true}, nil, 1},
		{"empty", nil, nil, nil, 0},
		{"zero weight", []float64{0.5}, []bool{true}, []float64{0}, 0},
		{"NaN", []float64{math.NaN()}, []bool{true}, nil, math.NaN()},
	}
	for _, tt := range tests {
		if got := Brier(tt.p, tt.y, tt.w); !close(got, tt.want, tol) {
			t.Errorf("%s: Brier(%v, %v, %v) = %v; want %v", tt.name, tt.p, tt.y, tt.w, got, tt.want)
		}
	}
	mustPanic(t, "Brier(length mismatch)", func() { Brier([]float64{1}, nil, nil) })
}

func TestReliability(t *testing.T) {
	// By hand with 10 buckets: 0.1 lies on an edge and goes to [0.1, 0.2);
	// 1.0 goes to the last bucket [0.9, 1]; 0.05 to [0, 0.1).
	const tol = 1e-15
	p := []float64{0.1, 1.0, 0.05, 0.95, 0.15}
	y := []bool{true, true, false, false, false}
	w := []float64{1, 1, 1, 1, 3}
	bins := Reliability(p, y, w, 10)
	if len(bins) != 10 {
		t.Fatalf("Reliability returned %d bins; want 10", len(bins))
	}
	want := map[int]Bin{
		0: {Lower: 0, Upper: 0.1, Count: 1, Weight: 1, MeanP: 0.05, FracPos: 0},
		// (0.1 + 3·0.15)/4 = 0.1375; 1 true of weight 4.
		1: {Lower: 0.1, Upper: 0.2, Count: 2, Weight: 4, MeanP: 0.1375, FracPos: 0.25},
		9: {Lower: 0.9, Upper: 1, Count: 2, Weight: 2, MeanP: 0.975, FracPos: 0.5},
	}
	for b, got := range bins {
		wb, ok := want[b]
		if !ok {
			wb = Bin{Lower: float64(b) / 10, Upper: float64(b+1) / 10}
		}
		if got.Lower != wb.Lower || got.Upper != wb.Upper || got.Count != wb.Count ||
			!close(got.Weight, wb.Weight, tol) || !close(got.MeanP, wb.MeanP, tol) || !close(got.FracPos, wb.FracPos, tol) {
			t.Errorf("bin %d = %+v; want %+v", b, got, wb)
		}
	}
}

func TestReliabilityEdges(t *testing.T) {
	// Every value b/bins, computed the same way as the reported Lower, must
	// land in bucket b (and 1 in the last bucket), for many bucket counts.
	for bins := 1; bins <= 50; bins++ {
		for b := 0; b <= bins; b++ {
			p := float64(b) / float64(bins)
			want := min(b, bins-1)
			if got := binIndex(p, bins); got != want {
				t.Errorf("binIndex(%v, %d) = %d; want %d", p, bins, got, want)
			}
			if b > 0 {
				below := math.Nextafter(p, 0)
				if got := binIndex(below, bins); got != b-1 {
					t.Errorf("binIndex(%v, %d) = %d; want %d", below, bins, got, b-1)
				}
			}
		}
	}
	// Out of range values are clamped; NaN rows are skipped.
	bins := Reliability([]float64{-0.5, 1.5, math.NaN()}, []bool{false, true, true}, nil, 4)
	if bins[0].Count != 1 || bins[3].Count != 1 || bins[1].Count+bins[2].Count != 0 {
		t.Errorf("Reliability(−0.5, 1.5, NaN) = %+v; want one row each in the first and last bins", bins)
	}
	mustPanic(t, "Reliability(bins=0)", func() { Reliability(nil, nil, nil, 0) })
}

func TestECE(t *testing.T) {
	const tol = 1e-15
	tests := []struct {
		name string
		p    []float64
		y    []bool
		w    []float64
		bins int
		want float64
	}{
		// By hand, 10 buckets: [0,0.1): {0.05 F} → |0 − 0.05| = 0.05;
		// [0.1,0.2): {0.1 T} → 0.9; [0.9,1]: {1.0 T, 0.95 F} →
		// |0.5 − 0.975| = 0.475. (0.05 + 0.9 + 2·0.475)/4 = 0.475.
		{"edges 0.1 and 1.0", []float64{0.1, 1.0, 0.05, 0.95}, []bool{true, true, false, false}, nil, 10, 0.475},
		// Weighted: bucket [0.5,1] holds 0.8 (T, w 3) and 0.6 (F, w 1):
		// MeanP = 3/4·0.8 + 1/4·0.6 = 0.75, FracPos = 0.75 → 0; bucket
		// [0,0.5) holds 0.2 (T, w 1) → |1 − 0.2| = 0.8. 1/5·0.8 = 0.16.
		{"weighted", []float64{0.8, 0.6, 0.2}, []bool{true, false, true}, []float64{3, 1, 1}, 2, 0.16},
		{"perfect", []float64{0, 1}, []bool{false, true}, nil, 5, 0},
		{"empty", nil, nil, nil, 10, 0},
		{"NaN", []float64{0.5, math.NaN()}, []bool{true, true}, nil, 10, math.NaN()},
	}
	for _, tt := range tests {
		if got := ECE(tt.p, tt.y, tt.w, tt.bins); !close(got, tt.want, tol) {
			t.Errorf("%s: ECE(%v, %v, %v, %d) = %v; want %v", tt.name, tt.p, tt.y, tt.w, tt.bins, got, tt.want)
		}
	}
	mustPanic(t, "ECE(bins=0)", func() { ECE(nil, nil, nil, 0) })
	mustPanic(t, "ECE(length mismatch)", func() { ECE([]float64{0.1}, nil, nil, 10) })
}

func ExampleAUROC() {
	score := []float64{0.1, 0.4, 0.35, 0.8}
	y := []bool{false, false, true, true}
	auc, err := AUROC(score, y, nil)
	fmt.Println(auc, err)
	// Output: 0.75 <nil>
}

func ExampleBrier() {
	p := []float64{0.1, 0.9, 0.8, 0.3}
	y := []bool{false, true, true, false}
	fmt.Printf("%.4f\n", Brier(p, y, nil))
	// Output: 0.0375
}

func ExampleReliability() {
	p := []float64{0.05, 0.1, 0.3, 0.35, 0.8, 0.85, 0.95, 1.0}
	y := []bool{false, false, false, true, true, false, true, true}
	for _, b := range Reliability(p, y, nil, 4) {
		fmt.Printf("%.2f–%.2f n=%d meanP=%.3f fracPos=%.3f\n", b.Lower, b.Upper, b.Count, b.MeanP, b.FracPos)
	}
	// Output:
	// 0.00–0.25 n=2 meanP=0.075 fracPos=0.000
	// 0.25–0.50 n=2 meanP=0.325 fracPos=0.500
	// 0.50–0.75 n=0 meanP=0.000 fracPos=0.000
	// 0.75–1.00 n=4 meanP=0.900 fracPos=0.750
}

func ExampleECE() {
	p := []float64{0.1, 1.0, 0.05, 0.95}
	y := []bool{true, true, false, false}
	fmt.Printf("%.3f\n", ECE(p, y, nil, 10))
	// Output: 0.475
}
