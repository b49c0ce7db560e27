package calibrate

import (
	"fmt"
	"math"
)

// Logistic is a fitted multivariate logistic model:
//
//	P(true | x) = 1 / (1 + exp(-(Bias + Σ_j Weights[j]·x[j])))
//
// A Logistic is a plain value: once fitted it is read-only and Predict may be
// called from any number of goroutines. The zero Logistic takes no features
// and predicts 0.5.
type Logistic struct {
	Weights []float64 `json:"weights"`
	Bias    float64   `json:"bias"`
}

// Predict returns P(true | x). It does not allocate and is numerically stable
// for any finite linear predictor (no overflow in exp).
//
// Predict panics if len(x) != len(m.Weights).
func (m Logistic) Predict(x []float64) float64 {
	if len(x) != len(m.Weights) {
		panic("calibrate: Logistic.Predict: feature length mismatch")
	}
	z := m.Bias
	for j, b := range m.Weights {
		z += b * x[j]
	}
	return sigmoid(z)
}

// LogisticConfig controls [FitLogistic]. The zero value is an unpenalised
// fit with the default iteration limit and tolerance.
type LogisticConfig struct {
	// L2 is the ridge penalty λ on the weights (not the bias); see FitLogistic
	// for the objective. 0 means no penalty. Must be ≥ 0.
	L2 float64
	// MaxIter bounds the Newton iterations. 0 means 100. Must be ≥ 0.
	MaxIter int
	// Tol stops the iteration once the Newton step d satisfies
	// max_j |d_j| ≤ Tol·(1 + max_j |θ_j|), θ = (Weights, Bias). 0 means 1e-10.
	// Must be ≥ 0.
	Tol float64
	// Signs constrains the sign of each weight: nil means unconstrained;
	// otherwise len(Signs) must equal the number of features and Signs[j] is
	// +1 (Weights[j] ≥ 0), −1 (Weights[j] ≤ 0) or 0 (free). The bias is never
	// constrained. See FitLogistic for the method. Signs is not modified.
	Signs []int
}

// FitLogistic fits a [Logistic] to the rows x (each of the same length d) with
// labels y and optional weights w (nil means every weight is 1) by minimising
// the penalised weighted negative log-likelihood
//
//	L(β, b) = Σ_i w_i·[ log(1+exp(-z_i)) if y_i else log(1+exp(z_i)) ] + (λ/2)·Σ_j β_j²,
//	z_i = b + Σ_j β_j·x_ij,  λ = cfg.L2,
//
// whose gradient and Hessian are
//
//	∇L = Σ_i w_i·(p_i − y_i)·(x_i, 1) + λ·(β, 0)
//	∇²L = Σ_i w_i·p_i·(1−p_i)·(x_i, 1)(x_i, 1)ᵀ + λ·diag(1,…,1, 0).
//
// The method is Newton–Raphson (equivalently IRLS) started from β = 0,
// b = log(W₊/W₋), with a backtracking (step-halving, Armijo) line search; a
// Hessian that is not numerically positive definite (collinear features, no
// penalty) is regularised with a small multiple of the identity. Features are
// used as given: scale them if L2 is to penalise them evenly.
//
// Sign constraints: with cfg.Signs, L is minimised over the convex cone
// {s_j·β_j ≥ 0 for every j with s_j = Signs[j] ≠ 0} by a primal active-set
// Newton method: a constrained weight that a Newton step would carry across
// zero is clamped at exactly 0 and held there while the iteration continues
// on the other parameters; at convergence the Karush–Kuhn–Tucker conditions
// are checked for every clamped weight (s_j = Signs[j]),
//
//	s_j·∂L/∂β_j ≥ 0  (the gradient keeps pushing β_j across zero),
//
// and a weight that violates them is released and the iteration resumed. A
// clamped weight is returned as exactly 0. Constraints that do not bind at
// the unconstrained optimum leave the fit unchanged (to the tolerance).
//
// Separable data: when L2 == 0 and the classes are linearly separable the
// likelihood has no finite maximiser. FitLogistic then stops (at the latest
// after MaxIter iterations) and returns the last iterate, whose weights are
// finite and which separates the training rows, together with an error
// wrapping [ErrSeparable]. Any other failure to converge returns the last
// iterate with [ErrNotConverged]. Callers that can use an approximate model
// may check for these with errors.Is; everyone else treats them as failures.
//
// Errors (wrapped in [*Error]): [ErrEmpty] for no rows or zero total weight,
// [ErrRagged], [ErrNaN] for a NaN or infinite feature, [ErrWeight],
// [ErrOneClass] when a class has zero total weight, [ErrRange] for a negative
// or NaN config field, or for Signs of the wrong length or with a value
// other than −1, 0, +1. FitLogistic panics if len(y) != len(x), or if w != nil
// and len(w) != len(x). The inputs are not modified.
func FitLogistic(x [][]float64, y []bool, w []float64, cfg LogisticConfig) (Logistic, error) {
	const fn = "FitLogistic"
	checkLen(fn, len(x), y, w)
	if !(cfg.L2 >= 0) || math.IsInf(cfg.L2, 1) {
		return Logistic{}, newErr(fn, -1, fmt.Errorf("L2 = %v: %w", cfg.L2, ErrRange))
	}
	if cfg.MaxIter < 0 {
		return Logistic{}, newErr(fn, -1, fmt.Errorf("MaxIter = %d: %w", cfg.MaxIter, ErrRange))
	}
	if !(cfg.Tol >= 0) {
		return Logistic{}, newErr(fn, -1, fmt.Errorf("Tol = %v: %w", cfg.Tol, ErrRange))
	}
	for j, sg := range cfg.Signs {
		if sg < -1 || sg > 1 {
			return Logistic{}, newErr(fn, -1, fmt.Errorf("Signs[%d] = %d not in {−1, 0, +1}: %w", j, sg, ErrRange))
		}
	}
	maxIter, tol := cfg.MaxIter, cfg.Tol
	if maxIter == 0 {
		maxIter = 100
	}
	if tol == 0 {
		tol = 1e-10
	}
	if len(x) == 0 {
		return Logistic{}, newErr(fn, -1, ErrEmpty)
	}
	d := len(x[0])
	for i, row := range x {
		if len(row) != d {
			return Logistic{}, newErr(fn, i, ErrRagged)
		}
		for _, v := range row {
			if !finite(v) {
				return Logistic{}, newErr(fn, i, ErrNaN)
			}
		}
	}
	if cfg.Signs != nil && len(cfg.Signs) != d {
		return Logistic{}, newErr(fn, -1, fmt.Errorf("len(Signs) = %d, want %d features: %w", len(cfg.Signs), d, ErrRange))
	}
	if err := checkWeights(fn, w); err != nil {
		return Logistic{}, err
	}
	t := make([]float64, len(y))
	var wPos, wNeg float64
	for i, yi := range y {
		t[i] = b2f(yi)
		if yi {
			wPos += weightAt(w, i)
		} else {
			wNeg += weightAt(w, i)
		}
	}
	if wPos+wNeg == 0 {
		return Logistic{}, newErr(fn, -1, ErrEmpty)
	}
	if wPos == 0 || wNeg == 0 {
		return Logistic{}, newErr(fn, -1, ErrOneClass)
	}

	prob := fitProblem{x: x, t: t, w: w, l2: cfg.L2}
	theta := make([]float64, d+1)
	theta[d] = math.Log(wPos / wNeg)
	var converged bool
	var iters int
	if hasSigns(cfg.Signs) {
		converged, iters = prob.newtonSigned(theta, cfg.Signs, maxIter, tol)
	} else {
		converged, iters = prob.newton(theta, maxIter, tol)
	}
	m := Logistic{Weights: theta[:d:d], Bias: theta[d]}
	switch {
	case cfg.L2 == 0 && prob.separates(theta):
		return m, newErr(fn, -1, fmt.Errorf("%w (stopped after %d iterations)", ErrSeparable, iters))
	case !converged:
		return m, newErr(fn, -1, fmt.Errorf("%w in %d iterations", ErrNotConverged, iters))
	}
	return m, nil
}

// sigmoid returns 1/(1+exp(-z)) without overflow.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// softplus returns log(1+exp(z)) without overflow or loss of precision.
func softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// fitProblem is a (possibly soft-target) weighted logistic regression with
// parameters θ = (β_1 … β_d, b). It is shared by FitLogistic and FitPlatt.
type fitProblem struct {
	x  [][]float64 // rows, each of length d
	t  []float64   // targets in [0, 1]
	w  []float64   // weights; nil means 1
	l2 float64     // ridge penalty on β
}

func (p *fitProblem) z(theta []float64, i int) float64 {
	z := theta[len(theta)-1]
	for j, v := range p.x[i] {
		z += theta[j] * v
	}
	return z
}

// objective returns L(θ) (see FitLogistic) for targets t.
func (p *fitProblem) objective(theta []float64) float64 {
	var f float64
	for i := range p.x {
		wi := weightAt(p.w, i)
		if wi == 0 {
			continue
		}
		z := p.z(theta, i)
		ti := p.t[i]
		var l float64
		if ti != 0 {
			l += ti * softplus(-z)
		}
		if ti != 1 {
			l += (1 - ti) * softplus(z)
		}
		f += wi * l
	}
	d := len(theta) - 1
	for j := range d {
		f += 0.5 * p.l2 * theta[j] * theta[j]
	}
	return f
}

// gradHess fills g with ∇L and h (row-major m×m, m = len(θ)) with ∇²L.
func (p *fitProblem) gradHess(theta, g, h []float64) {
	m := len(theta)
	d := m - 1
	clear(g)
	clear(h)
	for i, row := range p.x {
		wi := weightAt(p.w, i)
		if wi == 0 {
			continue
		}
		z := p.z(theta, i)
		q, qc := sigmoid(z), sigmoid(-z) // p and 1-p, each to full relative precision
		ti := p.t[i]
		r := wi * (q*(1-ti) - qc*ti) // w·(p − t)
		s := wi * q * qc             // w·p·(1−p)
		for j := range m {
			xj := 1.0
			if j < d {
				xj = row[j]
			}
			g[j] += r * xj
			if s == 0 {
				continue
			}
			sx := s * xj
			for k := 0; k <= j; k++ {
				xk := 1.0
				if k < d {
					xk = row[k]
				}
				h[j*m+k] += sx * xk
			}
		}
	}
	for j := range d {
		g[j] += p.l2 * theta[j]
		h[j*m+j] += p.l2
	}
	for j := range m {
		for k := 0; k < j; k++ {
			h[k*m+j] = h[j*m+k]
		}
	}
}

// separates reports whether every row with positive weight lies strictly on
// the side of the decision boundary z = 0 given by its (hard) target. A
// minimiser of the unpenalised likelihood never does: scaling θ up would lower
// L further.
func (p *fitProblem) separates(theta []float64) bool {
	for i := range p.x {
		if weightAt(p.w, i) == 0 {
			continue
		}
		z := p.z(theta, i)
		switch p.t[i] {
		case 1:
			if !(z > 0) {
				return false
			}
		case 0:
			if !(z < 0) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// newton minimises the objective from theta (updated in place). It reports
// whether the convergence test was met and the number of iterations used.
func (p *fitProblem) newton(theta []float64, maxIter int, tol float64) (bool, int) {
	const eps = 0x1p-52
	m := len(theta)
	g := make([]float64, m)
	h := make([]float64, m*m)
	l := make([]float64, m*m)
	dir := make([]float64, m)
	trial := make([]float64, m)
	f := p.objective(theta)
	for iter := 1; iter <= maxIter; iter++ {
		p.gradHess(theta, g, h)
		if maxAbs(g) == 0 {
			return true, iter
		}
		if !solveDamped(h, m, g, dir, l) {
			copy(dir, g) // Hessian numerically zero: steepest descent
		}
		slope := dot(g, dir) // = gᵀH⁻¹g > 0: dir is a descent direction for −dir
		// Converged when the Newton step is below tol, or when the decrease it
		// predicts (slope/2) is below what float64 can resolve in f. Taking
		// this last full step is safe (it is tiny) and, by quadratic
		// convergence, lands far inside the tolerance.
		if maxAbs(dir) <= tol*(1+maxAbs(theta)) || slope <= 16*eps*math.Abs(f) {
			for j := range theta {
				theta[j] -= dir[j]
			}
			return true, iter
		}
		accepted := false
		step := 1.0
		for range 60 {
			for j := range theta {
				trial[j] = theta[j] - step*dir[j]
			}
			ft := p.objective(trial)
			// Armijo condition with a few ulps of slack for rounding in f.
			if ft <= f-1e-4*step*slope+8*eps*math.Abs(f) {
				copy(theta, trial)
				f = ft
				accepted = true
				break
			}
			step /= 2
		}
		if !accepted {
			return false, iter
		}
	}
	return false, maxIter
}

// solveDamped solves (H + μI)·x = g for the smallest μ in {0, 1e-10·s,
// 1e-8·s, …} (s = max diagonal of H) for which the Cholesky factorisation
// succeeds. It reports false when H is zero.
func solveDamped(h []float64, m int, g, x, l []float64) bool {
	var scale float64
	for j := range m {
		scale = math.Max(scale, h[j*m+j])
	}
	if !(scale > 0) || math.IsInf(scale, 1) {
		return false
	}
	for mu := 0.0; mu <= 1e12*scale; {
		if cholesky(h, m, mu, l) {
			cholSolve(l, m, g, x)
			return true
		}
		if mu == 0 {
			mu = 1e-10 * scale
		} else {
			mu *= 100
		}
	}
	return false
}

// cholesky factors A + μI = L·Lᵀ into the lower triangle of l. It fails when
// a pivot is not positive relative to its diagonal entry.
func cholesky(a []float64, m int, mu float64, l []float64) bool {
	for j := range m {
		diag := a[j*m+j] + mu
		sum := diag
		for k := range j {
			sum -= l[j*m+k] * l[j*m+k]
		}
		if !(sum > 1e-13*diag) {
			return false
		}
		ljj := math.Sqrt(sum)
		l[j*m+j] = ljj
		for i := j + 1; i < m; i++ {
			s := a[i*m+j]
			for k := range j {
				s -= l[i*m+k] * l[j*m+k]
			}
			l[i*m+j] = s / ljj
		}
	}
	return true
}

// cholSolve solves L·Lᵀ·x = b.
func cholSolve(l []float64, m int, b, x []float64) {
	for i := range m {
		s := b[i]
		for k := range i {
			s -= l[i*m+k] * x[k]
		}
		x[i] = s / l[i*m+i]
	}
	for i := m - 1; i >= 0; i-- {
		s := x[i]
		for k := i + 1; k < m; k++ {
			s -= l[k*m+i] * x[k]
		}
		x[i] = s / l[i*m+i]
	}
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
