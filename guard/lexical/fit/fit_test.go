package fit

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

var testSettings = Settings{Alpha: 0.1, Confidence: 0.9, Folds: 3, Starts: []float64{0, 0.1}}

// synthetic returns n examples of decision d from two sources: the first
// feature that has a declared direction separates the classes (with
// noise), the others are noise. Folds cycle over testSettings.Folds.
func synthetic(d guard.Decision, n int, seed uint64) []Example {
	rng := rand.New(rand.NewPCG(seed, 7))
	signs := lexical.FeatureSigns(d)
	lead := 0
	for j, s := range signs {
		if s != 0 {
			lead = j
			break
		}
	}
	sign := float64(signs[lead])
	if sign == 0 {
		sign = 1
	}
	exs := make([]Example, n)
	for i := range exs {
		y := rng.Float64() < 0.5
		x := make([]float64, len(signs))
		for j := range x {
			x[j] = rng.Float64()
		}
		x[lead] = rng.NormFloat64() * 0.7
		if y {
			x[lead] += 1.5 * sign
		} else {
			x[lead] -= 1.5 * sign
		}
		exs[i] = Example{X: x, Y: y, Source: i % 2, Fold: i % testSettings.Folds, Hard: lexical.HardEvidence(d, x)}
	}
	return exs
}

func logisticConfig(d guard.Decision) calibrate.LogisticConfig {
	return calibrate.LogisticConfig{L2: L2, MaxIter: maxIter, Signs: lexical.FeatureSigns(d)}
}

func columns(exs []Example, in func(*Example) bool) (x [][]float64, y []bool) {
	for i := range exs {
		if in(&exs[i]) {
			x, y = append(x, exs[i].X), append(y, exs[i].Y)
		}
	}
	return x, y
}

// Decision's models are calibrate.FitStandardized on the examples each
// one may see, and every out-of-fold P comes from the model of its fold.
func TestDecisionModelsAndOutOfFold(t *testing.T) {
	d := guard.ChunkRelevance
	exs := synthetic(d, 240, 1)
	f, err := Decision(d, exs, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	x, y := columns(exs, func(*Example) bool { return true })
	want, err := calibrate.FitStandardized(x, y, nil, logisticConfig(d))
	if err != nil && !errors.Is(err, calibrate.ErrNotConverged) {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Model, want) {
		t.Errorf("Model = %+v; want FitStandardized on every example, %+v", f.Model, want)
	}
	if len(f.FoldModels) != testSettings.Folds {
		t.Fatalf("%d fold models; want %d", len(f.FoldModels), testSettings.Folds)
	}
	for k, m := range f.FoldModels {
		x, y := columns(exs, func(e *Example) bool { return e.Fold != k })
		want, _ := calibrate.FitStandardized(x, y, nil, logisticConfig(d))
		if !reflect.DeepEqual(m, want) {
			t.Errorf("FoldModels[%d] is not the fit on the examples outside fold %d", k, k)
		}
	}
	for i, e := range exs {
		if want := f.FoldModels[e.Fold].Predict(e.X); f.OOF[i] != want {
			t.Errorf("OOF[%d] = %v; want FoldModels[%d].Predict = %v", i, f.OOF[i], e.Fold, want)
		}
	}
	// Cross-validated predictions are what calibrate.CrossValPredict gives.
	folds := make([]int, len(exs))
	for i, e := range exs {
		folds[i] = e.Fold
	}
	cv, err := calibrate.CrossValPredict(x, y, nil, folds, testSettings.Folds, logisticConfig(d))
	if err != nil && !errors.Is(err, calibrate.ErrNotConverged) {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cv, f.OOF) {
		t.Errorf("OOF differs from calibrate.CrossValPredict")
	}
	// The labels separate: the fit ranks them well.
	if q, err := Quality(f.OOF, y); err != nil || q.AUROC < 0.9 {
		t.Errorf("Quality = %+v, %v; want AUROC ≥ 0.9", q, err)
	}
}

// The thresholds are lexical.SelectPolicy on the real examples' OOF:
// synthetic examples shape the model, not the thresholds.
func TestDecisionSyntheticNeverChoosesThresholds(t *testing.T) {
	d := guard.ChunkRelevance
	exs := synthetic(d, 300, 2)
	for i := range exs {
		if i%3 == 0 {
			exs[i].Synthetic = true
			exs[i].Y = !exs[i].Y // would spoil any region they took part in
		}
	}
	f, err := Decision(d, exs, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	var p []float64
	var y, hard []bool
	var src []int
	for i, e := range exs {
		if !e.Synthetic {
			p, y, src, hard = append(p, f.OOF[i]), append(y, e.Y), append(src, e.Source), append(hard, e.Hard)
		}
	}
	want, err := lexical.SelectPolicy(d, p, y, src, hard, testSettings.sequence())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Selection, want) {
		t.Errorf("Selection = %+v; want SelectPolicy on the real examples, %+v", f.Selection, want)
	}

	for i := range exs {
		exs[i].Synthetic = true
	}
	f, err = Decision(d, exs, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Selection.Thresholds.IsUndecided() {
		t.Errorf("no real example: thresholds %+v; want undecided", f.Selection.Thresholds)
	}
}

// A weight of 0 counts as 1, and SourceCap weighs a large source down to
// cap/n per example.
func TestDecisionWeights(t *testing.T) {
	d := guard.ChunkRelevance
	exs := synthetic(d, 200, 3)
	plain, err := Decision(d, exs, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	ones := append([]Example(nil), exs...)
	for i := range ones {
		ones[i].Weight = 1
	}
	f, err := Decision(d, ones, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Model, plain.Model) || !reflect.DeepEqual(f.OOF, plain.OOF) {
		t.Errorf("weights of 1 fit differently from weights of 0")
	}

	// Source 0 holds 150 examples, source 1 holds 50; a cap of 50 weighs
	// source 0's examples 1/3 each (and 0.5 × 1/3 with Weight 0.5).
	for i := range exs {
		exs[i].Source = 1
		if i < 150 {
			exs[i].Source = 0
		}
		if i%4 == 0 {
			exs[i].Weight = 0.5
		}
	}
	st := testSettings
	st.SourceCap = 50
	f, err = Decision(d, exs, st)
	if err != nil {
		t.Fatal(err)
	}
	x, y := columns(exs, func(*Example) bool { return true })
	w := make([]float64, len(exs))
	for i, e := range exs {
		w[i] = 1
		if e.Weight != 0 {
			w[i] = e.Weight
		}
		if e.Source == 0 {
			w[i] *= 50.0 / 150
		}
	}
	want, _ := calibrate.FitStandardized(x, y, w, logisticConfig(d))
	if !reflect.DeepEqual(f.Model, want) {
		t.Errorf("capped Model = %+v; want %+v", f.Model, want)
	}
}

// A fold whose training examples hold one class is refused, naming it.
func TestDecisionRefusesSingleClassFold(t *testing.T) {
	d := guard.ChunkRelevance
	exs := synthetic(d, 60, 4)
	for i := range exs {
		exs[i].Y = exs[i].Fold == 2 // every positive in fold 2
	}
	_, err := Decision(d, exs, testSettings)
	if err == nil || !strings.Contains(err.Error(), "outside fold 2 hold a single class") {
		t.Fatalf("Decision = %v; want the single-class fold 2 named", err)
	}
}

func TestGate(t *testing.T) {
	f := &Fitted{Selection: lexical.Selection{SoftFloor: 0.2, SoftCeiling: 0.8}}
	for _, c := range []struct {
		p    float64
		hard bool
		want float64
	}{
		{0.1, false, 0.2}, {0.5, false, 0.5}, {0.9, false, 0.8},
		{0.1, true, 0.1}, {0.9, true, 0.9},
	} {
		if got := f.Gate(c.p, c.hard); got != c.want {
			t.Errorf("Gate(%v, hard %v) = %v; want %v", c.p, c.hard, got, c.want)
		}
	}
	none := &Fitted{}
	if got := none.Gate(0.01, false); got != 0.01 {
		t.Errorf("no gates: Gate(0.01) = %v; want 0.01", got)
	}
}

// The held-out check counts every real example once, with thresholds
// chosen without its fold; its rates follow from its counts.
func TestCheckHeldOut(t *testing.T) {
	d := guard.ChunkRelevance
	exs := synthetic(d, 300, 5)
	exs[0].Synthetic = true
	f, err := Decision(d, exs, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	h, err := CheckHeldOut(f, exs, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	var want HeldOut
	for k := range testSettings.Folds {
		s, err := choose(d, exs, f.OOF, func(e *Example) bool { return e.Fold != k }, testSettings)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range exs {
			if e.Fold == k && !e.Synthetic {
				want.count(s.Thresholds.Verdict(gate(s, f.OOF[i], e.Hard)), e.Y)
			}
		}
	}
	want.Coverage = float64(want.AutoPass+want.AutoFail) / float64(want.N)
	if dec := want.AutoPass + want.AutoFail; dec > 0 {
		want.ErrorRate = float64(want.AutoPassErrors+want.AutoFailErrors) / float64(dec)
	}
	if h != want {
		t.Errorf("CheckHeldOut = %+v; want %+v", h, want)
	}
	if h.N != len(exs)-1 {
		t.Errorf("N = %d; want %d (every real example)", h.N, len(exs)-1)
	}
	if h.AutoPass+h.AutoFail == 0 {
		t.Errorf("nothing auto-decided on separable data: %+v", h)
	}
}

// Quality on a hand-computed case: p = (0.2, 0.8), y = (false, true) gives
// Brier ((0.2)² + (0.2)²)/2 = 0.04 and AUROC 1.
func TestQuality(t *testing.T) {
	const tol = 1e-12
	q, err := Quality([]float64{0.2, 0.8}, []bool{false, true})
	if err != nil || q.N != 2 || math.Abs(q.Brier-0.04) > tol || q.AUROC != 1 {
		t.Errorf("Quality = %+v, %v; want N 2, Brier 0.04, AUROC 1", q, err)
	}
	q, err = Quality([]float64{0.2, 0.8}, []bool{true, true})
	if err == nil || q.AUROC != -1 {
		t.Errorf("one class: Quality = %+v, %v; want AUROC −1 and an error", q, err)
	}
}

func TestDecisionModel(t *testing.T) {
	d := guard.ChunkRelevance
	f, err := Decision(d, synthetic(d, 120, 6), testSettings)
	if err != nil {
		t.Fatal(err)
	}
	f.Selection.SoftFloor = 0.3
	for _, k := range []int{-1, 0, 2} {
		dm := f.DecisionModel(k)
		want := f.Model
		if k >= 0 {
			want = f.FoldModels[k]
		}
		if !reflect.DeepEqual(dm.Model, want) || dm.SoftFloor != 0.3 || !reflect.DeepEqual(dm.Features, lexical.FeatureNames(d)) {
			t.Errorf("DecisionModel(%d) = %+v; want model %+v, features %v, soft floor 0.3", k, dm, want, lexical.FeatureNames(d))
		}
	}
}

// Sample-level checks (Example.Chunks) choose chunk relevance's thresholds
// and are never fitted: a fail threshold certified on chunk examples alone
// is refused, or lowered, once a source's good-answer samples, whose every
// chunk looks irrelevant, are added; the models stay as they were.
func TestSampleChecksSelectNotFit(t *testing.T) {
	d := guard.ChunkRelevance
	chunks := synthetic(d, 600, 11)
	base, err := Decision(d, chunks, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	if !base.Selection.Fail.HasFail {
		t.Fatal("the chunk examples alone certify no fail side; the test needs one")
	}
	// A third source's good samples: two chunks each, both from the
	// irrelevant class (a dialogue turn that shares no word with its
	// snippet). Each sample's P is its highest chunk P.
	var negatives [][]float64
	for _, e := range chunks {
		if !e.Y {
			negatives = append(negatives, e.X)
		}
	}
	with := append([]Example(nil), chunks...)
	for i := 0; i+1 < len(negatives) && i < 160; i += 2 {
		with = append(with, Example{Chunks: negatives[i : i+2], Y: true, Source: 2, Fold: (i / 2) % testSettings.Folds})
	}
	got, err := Decision(d, with, testSettings)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Model, base.Model) || !reflect.DeepEqual(got.FoldModels, base.FoldModels) {
		t.Fatal("sample-level checks changed the fitted models; they must only choose thresholds")
	}
	blockedBefore, blocked := 0, 0
	for i := len(chunks); i < len(with); i++ {
		e := &with[i]
		want := math.Max(base.FoldModels[e.Fold].Predict(e.Chunks[0]), base.FoldModels[e.Fold].Predict(e.Chunks[1]))
		if got.OOF[i] != want {
			t.Fatalf("sample %d: P %v, want the highest out-of-fold chunk P %v", i, got.OOF[i], want)
		}
		if base.Selection.Thresholds.Verdict(got.OOF[i]) == guard.Fail {
			blockedBefore++
		}
		if got.Selection.Thresholds.Verdict(got.OOF[i]) == guard.Fail {
			blocked++
		}
	}
	n := len(with) - len(chunks)
	if blockedBefore*10 <= n {
		t.Fatalf("the chunk-only threshold %v blocks %d of %d good samples; the test needs more than 10%%", base.Selection.Thresholds.Fail, blockedBefore, n)
	}
	if blocked*10 > n {
		t.Errorf("with the samples, fail threshold %v (no fail %v) still blocks %d of %d good samples; want ≤ 10%%",
			got.Selection.Thresholds.Fail, got.Selection.Thresholds.NoFail, blocked, n)
	}
}
