package calibrate

import (
	"math/rand/v2"
	"testing"
)

var sink float64

func BenchmarkLogisticPredict(b *testing.B) {
	m := Logistic{Weights: []float64{0.5, -1, 2, 0.1}, Bias: 0.3}
	x := []float64{0.2, 0.4, -0.1, 1}
	b.ReportAllocs()
	for b.Loop() {
		sink = m.Predict(x)
	}
}

func BenchmarkPlattPredict(b *testing.B) {
	p := Platt{A: -2, B: 1}
	b.ReportAllocs()
	for b.Loop() {
		sink = p.Predict(0.7)
	}
}

func BenchmarkIsotonicPredict(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 10000)
	y := make([]bool, len(x))
	for i := range x {
		x[i] = r.Float64()
		y[i] = r.Float64() < x[i]
	}
	m, err := FitIsotonic(x, y, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sink = m.Predict(0.42)
	}
}

func BenchmarkFitLogistic(b *testing.B) {
	x, y := synthLogistic(10000, []float64{1.5, -2, 0.5}, -0.3, 42)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FitLogistic(x, y, nil, LogisticConfig{L2: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAUROC(b *testing.B) {
	x, y := synthLogistic(10000, []float64{1}, 0, 1)
	s := make([]float64, len(x))
	for i := range x {
		s[i] = x[i][0]
	}
	b.ReportAllocs()
	for b.Loop() {
		sink, _ = AUROC(s, y, nil)
	}
}

func BenchmarkClopperPearsonUpper(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sink = ClopperPearsonUpper(37, 1000, 0.95)
	}
}

func BenchmarkSelectThresholds(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	p := make([]float64, 10000)
	y := make([]bool, len(p))
	for i := range p {
		p[i] = r.Float64()
		y[i] = r.Float64() < p[i]
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SelectThresholds(p, y, 0.05, 0.95); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitLogisticSigned fits with a sign constraint that binds (the
// second weight, −2 in the data, is held ≥ 0), so the active-set Newton
// method of newtonSigned runs.
func BenchmarkFitLogisticSigned(b *testing.B) {
	x, y := synthLogistic(10000, []float64{1.5, -2, 0.5}, -0.3, 42)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FitLogistic(x, y, nil, LogisticConfig{L2: 1, Signs: []int{1, 1, 1}}); err != nil {
			b.Fatal(err)
		}
	}
}
