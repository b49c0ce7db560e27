package quant

import (
	"math/rand/v2"
	"testing"
)

// indexPhrases are quantities chosen to sit on the edges of Compatible and
// Approx: near values, hedges, units of one dimension, calendar against
// fixed periods, decades and partial dates, degrees, data sizes, shares.
var indexPhrases = []string{
	"7", "7.3", "8", "about 7", "about 7.5", "0", "1,500", "1500", "1,501", "20 hours", "20 days", "21 hours",
	"a month", "30 days", "4 weeks", "about 30 days", "a year", "12 months", "365 days", "1990s", "1995", "1990",
	"June 1995", "June 17", "June 17, 1995", "July 1995", "in 2000", "2000s", "5 miles", "8 km", "3 miles",
	"about 5 km", "40 degrees", "40 °C", "104 °F", "313 K", "41 °C", "1 GB", "1,024 MB", "1,000 MB", "1.1 GB",
	"30%", "a third", "33%", "34%", "half", "48%", "$5", "€5", "5 dollars", "about $5", "third", "3rd",
	"3 pm", "15:00", "noon", "6 feet", "1.8 m", "2 metres", "500 people", "500", "65-watt", "65 W",
}

// TestIndexMatchesScan compares Index.States with the pairwise predicate
// on random sets of the phrases' quantities (seeded: the same sets on
// every run).
func TestIndexMatchesScan(t *testing.T) {
	var pool []Quantity
	for _, p := range indexPhrases {
		pool = append(pool, Extract(nil, p)...)
	}
	rng := rand.New(rand.NewPCG(18, 1))
	var x Index
	for round := 0; round < 400; round++ {
		set := make([]Quantity, rng.IntN(12))
		for i := range set {
			set[i] = pool[rng.IntN(len(pool))]
		}
		x.Reset(set)
		for _, q := range pool {
			for _, mode := range [][2]bool{{true, true}, {false, false}} {
				want := false
				for _, c := range set {
					if q.Compatible(c) || mode[0] && (q.Kind == Number || c.Kind == Number) && c.Value == q.Value || mode[1] && q.Approx(c) {
						want = true
					}
				}
				if got := x.States(q, mode[0], mode[1]); got != want {
					t.Fatalf("States(%+v, %v) over %+v = %v; the scan says %v", q, mode, set, got, want)
				}
			}
		}
	}
}

// TestSlotOf checks that, for pairs neither Compatible nor Approx, SameSlot
// is equality of SlotOf.
func TestSlotOf(t *testing.T) {
	var pool []Quantity
	for _, p := range indexPhrases {
		pool = append(pool, Extract(nil, p)...)
	}
	for _, q := range pool {
		for _, c := range pool {
			if q.Compatible(c) || q.Approx(c) {
				continue
			}
			s1, ok1 := SlotOf(q)
			s2, ok2 := SlotOf(c)
			if got := ok1 && ok2 && s1 == s2; got != q.SameSlot(c) {
				t.Errorf("%+v, %+v: same SlotOf %v; SameSlot %v", q, c, got, q.SameSlot(c))
			}
		}
	}
}
