package fit

import (
	"errors"
	"fmt"
	"math"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// L2 is the ridge penalty of every fit, on standardized features.
const L2 = 1.0

// maxIter bounds the iterations of every logistic fit.
const maxIter = 500

// Example is one labelled feature vector of a decision.
type Example struct {
	// X is the decision's feature vector (lexical.Features) and Y its label.
	X []float64
	Y bool
	// Source is the labelled source the example came from: the promise is
	// checked on every source.
	Source int
	// Fold is the cross-validation fold, in [0, Settings.Folds). Examples
	// that must not straddle folds share one.
	Fold int
	// Hard reports lexical.HardEvidence of X.
	Hard bool
	// Weight is the example's weight in the fits; 0 counts as 1.
	Weight float64
	// Synthetic examples shape the models but never choose thresholds.
	Synthetic bool
	// Chunks, when set, makes the example a sample-level check that
	// chooses the fail threshold but is never fitted: its P is the highest
	// out-of-fold P among these chunk feature vectors, predicted by the
	// model of the example's fold. X is then unused. Chunk relevance uses
	// it so that its fail side, which blocks a sample when every chunk is
	// at or below it, answers for the samples it blocks.
	Chunks [][]float64
}

// selectOnly reports whether the example chooses thresholds without
// being fitted.
func (e *Example) selectOnly() bool { return e.Chunks != nil }

// predict is the example's P under model m: the highest chunk P for a
// sample-level check, else m's P of X.
func (e *Example) predict(m calibrate.Logistic) float64 {
	if !e.selectOnly() {
		return m.Predict(e.X)
	}
	best := 0.0
	for _, x := range e.Chunks {
		best = math.Max(best, m.Predict(x))
	}
	return best
}

// Settings are the numbers that shape a fit. The zero value is not useful:
// Alpha, Confidence and Folds must be set.
type Settings struct {
	// Alpha is the largest error rate allowed in each auto-decided region,
	// bounded at Confidence on every source.
	Alpha, Confidence float64
	// Folds is the number of cross-validation folds.
	Folds int
	// Starts are where the fixed sequences begin (see
	// calibrate.FixedSequenceConfig.Starts).
	Starts []float64
	// PredictedStart adds a sequence started where P predicts the most
	// rows to certify (calibrate.FixedSequenceConfig.PredictedStart).
	PredictedStart bool
	// SidesOfHalf keeps each side's regions on its side of P = ½
	// (calibrate.FixedSequenceConfig.SidesOfHalf).
	SidesOfHalf bool
	// SourceCap bounds a source's weight in each fit. A source with n > cap
	// examples in a fit has each weighted cap/n. 0 means no cap.
	SourceCap float64
}

func (st Settings) sequence() calibrate.FixedSequenceConfig {
	return calibrate.FixedSequenceConfig{Alpha: st.Alpha, Confidence: st.Confidence, Starts: st.Starts, PredictedStart: st.PredictedStart, SidesOfHalf: st.SidesOfHalf}
}

// Fitted is one decision fitted by Decision.
type Fitted struct {
	Decision guard.Decision
	// Model is fitted on every example. FoldModels[k] is fitted on every
	// example outside fold k.
	Model      calibrate.Logistic
	FoldModels []calibrate.Logistic
	// OOF is each example's out-of-fold P, before the gates.
	OOF []float64
	// Selection holds the thresholds and gates chosen on OOF.
	Selection lexical.Selection
	// Approximate lists the fits that stopped before converging. Their
	// last iterate is kept: it still has the features' declared signs.
	Approximate []error
}

// Decision fits decision d on exs. It cross-predicts every example with
// the fold models, fits the model on every example and chooses the
// thresholds on the real examples' out-of-fold P (lexical.SelectPolicy).
// Sample-level checks (Example.Chunks) enter the fail side's selection, never a fit.
// With no real example the decision is undecided. Decision returns an
// error when a fold's training examples hold a single class.
func Decision(d guard.Decision, exs []Example, st Settings) (*Fitted, error) {
	if err := checkFolds(exs, st.Folds); err != nil {
		return nil, err
	}
	f := &Fitted{Decision: d, OOF: make([]float64, len(exs))}
	for k := range st.Folds {
		m, err := f.fitModel(exs, func(e *Example) bool { return e.Fold != k }, st)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", k, err)
		}
		f.FoldModels = append(f.FoldModels, m)
		for i := range exs {
			if exs[i].Fold == k {
				f.OOF[i] = exs[i].predict(m)
			}
		}
	}
	m, err := f.fitModel(exs, func(*Example) bool { return true }, st)
	if err != nil {
		return nil, err
	}
	f.Model = m
	sel, err := choose(d, exs, f.OOF, func(*Example) bool { return true }, st)
	if err != nil {
		return nil, err
	}
	f.Selection = sel
	return f, nil
}

// checkFolds refuses folds whose training examples (all the other folds)
// hold a single class.
func checkFolds(exs []Example, k int) error {
	for f := range k {
		tp, tn := 0, 0
		for i := range exs {
			if exs[i].Fold == f || exs[i].selectOnly() {
				continue
			}
			if exs[i].Y {
				tp++
			} else {
				tn++
			}
		}
		if tp == 0 || tn == 0 {
			return fmt.Errorf("the rows outside fold %d hold a single class; add labels of the other class", f)
		}
	}
	return nil
}

// fitModel fits the logistic model on the examples in (sample-level checks
// left out), with the features' declared signs and each source's weight
// capped.
func (f *Fitted) fitModel(exs []Example, in func(*Example) bool, st Settings) (calibrate.Logistic, error) {
	var xs [][]float64
	var ys []bool
	var ws []float64
	count := map[int]float64{}
	weighted := st.SourceCap > 0
	fitted := func(e *Example) bool { return in(e) && !e.selectOnly() }
	for i := range exs {
		if e := &exs[i]; fitted(e) {
			xs, ys = append(xs, e.X), append(ys, e.Y)
			count[e.Source]++
			weighted = weighted || e.Weight != 0
		}
	}
	if len(xs) == 0 {
		return calibrate.Logistic{}, errors.New("no examples")
	}
	if weighted {
		for i := range exs {
			if e := &exs[i]; fitted(e) {
				ws = append(ws, e.weight(st.SourceCap, count[e.Source]))
			}
		}
	}
	cfg := calibrate.LogisticConfig{L2: L2, MaxIter: maxIter, Signs: lexical.FeatureSigns(f.Decision)}
	m, err := calibrate.FitStandardized(xs, ys, ws, cfg)
	if errors.Is(err, calibrate.ErrNotConverged) {
		f.Approximate = append(f.Approximate, fmt.Errorf("%v (%d examples): %w", f.Decision, len(xs), err))
		err = nil
	}
	return m, err
}

// weight is the example's weight in a fit where its source has n examples.
func (e *Example) weight(sourceCap, n float64) float64 {
	w := e.Weight
	if w == 0 {
		w = 1
	}
	if sourceCap > 0 {
		w *= math.Min(1, sourceCap/n)
	}
	return w
}

// choose selects decision d's policy on the real examples in, with the
// out-of-fold P oof. With no real example the decision is undecided.
func choose(d guard.Decision, exs []Example, oof []float64, in func(*Example) bool, st Settings) (lexical.Selection, error) {
	var p []float64
	var y, hard, failOnly []bool
	var src []int
	for i := range exs {
		if e := &exs[i]; in(e) && !e.Synthetic {
			p, y, src, hard = append(p, oof[i]), append(y, e.Y), append(src, e.Source), append(hard, e.Hard)
			failOnly = append(failOnly, e.selectOnly())
		}
	}
	if len(p) == 0 {
		return lexical.Selection{Thresholds: guard.Undecided()}, nil
	}
	return lexical.SelectPolicyWithSamples(d, p, y, src, hard, failOnly, st.sequence())
}

// Gate applies the selection's soft floor and ceiling to a P without hard
// evidence, as the judge built on the profile does.
func (f *Fitted) Gate(p float64, hard bool) float64 {
	return gate(f.Selection, p, hard)
}

func gate(s lexical.Selection, p float64, hard bool) float64 {
	if hard {
		return p
	}
	if s.SoftFloor > 0 && p < s.SoftFloor {
		p = s.SoftFloor
	}
	if s.SoftCeiling > 0 && p > s.SoftCeiling {
		p = s.SoftCeiling
	}
	return p
}

// DecisionModel returns the profile entry of the model fitted on every
// example (fold < 0) or of FoldModels[fold], with the selection's gates.
func (f *Fitted) DecisionModel(fold int) *lexical.DecisionModel {
	m := f.Model
	if fold >= 0 {
		m = f.FoldModels[fold]
	}
	return &lexical.DecisionModel{Features: lexical.FeatureNames(f.Decision), Model: m,
		SoftFloor: f.Selection.SoftFloor, SoftCeiling: f.Selection.SoftCeiling}
}
