package calibrate

import "math"

// hasSigns reports whether signs constrains any weight.
func hasSigns(signs []int) bool {
	for _, s := range signs {
		if s != 0 {
			return true
		}
	}
	return false
}

// newtonSigned minimises the objective from theta (updated in place; it must
// be feasible, e.g. β = 0) subject to signs[j]·θ_j ≥ 0 for j < len(signs), by
// a primal active-set Newton method. It reports whether it converged and the
// number of iterations (gradient and Hessian evaluations) used.
//
// The active set A holds constrained weights clamped at exactly 0. Each
// iteration:
//
//  1. computes the Newton direction on the free parameters F (everything not
//     in A, the bias included), d_F = (∇²_FF L)⁻¹·∇_F L, d_A = 0; a free
//     constrained weight that sits at 0 and that the step −d would carry
//     across zero joins A, and d is recomputed;
//  2. ratio test: s_max = min{θ_j/d_j : j ∈ F constrained, s_j·d_j > 0}, the
//     largest step θ − s·d that keeps every weight on its side;
//  3. if s_max < 1 the step s_max is tried first: when it satisfies the
//     Armijo condition it is taken, the blocking weight is set to exactly 0
//     and joins A; otherwise (and when s_max ≥ 1) the usual step-halving line
//     search runs from min(1, s_max), every trial step then staying strictly
//     inside the cone;
//  4. once the Newton step is below the tolerance (as in newton) the
//     Karush–Kuhn–Tucker conditions are checked on A: the multiplier of a
//     clamped weight is s_j·∂L/∂β_j and must be ≥ 0. The weight with the
//     most negative multiplier, measured as the step −s_j·g_j/H_jj it would
//     take if released, is released when that step exceeds the tolerance,
//     and the iteration resumes; otherwise the fit has converged.
//
// A weight released at a point where the reduced problem is solved moves
// into the feasible side (for a positive definite Hessian the released
// component of the new Newton step has the sign of its gradient), so a
// release is not undone at once; should rounding make the next direction
// push it straight back across, it is clamped again and the fit is reported
// as converged, since the Newton model then says 0 is optimal.
func (p *fitProblem) newtonSigned(theta []float64, signs []int, maxIter int, tol float64) (bool, int) {
	s := newSignedSolver(p, signs, len(theta))
	f := p.objective(theta)
	released := -1
	for iter := 1; iter <= maxIter; iter++ {
		p.gradHess(theta, s.g, s.h)
		// 1. Direction, clamping weights at 0 that it would carry across.
		if s.clampCrossing(theta, released) {
			return true, iter
		}
		released = -1
		slope := dot(s.g, s.dir) // > 0: −dir is a descent direction
		// 2. Ratio test.
		smax, blocker := s.ratioTest(theta)
		// 4. Convergence and the KKT check.
		if blocker < 0 && (maxAbs(s.dir) <= tol*(1+maxAbs(theta)) || slope <= 16*signedEps*math.Abs(f)) {
			f = s.fullStep(theta)
			worst := s.worstMultiplier(theta, tol)
			if worst < 0 {
				return true, iter
			}
			s.active[worst] = false
			released = worst
			continue
		}
		// 3. Line search, first at the boundary.
		var accepted bool
		if f, accepted = s.lineSearch(theta, f, slope, smax, blocker); !accepted {
			return false, iter
		}
	}
	return false, maxIter
}

// signedEps is the unit roundoff the signed fit's tolerances scale with.
const signedEps = 0x1p-52

// signedSolver is the state of one newtonSigned run: the active set, the
// gradient and Hessian at the current point, and scratch for the reduced
// Newton system.
type signedSolver struct {
	p      *fitProblem
	signs  []int
	m      int
	active []bool
	g, h   []float64 // gradient and Hessian (m×m) at theta
	hf, l  []float64 // the free parameters' Hessian and its factor
	gf, df []float64 // the free parameters' gradient and direction
	free   []int     // scratch: the free parameters' indices
	dir    []float64 // the Newton direction (0 on the active set)
	trial  []float64
}

func newSignedSolver(p *fitProblem, signs []int, m int) signedSolver {
	return signedSolver{
		p: p, signs: signs, m: m,
		active: make([]bool, m),
		g:      make([]float64, m), h: make([]float64, m*m),
		hf: make([]float64, m*m), l: make([]float64, m*m),
		gf: make([]float64, m), df: make([]float64, m),
		free: make([]int, m), dir: make([]float64, m), trial: make([]float64, m),
	}
}

// sgn is the sign constraint on θ_j as ±1, or 0.
func (s *signedSolver) sgn(j int) float64 {
	if j < len(s.signs) {
		return float64(s.signs[j])
	}
	return 0
}

// direction fills dir with the Newton direction on the free parameters.
func (s *signedSolver) direction() {
	m, k := s.m, 0
	for j := range m {
		if !s.active[j] {
			s.free[k] = j
			k++
		}
	}
	free := s.free[:k]
	for a, ja := range free {
		s.gf[a] = s.g[ja]
		for b, jb := range free {
			s.hf[a*k+b] = s.h[ja*m+jb]
		}
	}
	clear(s.dir)
	if !solveDamped(s.hf[:k*k], k, s.gf[:k], s.df[:k], s.l[:k*k]) {
		copy(s.df[:k], s.gf[:k]) // reduced Hessian numerically zero: steepest descent
	}
	for a, j := range free {
		s.dir[j] = s.df[a]
	}
}

// clampCrossing computes the direction, adding to the active set every free
// constrained weight at 0 that the step −dir would carry across zero, and
// recomputing until none would. It reports true when the weight released by
// the last KKT check (released) would be carried straight back: the fit has
// then converged.
func (s *signedSolver) clampCrossing(theta []float64, released int) bool {
	for {
		s.direction()
		blocked := false
		for j := range s.signs {
			if !s.active[j] && s.sgn(j) != 0 && theta[j] == 0 && s.sgn(j)*s.dir[j] > 0 {
				if j == released {
					s.active[j] = true
					return true
				}
				s.active[j], blocked = true, true
			}
		}
		if !blocked {
			return false
		}
	}
}

// ratioTest returns the largest step θ − s·dir (at most 1) that keeps every
// free constrained weight on its side, and the weight that blocks it (-1
// when none does).
func (s *signedSolver) ratioTest(theta []float64) (smax float64, blocker int) {
	smax, blocker = 1.0, -1
	for j := range s.signs {
		if !s.active[j] && s.sgn(j)*s.dir[j] > 0 {
			if r := theta[j] / s.dir[j]; r < smax {
				smax, blocker = r, j
			}
		}
	}
	return smax, blocker
}

// project moves every constrained weight onto its side (rounding only).
func (s *signedSolver) project(v []float64) {
	for j := range s.signs {
		if s.sgn(j)*v[j] < 0 {
			v[j] = 0
		}
	}
}

// fullStep takes the whole Newton step and returns the objective there.
func (s *signedSolver) fullStep(theta []float64) float64 {
	for j := range theta {
		theta[j] -= s.dir[j]
	}
	s.project(theta)
	return s.p.objective(theta)
}

// worstMultiplier checks the KKT conditions on the active set: it returns
// the clamped weight whose multiplier s_j·g_j is most negative, measured as
// the step −s_j·g_j/H_jj releasing it would take, when that step exceeds the
// tolerance; -1 when no weight should be released.
func (s *signedSolver) worstMultiplier(theta []float64, tol float64) int {
	worst, worstStep := -1, tol*(1+maxAbs(theta))
	for j := range s.signs {
		if !s.active[j] {
			continue
		}
		mult := s.sgn(j) * s.g[j]
		if mult >= 0 {
			continue
		}
		step := math.Inf(1)
		if hjj := s.h[j*s.m+j]; hjj > 0 {
			step = -mult / hjj
		}
		if step > worstStep {
			worst, worstStep = j, step
		}
	}
	return worst
}

// lineSearch halves the step from min(1, smax) until the Armijo condition
// holds, trying the boundary step first when a weight blocks (that weight is
// then set to exactly 0 and joins the active set). It updates theta and
// returns the new objective, or reports false after 60 halvings.
func (s *signedSolver) lineSearch(theta []float64, f, slope, smax float64, blocker int) (float64, bool) {
	step := math.Min(1, smax)
	for try := range 60 {
		for j := range theta {
			s.trial[j] = theta[j] - step*s.dir[j]
		}
		atBound := try == 0 && blocker >= 0
		if atBound {
			s.trial[blocker] = 0
		}
		s.project(s.trial)
		ft := s.p.objective(s.trial)
		if ft <= f-1e-4*step*slope+8*signedEps*math.Abs(f) {
			copy(theta, s.trial)
			if atBound {
				s.active[blocker] = true
			}
			return ft, true
		}
		step /= 2
	}
	return f, false
}
