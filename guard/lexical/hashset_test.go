package lexical

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHashSet checks hashSet against a linear scan for sets of every size
// it takes, with hash 0, repeated hashes and hashes that share a slot.
func TestHashSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var s hashSet
	for n := 0; n <= setSortMin; n++ {
		for round := 0; round < 20; round++ {
			hs := make([]uint64, n)
			for i := range hs {
				switch r.IntN(8) {
				case 0:
					hs[i] = 0
				case 1:
					if i > 0 {
						hs[i] = hs[r.IntN(i)] // a repeat
						continue
					}
					fallthrough
				case 2:
					hs[i] = uint64(r.IntN(4)) << 40 // few slots
				default:
					hs[i] = r.Uint64()
				}
			}
			s.fill(hs)
			probes := append(slices.Clone(hs), 0, 1<<40, 3<<40, r.Uint64(), r.Uint64())
			for _, h := range probes {
				if got, want := s.has(h), slices.Contains(hs, h); got != want {
					t.Fatalf("n=%d: has(%#x) = %v; want %v", n, h, got, want)
				}
			}
		}
	}
}
