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
	const eps = 0x1p-52
	m := len(theta)
	sgn := func(j int) float64 { // the sign constraint on θ_j as ±1, or 0
		if j < len(signs) {
			return float64(signs[j])
		}
		return 0
	}
	active := make([]bool, m)
	g := make([]float64, m)
	h := make([]float64, m*m)
	hf := make([]float64, m*m)
	l := make([]float64, m*m)
	gf := make([]float64, m)
	df := make([]float64, m)
	free := make([]int, 0, m)
	dir := make([]float64, m)
	trial := make([]float64, m)

	// direction fills dir with the Newton direction on the free parameters.
	direction := func() {
		free = free[:0]
		for j := range m {
			if !active[j] {
				free = append(free, j)
			}
		}
		k := len(free)
		for a, ja := range free {
			gf[a] = g[ja]
			for b, jb := range free {
				hf[a*k+b] = h[ja*m+jb]
			}
		}
		clear(dir)
		if !solveDamped(hf[:k*k], k, gf[:k], df[:k], l[:k*k]) {
			copy(df[:k], gf[:k]) // reduced Hessian numerically zero: steepest descent
		}
		for a, j := range free {
			dir[j] = df[a]
		}
	}
	// project moves every constrained weight onto its side (rounding only).
	project := func(v []float64) {
		for j := range signs {
			if s := sgn(j); s*v[j] < 0 {
				v[j] = 0
			}
		}
	}

	f := p.objective(theta)
	released := -1
	for iter := 1; iter <= maxIter; iter++ {
		p.gradHess(theta, g, h)
		// 1. Direction, clamping weights at 0 that it would carry across.
		for {
			direction()
			blocked := false
			for j := range signs {
				if !active[j] && sgn(j) != 0 && theta[j] == 0 && sgn(j)*dir[j] > 0 {
					if j == released {
						active[j] = true
						return true, iter
					}
					active[j], blocked = true, true
				}
			}
			if !blocked {
				break
			}
		}
		released = -1
		slope := dot(g, dir) // > 0: −dir is a descent direction
		// 2. Ratio test.
		smax, blocker := 1.0, -1
		for j := range signs {
			if !active[j] && sgn(j)*dir[j] > 0 {
				if s := theta[j] / dir[j]; s < smax {
					smax, blocker = s, j
				}
			}
		}
		// 4. Convergence and the KKT check.
		if blocker < 0 && (maxAbs(dir) <= tol*(1+maxAbs(theta)) || slope <= 16*eps*math.Abs(f)) {
			for j := range theta {
				theta[j] -= dir[j]
			}
			project(theta)
			f = p.objective(theta)
			worst, worstStep := -1, tol*(1+maxAbs(theta))
			for j := range signs {
				if !active[j] {
					continue
				}
				mult := sgn(j) * g[j]
				if mult >= 0 {
					continue
				}
				step := math.Inf(1)
				if hjj := h[j*m+j]; hjj > 0 {
					step = -mult / hjj
				}
				if step > worstStep {
					worst, worstStep = j, step
				}
			}
			if worst < 0 {
				return true, iter
			}
			active[worst] = false
			released = worst
			continue
		}
		// 3. Line search, first at the boundary.
		accepted := false
		step := math.Min(1, smax)
		for try := range 60 {
			for j := range theta {
				trial[j] = theta[j] - step*dir[j]
			}
			atBound := try == 0 && blocker >= 0
			if atBound {
				trial[blocker] = 0
			}
			project(trial)
			ft := p.objective(trial)
			if ft <= f-1e-4*step*slope+8*eps*math.Abs(f) {
				copy(theta, trial)
				f = ft
				if atBound {
					active[blocker] = true
				}
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
