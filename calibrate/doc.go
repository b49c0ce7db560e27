// Package calibrate turns raw judge scores into calibrated probabilities and
// picks auto-pass / auto-fail thresholds with an exact bound on their error
// rate.
//
// It is written in the style of gonum/stat: pure functions over parallel
// slices, each documented with its formula.
//
//   - Calibrators: [FitLogistic] (multivariate, optional ridge penalty),
//     [FitPlatt] (Platt scaling of one score) and [FitIsotonic]
//     (pool-adjacent-violators). Each returns a small value type whose
//     Predict method does not allocate.
//   - Metrics: [AUROC], [Brier], [Reliability] and [ECE].
//   - Bounds: [ClopperPearsonUpper] and [ClopperPearsonLower], exact binomial
//     confidence bounds computed with a built-in regularized incomplete beta.
//   - Thresholds: [SelectFixedSequence] chooses a two-sided
//     [FixedSelection] by fixed-sequence testing from the most conservative
//     threshold, so that the Clopper–Pearson bound on each region's error
//     holds after the selection, pooled and in every labelled group (the
//     judges' profiles are chosen with it). [SelectThresholds] keeps the
//     widest region whose own bound holds — a bound for a fixed threshold,
//     not for the one selected. [SweepTwoSided] tabulates coverage and
//     errors for given pairs.
//   - Fits with a known direction: [LogisticConfig.Signs] constrains the
//     sign of each weight.
//   - Cross-validation: [StratifiedFolds].
//
// # Conventions
//
// Labels are []bool (true = the positive class, "pass"). Weights are an
// optional []float64 parallel to the data; nil means every weight is 1, and
// integer weights behave like repeated rows. Functions never modify their
// inputs.
//
// A length mismatch between parallel slices, and other misuse that no data
// can cause (bins < 1, k > n, a confidence outside (0, 1) in the
// Clopper–Pearson functions), is a programmer error and panics with a message
// prefixed "calibrate: ". Problems with the data itself — empty input, a
// single class, NaN values, negative weights — are returned as an [*Error]
// wrapping one of the sentinels ([ErrEmpty], [ErrOneClass], [ErrNaN], …);
// use errors.Is. Metrics that return a bare float64 document what they do
// with such data instead (for example, [Brier] of empty input is 0).
//
// # Concurrency
//
// Every function is safe for concurrent use. The fitted types ([Logistic],
// [Platt], [Isotonic], [Selection]) are plain values with no hidden state:
// their methods may be called from any number of goroutines as long as no one
// modifies the value.
//
// # Cost
//
// Predict on [Logistic], [Platt] and [Isotonic], and [Selection.Band], make
// no allocations; they take about 10–20 ns on a current x86 server.
// [FitLogistic] costs O(n·d²) per Newton iteration (about 7 ms for 10 000
// rows and 3 features). [AUROC], [FitIsotonic], [SelectThresholds] and
// [SweepTwoSided] sort a copy of the index, O(n log n). A
// [ClopperPearsonUpper] call takes about 15 µs.
//
// # Usage
//
//	platt, err := calibrate.FitPlatt(scores, labels, nil)
//	if err != nil { … }
//	p := make([]float64, len(scores))
//	for i, s := range scores {
//		p[i] = platt.Predict(s)
//	}
//	sel, err := calibrate.SelectThresholds(p, labels, 0.05, 0.95)
//	if err != nil { … }
//	switch sel.Band(platt.Predict(newScore)) {
//	case calibrate.BandPass: …
//	case calibrate.BandFail: …
//	default: // escalate
//	}
package calibrate
