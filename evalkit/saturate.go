package evalkit

import (
	"math"

	"github.com/ragtriage/ragtriage/guard"
)

// The report's sums saturate: a sum that would overflow stays at the
// largest value of its type, so a report over huge recorded latencies or
// token counts is still written (JSON has no +Inf) and never wraps around
// to a negative count.

// addMs returns a + b for latencies (finite and ≥ 0), at most the largest
// float64.
func addMs(a, b float64) float64 {
	s := a + b
	if s > math.MaxFloat64 || math.IsNaN(s) {
		return math.MaxFloat64
	}
	return s
}

// addCount returns a + b for counts (≥ 0), at most the largest int.
func addCount(a, b int) int {
	if b > 0 && a > math.MaxInt-b {
		return math.MaxInt
	}
	if b < 0 && a < math.MinInt-b {
		return math.MinInt
	}
	return a + b
}

// addUsage returns the field-wise saturating sum of two usages.
func addUsage(u, o guard.Usage) guard.Usage {
	return guard.Usage{
		InputTokens:  addCount(u.InputTokens, o.InputTokens),
		OutputTokens: addCount(u.OutputTokens, o.OutputTokens),
		Calls:        addCount(u.Calls, o.Calls),
		Retries:      addCount(u.Retries, o.Retries),
	}
}

// meanMs returns the mean of latencies whose sum is sum. When the sum
// saturated it sums x/n instead, which cannot overflow.
func meanMs(xs []float64, sum float64) float64 {
	n := float64(len(xs))
	if sum < math.MaxFloat64 {
		return sum / n
	}
	var m float64
	for _, x := range xs {
		m += x / n
	}
	return min(m, math.MaxFloat64)
}
