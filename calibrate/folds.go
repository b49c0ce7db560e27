package calibrate

import "math/rand/v2"

// StratifiedFolds assigns each row to one of k folds (0 … k−1), stratified
// by class: the rows of each class are shuffled and dealt round-robin, the
// negatives continuing where the positives stopped, so every fold's size and
// its count of each class differ from any other fold's by at most one.
//
// The assignment is deterministic for a given seed: it uses math/rand/v2's
// Shuffle with rand.NewPCG(seed, 0), whose output is stable across Go
// releases. StratifiedFolds panics if k < 1. y is not modified.
func StratifiedFolds(y []bool, k int, seed uint64) []int {
	if k < 1 {
		panic("calibrate: StratifiedFolds: k < 1")
	}
	var pos, neg []int
	for i, yi := range y {
		if yi {
			pos = append(pos, i)
		} else {
			neg = append(neg, i)
		}
	}
	r := rand.New(rand.NewPCG(seed, 0))
	r.Shuffle(len(pos), func(i, j int) { pos[i], pos[j] = pos[j], pos[i] })
	r.Shuffle(len(neg), func(i, j int) { neg[i], neg[j] = neg[j], neg[i] })
	folds := make([]int, len(y))
	for i, row := range pos {
		folds[row] = i % k
	}
	for j, row := range neg {
		folds[row] = (len(pos) + j) % k
	}
	return folds
}
