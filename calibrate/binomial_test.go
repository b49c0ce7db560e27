package calibrate

import (
	"fmt"
	"math"
	"testing"
)

// directBinomCDF is P(X ≤ k), X ~ Binomial(n, p), by summing the pmf in log
// space: an evaluation independent of the incomplete beta.
func directBinomCDF(k, n int, p float64) float64 {
	var s float64
	for i := 0; i <= k; i++ {
		lc, _ := math.Lgamma(float64(n + 1))
		li, _ := math.Lgamma(float64(i + 1))
		lni, _ := math.Lgamma(float64(n - i + 1))
		s += math.Exp(lc - li - lni + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return s
}

func TestClopperPearsonUpperKnown(t *testing.T) {
	const tol = 1e-9 // the accuracy promised in the doc comment
	// Reference values: exact rational bisection of the binomial CDF
	// (Python fractions.Fraction, 70 halvings, sum of C(n,i)pⁱ(1−p)ⁿ⁻ⁱ):
	//   upper(k, n, c) = p with P(X ≤ k | n, p) = 1 − c.
	// The k = 0 rows also equal the closed form 1 − (1−c)^(1/n), e.g.
	// 1 − 0.05^(1/10) = 0.25886555089305…
	tests := []struct {
		k, n int
		conf float64
		want float64
	}{
		{0, 10, 0.95, 0.2588655508930523},
		{1, 10, 0.95, 0.39416330243650477},
		{5, 40, 0.95, 0.24503051264971196},
		{3, 100, 0.95, 0.07571079374983006},
		{10, 20, 0.95, 0.6980460887135065},
		{1, 31, 0.95, 0.14409039131834478},
		{0, 29, 0.95, 0.09814462767729575},
		{0, 28, 0.95, 0.10146573557272472},
		{2, 50, 0.99, 0.15770404761479476},
		{5, 20, 0.6, 0.3043030828845501},
		{15, 30, 0.6, 0.5393679107031142},
		{7, 7, 0.95, 1}, // k == n
		{0, 0, 0.95, 1}, // n == 0
	}
	for _, tt := range tests {
		if got := ClopperPearsonUpper(tt.k, tt.n, tt.conf); !close(got, tt.want, tol) {
			t.Errorf("ClopperPearsonUpper(%d, %d, %v) = %.17g; want %.17g", tt.k, tt.n, tt.conf, got, tt.want)
		}
	}
}

func TestClopperPearsonZeroEvents(t *testing.T) {
	// Closed form for k = 0: (1 − p)ⁿ = 1 − c ⇒ p = 1 − (1−c)^(1/n).
	const tol = 1e-12
	for _, n := range []int{1, 2, 5, 10, 59, 300, 1000, 100000, 1000000} {
		for _, c := range []float64{0.5, 0.9, 0.95, 0.99, 0.999} {
			want := -math.Expm1(math.Log1p(-c) / float64(n))
			if got := ClopperPearsonUpper(0, n, c); !close(got, want, tol) {
				t.Errorf("ClopperPearsonUpper(0, %d, %v) = %.17g; want 1 − (1−c)^(1/n) = %.17g", n, c, got, want)
			}
			// And by symmetry the lower bound with all events.
			if got := ClopperPearsonLower(n, n, c); !close(got, 1-want, tol) {
				t.Errorf("ClopperPearsonLower(%d, %d, %v) = %.17g; want (1−c)^(1/n) = %.17g", n, n, c, got, 1-want)
			}
		}
	}
}

func TestClopperPearsonDefinition(t *testing.T) {
	// The bounds must satisfy their defining equations, checked with a
	// direct pmf sum: P(X ≤ k | p_U) = 1 − c and P(X ≥ k | p_L) = 1 − c.
	const tol = 1e-11
	for _, n := range []int{1, 2, 3, 7, 10, 25, 60, 200, 1000} {
		for k := 0; k <= n; k += max(1, n/9) {
			for _, c := range []float64{0.8, 0.95, 0.99} {
				if k < n {
					u := ClopperPearsonUpper(k, n, c)
					if got := directBinomCDF(k, n, u); !close(got, 1-c, tol) {
						t.Errorf("P(X ≤ %d | n=%d, p=ClopperPearsonUpper=%v) = %.15g; want %v", k, n, u, got, 1-c)
					}
				}
				if k > 0 {
					l := ClopperPearsonLower(k, n, c)
					if got := 1 - directBinomCDF(k-1, n, l); !close(got, 1-c, tol) {
						t.Errorf("P(X ≥ %d | n=%d, p=ClopperPearsonLower=%v) = %.15g; want %v", k, n, l, got, 1-c)
					}
				}
			}
		}
	}
}

func TestClopperPearsonSymmetryAndOrder(t *testing.T) {
	// Lower(k, n) = 1 − Upper(n−k, n) (swap events and non-events), and
	// Lower ≤ k/n ≤ Upper for c ≥ 1/2.
	const tol = 1e-12
	for _, n := range []int{1, 4, 17, 100, 5000} {
		for k := 0; k <= n; k += max(1, n/7) {
			for _, c := range []float64{0.5, 0.9, 0.975} {
				lo, up := ClopperPearsonLower(k, n, c), ClopperPearsonUpper(k, n, c)
				if want := 1 - ClopperPearsonUpper(n-k, n, c); !close(lo, want, tol) {
					t.Errorf("ClopperPearsonLower(%d, %d, %v) = %v; 1 − Upper(%d, %d) = %v", k, n, c, lo, n-k, n, want)
				}
				if ph := float64(k) / float64(n); !(lo <= ph && ph <= up) {
					t.Errorf("k=%d n=%d c=%v: want Lower %v ≤ k/n %v ≤ Upper %v", k, n, c, lo, ph, up)
				}
			}
		}
	}
	if got := ClopperPearsonLower(0, 10, 0.95); got != 0 {
		t.Errorf("ClopperPearsonLower(0, 10, 0.95) = %v; want 0", got)
	}
	if got := ClopperPearsonLower(0, 0, 0.95); got != 0 {
		t.Errorf("ClopperPearsonLower(0, 0, 0.95) = %v; want 0", got)
	}
}

func TestRegIncBetaClosedForms(t *testing.T) {
	// I_x(1,1) = x; I_x(a,1) = xᵃ; I_x(1,b) = 1 − (1−x)ᵇ; I_½(a,a) = ½.
	// The prefactor uses ln Γ, whose rounding error ε·|ln Γ(a+b)| (≈ 3e-13
	// for a+b = 2000) limits the accuracy for large a, b.
	const tol = 1e-12
	for _, x := range []float64{0, 1e-300, 1e-8, 0.1, 0.3, 0.5, 0.7, 0.999, 1} {
		for _, ab := range []float64{0.5, 1, 2.5, 7, 40, 1000} {
			if got := regIncBeta(x, 1, 1); !close(got, x, tol) {
				t.Errorf("I_%v(1, 1) = %v; want %v", x, got, x)
			}
			if got, want := regIncBeta(x, ab, 1), math.Pow(x, ab); !close(got, want, tol) {
				t.Errorf("I_%v(%v, 1) = %v; want %v", x, ab, got, want)
			}
			if got, want := regIncBeta(x, 1, ab), -math.Expm1(ab*math.Log1p(-x)); !close(got, want, tol) {
				t.Errorf("I_%v(1, %v) = %v; want %v", x, ab, got, want)
			}
			if got := regIncBeta(0.5, ab, ab); !close(got, 0.5, tol) {
				t.Errorf("I_½(%v, %v) = %v; want ½", ab, ab, got)
			}
		}
	}
}

func TestClopperPearsonPanics(t *testing.T) {
	for _, tt := range []struct {
		k, n int
		c    float64
	}{{-1, 10, 0.9}, {11, 10, 0.9}, {0, -1, 0.9}, {1, 10, 0}, {1, 10, 1}, {1, 10, math.NaN()}} {
		mustPanic(t, fmt.Sprintf("ClopperPearsonUpper(%d, %d, %v)", tt.k, tt.n, tt.c), func() { ClopperPearsonUpper(tt.k, tt.n, tt.c) })
		mustPanic(t, fmt.Sprintf("ClopperPearsonLower(%d, %d, %v)", tt.k, tt.n, tt.c), func() { ClopperPearsonLower(tt.k, tt.n, tt.c) })
	}
}

func ExampleClopperPearsonUpper() {
	// 1 error in 10 auto-passed rows: with 95% confidence the true error
	// rate is below 39.4%.
	fmt.Printf("%.4f\n", ClopperPearsonUpper(1, 10, 0.95))
	// Zero errors in 300 rows: below about 3/300 (the "rule of three").
	fmt.Printf("%.4f\n", ClopperPearsonUpper(0, 300, 0.95))
	// Output:
	// 0.3942
	// 0.0099
}

func ExampleClopperPearsonLower() {
	fmt.Printf("%.4f\n", ClopperPearsonLower(9, 10, 0.95))
	// Output: 0.6058
}
