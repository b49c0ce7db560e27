package lexical

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// refNumberConflicts is numberConflicts as it stands on 2026-12-06, kept
// so that any faster scan is held to it: every pair it tests calls
// conflicting. It lists each
// lone pair that might count on its own (in *pending, settled by refUnder
// and refSettle), so that the test holds the pair count to it whatever
// way numberConflicts keeps those pairs.
func (c *conflictScan) refNumberConflicts(pending *[]refMaybe) float64 {
	a, n, best := c.a, len(c.a.ctxs), 0.0
	a.quantRuns()
	*pending = (*pending)[:0]
	a.resetSimCache()
	for ci := 0; ci < n && c.refUnder(pending); ci++ {
		di := &a.ctxs[ci]
		relSent := a.relSent[a.quantBase[ci]:]
		for qi := range di.quants {
			q := &di.quants[qi]
			qf := int(q.Kind.Family())
			g1 := int(relSent[qi])
			qrel := g1 >= 0
			for cj := ci + 1; cj < n && c.refUnder(pending); cj++ {
				at := a.famAt[cj*famStride : (cj+1)*famStride]
				looked := int(at[famSlots] - at[0])
				if lo, hi := at[qf], at[qf+1]; qf != 0 && lo < hi {
					quants := a.ctxs[cj].quants
					for ri := lo; ri < hi; ri++ {
						run := &a.qruns[ri]
						both := qrel && run.rel
						if !both && run.end-run.first == 1 {
							*pending = append(*pending, refMaybe{int32(ci), int32(qi), ri})
							continue
						}
						if !conflicting(q, &quants[run.first]) {
							continue
						}
						looked += int(run.end-run.first) - 1
						c.pairs += int(run.end - run.first)
						if !both {
							continue
						}
						for r := run.rel0; r < run.rel0+run.end-run.first; r++ {
							g2 := a.relSent[r]
							if g2 < 0 {
								continue
							}
							var sim float64
							switch {
							case a.simFor[g2] == int32(g1):
								a.m.spend(int(a.setLen[g1] + a.setLen[g2]))
								sim = a.simVal[g2]
							case !a.canReach(g1, int(g2), 0.3):
								continue
							default:
								sim = c.simOf(ci, cj, g1, int(g2))
							}
							if sim >= 0.3 {
								best = max(best, sim)
								si, sj := g1-int(a.sentBase[ci]), int(g2)-int(a.sentBase[cj])
								qj := int(run.first + r - run.rel0)
								c.consider(conflictPair{ci, si, cj, sj, qi, qj, "number", sim})
							}
						}
					}
				}
				if !a.m.spend(looked) {
					return best
				}
			}
		}
	}
	return best
}

// refMaybe is a pair that may count as looked at, as numberConflicts
// listed it before pairMaybe: quantity qi of context ci and run ri.
type refMaybe struct{ ci, qi, ri int32 }

// refUnder is under as it was for the pairs listed one by one.
func (c *conflictScan) refUnder(pending *[]refMaybe) bool {
	if c.pairs+len(*pending) < maxConflictPairs {
		return true
	}
	return c.refSettle(pending)
}

// refSettle is settle as it was for the pairs listed one by one.
func (c *conflictScan) refSettle(pending *[]refMaybe) bool {
	a := c.a
	for _, p := range *pending {
		q, r := &a.ctxs[p.ci].quants[p.qi], &a.qruns[p.ri]
		if conflicting(q, &a.ctxs[r.ctx].quants[r.first]) {
			c.pairs++
		}
	}
	*pending = (*pending)[:0]
	return c.pairs < maxConflictPairs
}

// numScan is what one conflict scan of a sample leaves: numberConflicts'
// value and everything it may change that anything else reads.
type numScan struct {
	best, neg, ant          float64
	pairs, pending, settled int
	conflicts               []conflictPair
	qrel                    float64
	work                    int64
	stop                    string
}

// scanNumbers runs the conflict scans of s as conflictFeatures does, with
// numberConflicts or its reference, under a work limit (0: none), and
// then the negation and antonym scans, which go on counting its pairs.
func scanNumbers(s *guard.Sample, v *vocabulary, ref bool, limit int64) (numScan, int64) {
	a := new(analysis)
	a.m.unlimited()
	loadSample(a, s, v)
	var f featureSet
	prepare(a, &f)
	a.markRelevantSentences()
	a.buildSets(a.sentRel)
	a.weighRelevantSentences(v)
	before := a.m.work
	if limit > 0 {
		a.m.start(context.Background(), limit)
		a.m.work = before
	}
	c := conflictScan{a: a, v: v, f: &f}
	var r numScan
	var pending []refMaybe
	if ref {
		r.best = c.refNumberConflicts(&pending)
		r.pending = len(pending)
	} else {
		r.best = c.numberConflicts()
		r.pending = len(a.maybe)
	}
	r.pairs = c.pairs
	r.work, r.stop = a.m.work, string(a.m.stop)
	if ref {
		c.refSettle(&pending)
	} else {
		c.settle()
	}
	r.settled = c.pairs
	if a.m.ok() {
		r.neg = c.negationConflicts()
		r.ant = c.antonymConflicts()
	}
	r.conflicts, r.qrel = f.conflicts, c.qrel
	return r, r.work - before
}

// checkNumberConflicts holds numberConflicts to its reference on s, with
// no work limit and with limits that stop it at several points.
// It counts the samples that reach maxConflictPairs, and the scans
// the limit stops, in tally.
func checkNumberConflicts(t *testing.T, s *guard.Sample, v *vocabulary, tally *[2]int) (conflicts int) {
	t.Helper()
	if len(s.Contexts) < 2 {
		return 0
	}
	want, spent := scanNumbers(s, v, true, 0)
	got, _ := scanNumbers(s, v, false, 0)
	sameNumScan(t, s.ID, 0, got, want)
	if want.settled >= maxConflictPairs {
		tally[0]++
	}
	if spent > 0 {
		base, _ := scanNumbers(s, v, true, 0)
		start := base.work - spent
		for _, k := range []int64{1, 2, 3, 5, 8} {
			limit := start + spent*k/8
			want, _ := scanNumbers(s, v, true, limit)
			got, _ := scanNumbers(s, v, false, limit)
			sameNumScan(t, s.ID, limit, got, want)
			if want.stop != "" {
				tally[1]++
			}
		}
	}
	return len(want.conflicts)
}

func sameNumScan(t *testing.T, id string, limit int64, got, want numScan) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s (work limit %d): numberConflicts left\n%+v\nits reference\n%+v", id, limit, got, want)
	}
}

// TestNumberConflictsMatchReference holds numberConflicts to
// refNumberConflicts (the value, the conflicts in order, the pairs counted
// and the work charged, under five work limits) on every development
// sample with several contexts, on
// issue 18's numbers probe split into contexts, and on random samples
// dense with years, dates, decades and numbers in sentences of few words.
func TestNumberConflictsMatchReference(t *testing.T) {
	v := defaultVocab
	samples, conflicts, tally := 0, 0, [2]int{}
	for _, name := range []string{"hotpotqa.jsonl", "hotpotqa_ablated.jsonl", "squad_v2.jsonl", "halueval.jsonl",
		"expertqa_groundedness.jsonl", "factcheckgpt_evidence.jsonl", "wice_groundedness.jsonl", "truthfulqa.jsonl"} {
		for _, s := range DevRows(t, name) {
			conflicts += checkNumberConflicts(t, &s, v, &tally)
			samples++
		}
	}
	for _, n := range []int{10, 100, 1000, 3000} {
		for _, text := range []string{strings.Repeat("7 ", n), strings.Repeat("7 8 ", n/2), strings.Repeat("In 1990 it rose 7 feet. ", n/4+1)} {
			s := guard.Sample{ID: "probe", Question: "What number is it?", Answer: "It is 7.", Contexts: []guard.Context{
				{Text: text}, {Text: strings.Repeat("8 ", n)}, {Text: text + strings.Repeat("9 ", n)},
			}}
			conflicts += checkNumberConflicts(t, &s, v, &tally)
			samples++
		}
	}
	rng := rand.New(rand.NewPCG(18, 4))
	for i := range 300 {
		s := randomNumberSample(rng)
		s.ID = fmt.Sprint("random ", i)
		conflicts += checkNumberConflicts(t, &s, v, &tally)
		samples++
	}
	if conflicts < 1000 || tally[0] == 0 || tally[1] < 100 {
		t.Fatalf("%d number conflicts in %d samples, %d at maxConflictPairs, %d stopped: too few to tell",
			conflicts, samples, tally[0], tally[1])
	}
	t.Logf("%d samples, %d conflicts, %d at maxConflictPairs, %d scans stopped by the work limit", samples, conflicts, tally[0], tally[1])
}

// randomNumberSample makes a sample of two to six contexts of short
// sentences on one subject, each with a few quantities drawn from a small
// set, so that most pairs of contexts disagree on some of them.
func randomNumberSample(rng *rand.Rand) guard.Sample {
	quants := []string{"1990", "1991", "1990", "in 1992", "the 1990s", "about 1990", "June 1990", "June 17, 1990",
		"17 June", "500 BC", "7", "8", "7", "about 8", "5 km", "5 miles", "3 pm", "third", "20%", "$5 million", "1,990"}
	words := []string{"the", "river", "bridge", "built", "opened", "city", "museum", "founded", "was", "not",
		"tower", "height", "old", "new", "large", "small", "first", "king"}
	var s guard.Sample
	s.Question = "When was the bridge built in the city?"
	s.Answer = "The bridge was built in 1990."
	for range 2 + rng.IntN(5) {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			for k := range 2 + rng.IntN(8) {
				if k > 0 {
					b.WriteByte(' ')
				}
				if rng.IntN(3) == 0 {
					b.WriteString(quants[rng.IntN(len(quants))])
				} else {
					b.WriteString(words[rng.IntN(len(words))])
				}
			}
			b.WriteString(". ")
		}
		s.Contexts = append(s.Contexts, guard.Context{Text: b.String()})
	}
	return s
}
