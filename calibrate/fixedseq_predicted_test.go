package calibrate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// noisyTeacherDraw is a row of a stream labelled by a judge that is wrong on
// 5% of rows: half the rows are true with p in [0.92, 0.98], half false
// with p in [0.02, 0.08] (a model fitted on such labels cannot be surer
// than the labels are right); the label is the truth flipped with
// probability 0.05. Every region therefore disagrees with its labels on
// about 5% of its rows, whatever the model.
func noisyTeacherDraw(r *rand.Rand) (float64, bool) {
	truth := r.IntN(2) == 0
	p := 0.02 + 0.06*r.Float64()
	if truth {
		p = 0.92 + 0.06*r.Float64()
	}
	if r.Float64() < 0.05 {
		truth = !truth
	}
	return p, truth
}

// TestFixedSequencePredictedStartNoisyLabels: on 500 rows labelled by a
// 5%-wrong judge at α = 0.10, δ = 0.05, each side can only certify a
// region of about 250 rows. Five fractional starts, each sequence at δ/5
// (what calibrate -records ran before), certify the pass side in about
// half the repetitions; one sequence at the full δ from the predicted start
// certifies it in most. On fresh rows from the same stream neither
// violates the bound in more than δ of the repetitions (here: in none, the
// regions' disagreement is about 5%). The seed is fixed.
//
// At the time of writing: decided (fail, pass) of 200: fractional starts
// (141, 134), predicted start (184, 182); violated (1, 0) and (0, 0). The
// predicted start needs p to be roughly calibrated: with the false rows'
// p spread over [0.01, 0.30] (the errors it predicts on the fail side three
// times too many) its fail side decided in 99, the fractional starts' in
// 141.
func TestFixedSequencePredictedStartNoisyLabels(t *testing.T) {
	const (
		reps  = 200
		n     = 500
		fresh = 20000
		alpha = 0.10
	)
	r := rand.New(rand.NewPCG(20, 26))
	configs := []FixedSequenceConfig{
		{Alpha: alpha, Confidence: 0.95, Starts: []float64{0, 0.03, 0.1, 0.3, 0.45}},
		{Alpha: alpha, Confidence: 0.95, PredictedStart: true, SidesOfHalf: true},
	}
	var decided, violated [2][2]int // config, side (fail, pass)
	p := make([]float64, n)
	y := make([]bool, n)
	fp := make([]float64, fresh)
	fy := make([]bool, fresh)
	for range reps {
		for i := range p {
			p[i], y[i] = noisyTeacherDraw(r)
		}
		for i := range fp {
			fp[i], fy[i] = noisyTeacherDraw(r)
		}
		for c, cfg := range configs {
			s, err := SelectFixedSequence(p, y, nil, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var cnt, errs [2]int
			for i, v := range fp {
				switch s.Band(v) {
				case BandFail:
					cnt[0]++
					if fy[i] {
						errs[0]++
					}
				case BandPass:
					cnt[1]++
					if !fy[i] {
						errs[1]++
					}
				}
			}
			for side, has := range []bool{s.HasFail, s.HasPass} {
				if !has {
					continue
				}
				decided[c][side]++
				if float64(errs[side]) > alpha*float64(cnt[side]) {
					violated[c][side]++
				}
			}
		}
	}
	t.Logf("decided (fail, pass) of %d: fractional starts %v, predicted start %v; violated %v, %v", reps, decided[0], decided[1], violated[0], violated[1])
	for side, name := range []string{"fail", "pass"} {
		if decided[1][side] < decided[0][side]+reps/10 {
			t.Errorf("%s side: the predicted start decided in %d of %d repetitions, the fractional starts in %d; want at least %d more", name, decided[1][side], reps, decided[0][side], reps/10)
		}
		for c := range configs {
			if violated[c][side] > reps/20 {
				t.Errorf("config %d, %s side: violated the bound in %d of %d repetitions (> δ)", c, name, violated[c][side], reps)
			}
		}
	}
}

// TestSelectFixedSequenceSimulationPredicted is the guarantee by
// simulation (see TestSelectFixedSequenceSimulation) with the predicted
// start and the sides kept apart at ½: the start is chosen where the
// bound is expected to sit near α, the hardest place for the guarantee.
// At the time of writing: decided (fail, pass) = (162, 149) of 300,
// violated (2, 0). (Before the predicted chance counted the groups'
// own tests it started where a group failed: decided (1, 1).)
func TestSelectFixedSequenceSimulationPredicted(t *testing.T) {
	simulateFixedSequence(t, FixedSequenceConfig{Alpha: 0.05, Confidence: 0.95, PredictedStart: true, SidesOfHalf: true})
}

// TestFixedSequenceSidesOfHalf: the fail side of a clean stream runs on
// past p = ½ without SidesOfHalf (its region's errors stay within the
// bound) and stops below ½ with it; the pass side stays above ½.
func TestFixedSequenceSidesOfHalf(t *testing.T) {
	n := 1000
	p := make([]float64, n)
	y := make([]bool, n)
	for i := range p {
		p[i] = (float64(i) + 0.5) / float64(n)
		y[i] = i >= 700 // false below p = 0.7: the fail side may reach it
	}
	cfg := FixedSequenceConfig{Alpha: 0.05, Confidence: 0.95}
	s, err := SelectFixedSequence(p, y, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasFail || s.Fail <= 0.5 {
		t.Fatalf("without SidesOfHalf: fail side %v at %v; want it past ½", s.HasFail, s.Fail)
	}
	cfg.SidesOfHalf = true
	s, err = SelectFixedSequence(p, y, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasFail || s.Fail >= 0.5 || s.AutoFail.Count != 500 {
		t.Errorf("SidesOfHalf: fail side %v at %v with %d rows; want the 500 rows below ½", s.HasFail, s.Fail, s.AutoFail.Count)
	}
	if !s.HasPass || s.Pass <= 0.5 {
		t.Errorf("SidesOfHalf: pass side %v at %v; want above ½", s.HasPass, s.Pass)
	}
	cfg.PredictedStart = true
	s, err = SelectFixedSequence(p, y, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasFail || s.Fail >= 0.5 || math.Abs(s.Confidence-0.95) > 1e-12 {
		t.Errorf("predicted start alone: fail %v at %v, per-test confidence %v; want below ½ at 0.95", s.HasFail, s.Fail, s.Confidence)
	}
}

// BenchmarkSelectFixedSequencePredicted is BenchmarkSelectFixedSequence's
// data with the predicted start and SidesOfHalf (what calibrate -records
// runs), for the cost of the prediction beside the plain selection.
func BenchmarkSelectFixedSequencePredicted(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	p := make([]float64, 10000)
	y := make([]bool, len(p))
	g := make([]int, len(p))
	for i := range p {
		p[i] = r.Float64()
		y[i] = r.Float64() < p[i]
		g[i] = r.IntN(5)
	}
	cfg := FixedSequenceConfig{Alpha: 0.05, Confidence: 0.95, PredictedStart: true, SidesOfHalf: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SelectFixedSequence(p, y, g, cfg); err != nil {
			b.Fatal(err)
		}
	}
}
