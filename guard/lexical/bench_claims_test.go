package lexical_test

import (
	"context"
	"testing"
)

// BenchmarkJudgeClaims judges the claims of claimsSample in one call, the
// question and the contexts analysed once (compare BenchmarkClaimsPerCall).
func BenchmarkJudgeClaims(b *testing.B) {
	j := benchJudge(b)
	s, claims := claimsSample()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := j.JudgeClaims(ctx, &s, claims); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(claims)), "claims")
}
