package calibrate

// ClassScore holds the one-vs-rest scores of one class of a multi-class
// decision. A zero denominator gives 0 (precision with no prediction of the
// class, recall with no row of the class, F1 when precision + recall = 0).
type ClassScore struct {
	Support   int     `json:"support"`   // rows whose true class is this one
	Predicted int     `json:"predicted"` // rows predicted as this class
	Correct   int     `json:"correct"`   // rows both
	Precision float64 `json:"precision"` // Correct/Predicted
	Recall    float64 `json:"recall"`    // Correct/Support
	F1        float64 `json:"f1"`        // 2·P·R/(P+R)
}

// Confusion returns the k×k confusion matrix of class indices: m[t][p] counts
// the rows whose true class is t and predicted class p. Both truth and pred
// hold indices in [0, k). Confusion panics if the slices differ in length, if
// k < 1, or if an index is out of range: the caller maps its labels to
// indices.
func Confusion(truth, pred []int, k int) [][]int {
	if len(truth) != len(pred) {
		panic("calibrate: Confusion: slice length mismatch")
	}
	if k < 1 {
		panic("calibrate: Confusion: k < 1")
	}
	m := make([][]int, k)
	cells := make([]int, k*k)
	for t := range m {
		m[t] = cells[t*k : (t+1)*k : (t+1)*k]
	}
	for i, t := range truth {
		p := pred[i]
		if t < 0 || t >= k || p < 0 || p >= k {
			panic("calibrate: Confusion: class index out of range")
		}
		m[t][p]++
	}
	return m
}

// ClassScores returns the precision, recall and F1 of every class of a square
// confusion matrix m (m[t][p] as returned by [Confusion]):
//
//	Precision_c = m[c][c]/Σ_t m[t][c],  Recall_c = m[c][c]/Σ_p m[c][p],
//	F1_c = 2·Precision_c·Recall_c/(Precision_c + Recall_c),
//
// each 0 when its denominator is 0. It panics if m is not square.
func ClassScores(m [][]int) []ClassScore {
	k := len(m)
	out := make([]ClassScore, k)
	for t, row := range m {
		if len(row) != k {
			panic("calibrate: ClassScores: matrix is not square")
		}
		for p, n := range row {
			out[t].Support += n
			out[p].Predicted += n
		}
		out[t].Correct = row[t]
	}
	for c := range out {
		s := &out[c]
		if s.Predicted > 0 {
			s.Precision = float64(s.Correct) / float64(s.Predicted)
		}
		if s.Support > 0 {
			s.Recall = float64(s.Correct) / float64(s.Support)
		}
		if s.Precision+s.Recall > 0 {
			s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
		}
	}
	return out
}
