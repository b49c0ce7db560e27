package calibrate

import (
	"fmt"
	"slices"
	"testing"
)

func TestStratifiedFolds(t *testing.T) {
	for _, tt := range []struct{ nPos, nNeg, k int }{
		{10, 10, 5}, {3, 17, 4}, {0, 7, 3}, {7, 0, 3}, {2, 1, 5}, {100, 900, 10}, {0, 0, 2}, {5, 5, 1},
	} {
		y := make([]bool, 0, tt.nPos+tt.nNeg)
		for i := range tt.nPos + tt.nNeg {
			y = append(y, i%(tt.nNeg+tt.nPos) < tt.nPos)
		}
		slices.Reverse(y)
		y0 := slices.Clone(y)
		folds := StratifiedFolds(y, tt.k, 7)
		if !slices.Equal(y, y0) {
			t.Fatalf("StratifiedFolds modified y")
		}
		if len(folds) != len(y) {
			t.Fatalf("StratifiedFolds returned %d folds for %d rows", len(folds), len(y))
		}
		size := make([]int, tt.k)
		pos := make([]int, tt.k)
		for i, f := range folds {
			if f < 0 || f >= tt.k {
				t.Fatalf("row %d in fold %d; want [0, %d)", i, f, tt.k)
			}
			size[f]++
			if y[i] {
				pos[f]++
			}
		}
		spread := func(v []int) int { return slices.Max(v) - slices.Min(v) }
		neg := make([]int, tt.k)
		for f := range neg {
			neg[f] = size[f] - pos[f]
		}
		if spread(size) > 1 || spread(pos) > 1 || spread(neg) > 1 {
			t.Errorf("%+v: fold sizes %v, positives %v, negatives %v; want each within 1", tt, size, pos, neg)
		}
	}
}

func TestStratifiedFoldsDeterministic(t *testing.T) {
	y := make([]bool, 200)
	for i := range y {
		y[i] = i%3 == 0
	}
	a, b := StratifiedFolds(y, 5, 42), StratifiedFolds(y, 5, 42)
	if !slices.Equal(a, b) {
		t.Error("StratifiedFolds(seed 42) differs between calls")
	}
	if c := StratifiedFolds(y, 5, 43); slices.Equal(a, c) {
		t.Error("StratifiedFolds(seed 42) == StratifiedFolds(seed 43); want a different shuffle")
	}
	mustPanic(t, "StratifiedFolds(k=0)", func() { StratifiedFolds(y, 0, 1) })
}

func ExampleStratifiedFolds() {
	y := []bool{true, true, true, true, false, false, false, false, false, false}
	folds := StratifiedFolds(y, 2, 1)
	var pos, neg [2]int
	for i, f := range folds {
		if y[i] {
			pos[f]++
		} else {
			neg[f]++
		}
	}
	fmt.Println("positives per fold:", pos, "negatives per fold:", neg)
	// Output: positives per fold: [2 2] negatives per fold: [3 3]
}
