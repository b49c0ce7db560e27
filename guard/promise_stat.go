package guard

import "math"

// The promise monitor's test statistic (see PromiseMonitor).
//
// A side's audits are Bernoulli draws X_1, X_2, … (1: the teacher
// disagreed with the automatic verdict), with disagreement rate q. The
// null hypothesis is q ≤ α. For a fixed p ≥ α the likelihood ratio
//
//	L_p(n) = Π_i (p/α)^X_i ((1−p)/(1−α))^(1−X_i) = (p/α)^k ((1−p)/(1−α))^(n−k)
//
// (n audits, k disagreements) has E[L_p(n+1)/L_p(n) | past] = q·p/α +
// (1−q)(1−p)/(1−α) ≤ 1 whenever q ≤ α ≤ p: a nonnegative supermartingale
// with L_p(0) = 1 under every null rate. So is any mixture of them over p ∈
// [α, 1]. The monitor mixes over a Beta(a, b) prior truncated to [α, 1]:
//
//	M_n = ∫_α^1 L_p(n) dπ(p)
//	    = B(a+k, b+n−k)·(1 − I_α(a+k, b+n−k)) / (B(a, b)·(1 − I_α(a, b)) · α^k (1−α)^(n−k))
//
// with B the beta function and I the regularized incomplete beta function.
// By Ville's inequality, P(M_n ≥ 1/δ for some n) ≤ δ under every q ≤ α, so
// M_n may be checked after every audit, and the monitor trips the first
// time it reaches 1/δ. M_n depends on (n, k) only: replicas that add their
// audits to two shared counters test the fleet's stream as one.

// logMixture returns ln M_n for n audits with k disagreements, null rate
// alpha and a Beta(a, b) prior truncated to [alpha, 1]. logZ is
// ln(B(a,b)·(1−I_alpha(a,b))), the prior's normalizer (promiseLogZ).
func logMixture(n, k int64, alpha, a, b, logZ float64) float64 {
	if n <= 0 {
		return 0
	}
	fk, fm := float64(k), float64(n-k)
	return lnBeta(a+fk, b+fm) + logUpperBeta(alpha, a+fk, b+fm) - logZ -
		fk*math.Log(alpha) - fm*math.Log1p(-alpha)
}

// promiseLogZ is ln(B(a,b)·(1−I_alpha(a,b))).
func promiseLogZ(alpha, a, b float64) float64 {
	return lnBeta(a, b) + logUpperBeta(alpha, a, b)
}

// logMaxRatio is ln sup_{p ∈ [α,1]} L_p(n) = n·KL(k/n ‖ α) when k/n > α,
// else 0: an upper bound of ln M_n (a mixture is at most its largest
// component), cheap enough to skip the exact value when it is below the
// trip level.
func logMaxRatio(n, k int64, alpha float64) float64 {
	if n <= 0 || float64(k) <= alpha*float64(n) {
		return 0
	}
	fn, fk := float64(n), float64(k)
	q := fk / fn
	r := fk * math.Log(q/alpha)
	if k < n {
		r += (fn - fk) * math.Log((1-q)/(1-alpha))
	}
	return r
}

// lnBeta is ln B(a, b) for a, b > 0.
func lnBeta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return la + lb - lab
}

// logUpperBeta is ln(1 − I_x(a, b)) = ln I_{1−x}(b, a), computed in logs so
// that a tail far below the smallest float64 stays finite.
func logUpperBeta(x, a, b float64) float64 {
	return logIncBeta(1-x, b, a)
}

// logIncBeta is ln I_x(a, b), the log of the regularized incomplete beta
// function, for 0 ≤ x ≤ 1 and a, b > 0.
//
// I_x(a,b) = x^a (1−x)^b / (a·B(a,b)) · F(x; a, b), where F is the continued
// fraction 1/(1+ d_1/(1+ d_2/(1+ …))) with
//
//	d_{2m+1} = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1)),  d_{2m} = m(b−m)x / ((a+2m−1)(a+2m)),
//
// which converges fast for x < (a+1)/(a+b+2); above that, I_x(a,b) = 1 −
// I_{1−x}(b,a) is used instead. F is evaluated with the modified Lentz
// method.
func logIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return math.Inf(-1)
	case x >= 1:
		return 0
	}
	logFront := a*math.Log(x) + b*math.Log1p(-x) - lnBeta(a, b)
	if x < (a+1)/(a+b+2) {
		return logFront - math.Log(a) + math.Log(betaCF(x, a, b))
	}
	// 1 − I_{1−x}(b, a); the same front factor.
	return math.Log1p(-math.Exp(logFront - math.Log(b) + math.Log(betaCF(1-x, b, a))))
}

// betaCF evaluates the continued fraction F(x; a, b) of logIncBeta.
func betaCF(x, a, b float64) float64 {
	const (
		tiny = 1e-300
		eps  = 1e-15
	)
	// The iteration count grows like sqrt(max(a, b)); the bound only
	// stops a pathological input.
	maxIter := 200 + int(10*math.Sqrt(max(a, b)))
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		// Even step.
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		f *= d * c
		// Odd step.
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		f *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return f
}
