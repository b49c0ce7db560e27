package lexical

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendPctMatchesStrconv compares appendPct's integer path with
// strconv's 'f' formatting at precision 0 on values where rounding is
// delicate: halves, their neighbours, and random shares.
func TestAppendPctMatchesStrconv(t *testing.T) {
	var vals []float64
	for i := range 2000 {
		h := float64(i) + 0.5
		vals = append(vals, float64(i), h, math.Nextafter(h, 0), math.Nextafter(h, math.Inf(1)))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		vals = append(vals, 100*r.Float64(), r.Float64()*1e15, math.Float64frombits(r.Uint64()))
	}
	vals = append(vals, 1e15, math.Nextafter(1e15, 0), 4503599627370495.5, 4503599627370497, math.Inf(1), math.NaN())
	for _, v := range vals {
		if got, want := string(appendPct(nil, v)), strconv.FormatFloat(v, 'f', 0, 64); got != want {
			t.Fatalf("appendPct(%v) = %q; strconv gives %q", v, got, want)
		}
	}
}
