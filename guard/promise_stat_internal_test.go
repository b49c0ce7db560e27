package guard

import (
	"math"
	"testing"
)

// TestIncBeta checks ln I_x(a, b) against values computed by hand:
// I_x(a, 1) = x^a, I_x(1, b) = 1 − (1−x)^b, and for integer a, b the
// binomial sum I_x(a, b) = Σ_{j=a}^{a+b−1} C(a+b−1, j) x^j (1−x)^(a+b−1−j),
// e.g. I_0.5(2, 3) = (6+4+1)/16 = 0.6875.
func TestIncBeta(t *testing.T) {
	const tol = 1e-12
	for _, c := range []struct{ x, a, b, want float64 }{
		{0.5, 2, 3, 0.6875},
		{0.1, 1, 1, 0.1},
		{0.3, 3, 1, 0.027},
		{0.3, 1, 4, 1 - math.Pow(0.7, 4)},
		{0.9, 1, 4, 1 - math.Pow(0.1, 4)},
		{0.2, 2, 2, 3*0.04*0.8 + 0.008}, // C(3,2) x²(1−x) + x³
		{0, 2, 3, 0},
		{1, 2, 3, 1},
	} {
		got := math.Exp(logIncBeta(c.x, c.a, c.b))
		if math.Abs(got-c.want) > tol {
			t.Errorf("I_%v(%v, %v) = %.15g; want %.15g", c.x, c.a, c.b, got, c.want)
		}
	}
	// A tail far below the smallest float64 stays finite in logs:
	// ln(1 − I_0.1(1, 2000)) = ln(0.9^2000) = 2000·ln 0.9.
	if got, want := logUpperBeta(0.1, 1, 2000), 2000*math.Log(0.9); math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("ln(1 − I_0.1(1, 2000)) = %v; want %v", got, want)
	}
}

// mixtureByQuadrature is ln M_n by the midpoint rule over [alpha, 1] with
// the (unnormalized) Beta density, normalized by the same rule.
func mixtureByQuadrature(n, k int64, alpha, a, b float64) float64 {
	const steps = 200_000
	var num, den float64
	for i := range steps {
		p := alpha + (1-alpha)*(float64(i)+0.5)/steps
		w := math.Exp((a-1)*math.Log(p) + (b-1)*math.Log1p(-p))
		l := math.Exp(float64(k)*math.Log(p/alpha) + float64(n-k)*math.Log((1-p)/(1-alpha)))
		num += w * l
		den += w
	}
	return math.Log(num / den)
}

// TestMixtureMatchesQuadrature checks the closed form of ln M_n against
// numerical integration of its definition.
func TestMixtureMatchesQuadrature(t *testing.T) {
	const tol = 1e-6
	for _, c := range []struct {
		n, k        int64
		alpha, a, b float64
	}{
		{10, 3, 0.1, 2, 3}, {50, 12, 0.1, 1, 1}, {30, 12, 0.1, 2, 4},
		{200, 15, 0.1, 2, 3}, {100, 40, 0.05, 0.5, 1}, {400, 20, 0.05, 2, 3}, {5, 5, 0.2, 2, 3},
	} {
		got := logMixture(c.n, c.k, c.alpha, c.a, c.b, promiseLogZ(c.alpha, c.a, c.b))
		want := mixtureByQuadrature(c.n, c.k, c.alpha, c.a, c.b)
		if math.Abs(got-want) > tol {
			t.Errorf("ln M(n=%d, k=%d; α=%v, Beta(%v,%v)) = %.9f; quadrature %.9f", c.n, c.k, c.alpha, c.a, c.b, got, want)
		}
		if ub := logMaxRatio(c.n, c.k, c.alpha); got > ub+1e-12 {
			t.Errorf("ln M(n=%d, k=%d) = %v above its bound ln sup L_p = %v", c.n, c.k, got, ub)
		}
	}
	if got := logMixture(0, 0, 0.1, 2, 3, promiseLogZ(0.1, 2, 3)); got != 0 {
		t.Errorf("ln M_0 = %v; want 0 (the martingale starts at 1)", got)
	}
}
