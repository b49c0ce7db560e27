package lexical

import (
	"math"
	"math/bits"
	"slices"

	"github.com/ragtriage/ragtriage/guard/lexical/internal/quant"
)

// conflictFeatures looks for pairs of context sentences that talk about the
// same thing and disagree: the same quantity slot with different values, or
// one negated and the other not, or an antonym swap. Word membership in a
// sentence is read from the sentence sets (see buildSets), which only
// the relevant sentences need: relevance is found first, without them.
func (a *analysis) conflictFeatures(f *featureSet, v *vocabulary) {
	if len(a.ctxs) < 2 {
		// One context cannot disagree with another.
		f.conflict = append(f.conflict, 0, 0, 0, 0)
		return
	}
	a.m.at("comparing the contexts with each other")
	a.markRelevantSentences()
	a.buildSets(a.sentRel)
	a.weighRelevantSentences(v)
	c := conflictScan{a: a, v: v, f: f}
	numC := c.numberConflicts()
	negC := c.negationConflicts()
	antC := c.antonymConflicts()
	f.conflict = append(f.conflict, numC, negC, antC, c.qrel)
}

// markRelevantSentences records which context sentences share a content
// word with the question or the answer (sentRel). Negation and antonym
// conflicts are looked for only between those: a conflict matters when the
// answer depends on it, and the pairs of unrelated sentences in long
// contexts are most of the cost.
func (a *analysis) markRelevantSentences() {
	if a.nsent*(len(a.q.toks)+len(a.a.toks)) <= relScanMax {
		a.markRelevantByScan()
		return
	}
	if a.relSet == nil {
		a.relSet = map[uint64]struct{}{}
	}
	clear(a.relSet)
	for _, d := range [2]*doc{&a.q, &a.a} {
		for i := range d.toks {
			if t := &d.toks[i]; t.content() {
				a.relSet[t.hash] = struct{}{}
			}
		}
	}
	a.sentRel = a.sentRel[:0]
	for ci := range a.ctxs {
		d := &a.ctxs[ci]
		for k := range d.sents {
			rel := false
			for _, t := range d.sentToks(k) {
				if _, ok := a.relSet[t.hash]; ok {
					rel = true
					break
				}
			}
			a.sentRel = append(a.sentRel, rel)
		}
		a.m.spend(len(d.toks))
	}
}

// relScanMax is the number of sentence × word lookups up to which
// markRelevantSentences scans the sentences for the question's and the
// answer's words (the term index finds most) rather than build a set of
// them.
var relScanMax = 1 << 16

// markRelevantByScan is markRelevantSentences by looking for every content
// word of the question and the answer in every sentence. The sentences
// that hold one of them as a content word are read from the term index,
// which lists the words' occurrences; only the others are scanned token by
// token (a word may stand in them as a function word), each token's hash
// tried first on a 256-bit signature of the words.
func (a *analysis) markRelevantByScan() {
	hs := a.relHashes[:0]
	var sig [4]uint64
	for _, d := range [2]*doc{&a.q, &a.a} {
		for i := range d.toks {
			if t := &d.toks[i]; t.content() {
				hs = append(hs, t.hash)
				sig[t.hash>>62] |= 1 << (t.hash >> 56 & 63)
			}
		}
	}
	a.relHashes = hs
	rel := slices.Grow(a.sentRel[:0], a.nsent)[:a.nsent]
	clear(rel)
	for _, h := range hs {
		for o := a.head(h); o != 0; o = a.occ[o-1].next {
			rel[a.occ[o-1].sent] = true
		}
	}
	for ci := range a.ctxs {
		d, g := &a.ctxs[ci], int(a.sentBase[ci])
		for k := range d.sents {
			if !rel[g+k] {
				rel[g+k] = holdsAny(d.sentToks(k), &sig, hs)
			}
		}
	}
	a.sentRel = rel
}

// holdsAny reports whether a token of run has one of the hashes hs, whose
// signature (as setSig's) is sig.
func holdsAny(run []token, sig *[4]uint64, hs []uint64) bool {
	for i := range run {
		if h := run[i].hash; sig[h>>62]&(1<<(h>>56&63)) != 0 && slices.Contains(hs, h) {
			return true
		}
	}
	return false
}

// maxConflictPairs bounds the sentence pairs one sample's conflict search
// looks at.
const maxConflictPairs = 4096

// conflictScan is one search for conflicting context sentences: the pairs
// looked at so far, across the three kinds of conflict, and the question
// relevance of the strongest conflict found.
type conflictScan struct {
	a     *analysis
	v     *vocabulary
	f     *featureSet
	pairs int
	qrel  float64
}

// pairMaybe is a pair of quantities (quantity qi of context ci, run ri of
// a.qruns) that counts as a pair looked at if the two are in the same slot
// with different values, and matters for nothing else: numberConflicts
// leaves the test to under, which makes it only when the count nears
// maxConflictPairs.
type pairMaybe struct{ ci, qi, ri int32 }

// under reports whether fewer than maxConflictPairs sentence pairs were
// looked at, settling the pairs that might count (see pairMaybe) only when
// they could reach the limit.
func (c *conflictScan) under() bool {
	if c.pairs+len(c.a.maybe) < maxConflictPairs {
		return true
	}
	return c.settle()
}

// settle tests the pairs that might count and reports whether fewer than
// maxConflictPairs pairs were looked at.
func (c *conflictScan) settle() bool {
	a := c.a
	for _, p := range a.maybe {
		q, r := &a.ctxs[p.ci].quants[p.qi], &a.qruns[p.ri]
		if conflicting(q, &a.ctxs[r.ctx].quants[r.first]) {
			c.pairs++
		}
	}
	a.maybe = a.maybe[:0]
	return c.pairs < maxConflictPairs
}

// conflicting reports whether q and r are in the same slot with values
// that differ.
func conflicting(q, r *quant.Quantity) bool { return quant.Conflicts(q, r) }

// quantRun is a run of quantities of one context that are equal but for
// where they stand: any quantity meets all of a run's members alike, so
// numberConflicts compares it with the run once.
type quantRun struct {
	first, end int32      // the run's quantities, by index within the context
	ctx        int32      // the context
	rel0       int32      // index in a.relSent of the run's first quantity
	fam        quant.Kind // their slot family
	rel        bool       // the sentence of a quantity of the run is relevant (sentRel)
}

// quantRuns splits each context's quantities into runs and lays them out
// in a.qruns by context, then by slot family, each family's runs in the
// order of their quantities: the runs of family f in context ci are
// a.qruns[a.famAt[ci*famStride+f]:a.famAt[ci*famStride+f+1]], and all of
// the context's runs end at a.famAt[ci*famStride+famSlots]. It records the
// sentence of quantity k of context ci at a.relSent[a.quantBase[ci]+k] as
// its global index when it is relevant (sentRel), -1 when it is not or
// there is none: numberConflicts compares the sentences of two quantities
// only when both are relevant. Run it after markRelevantSentences.
func (a *analysis) quantRuns() {
	runs, tmp := a.qruns[:0], a.runTmp
	relSent, base := a.relSent[:0], a.quantBase[:0]
	famAt := slices.Grow(a.famAt[:0], len(a.ctxs)*famStride)[:len(a.ctxs)*famStride]
	for ci := range a.ctxs {
		d := &a.ctxs[ci]
		qs := d.quants
		base = append(base, int32(len(relSent)))
		tmp = tmp[:0]
		var count [famSlots]int32 // the context's runs of each family
		k0 := 0
		for k := range qs {
			sk := sentOfFrom(d, qs[k].Start, &k0)
			g := -1
			if sk >= 0 && a.sentRel[a.global(ci, sk)] {
				g = a.global(ci, sk)
			}
			rel := g >= 0
			if k > 0 && sameQuantity(qs[k-1], qs[k]) {
				tmp[len(tmp)-1].end++
				tmp[len(tmp)-1].rel = tmp[len(tmp)-1].rel || rel
			} else {
				f := qs[k].Kind.Family()
				tmp = append(tmp, quantRun{first: int32(k), end: int32(k + 1), ctx: int32(ci), rel0: int32(len(relSent)), fam: f, rel: rel})
				count[f]++
			}
			relSent = append(relSent, int32(g))
		}
		// Each family's runs from where the ones before it end.
		at := famAt[ci*famStride : (ci+1)*famStride]
		end := int32(len(runs))
		var next [famSlots]int32
		for f := range count {
			at[f], next[f] = end, end
			end += count[f]
		}
		at[famSlots] = end
		runs = slices.Grow(runs, len(tmp))[:end]
		for _, r := range tmp {
			runs[next[r.fam]] = r
			next[r.fam]++
		}
	}
	a.qruns, a.runTmp, a.famAt, a.relSent, a.quantBase = runs, tmp, famAt, relSent, base
}

// famSlots is the room famAt has for each context: a slot for every kind
// of quantity (and kind 0), each family's slot being its Family kind.
const famSlots = int(quant.Ordinal) + 1 // TestFamSlotsHoldEveryKind checks it

// famStride is the entries of famAt for each context: the start of each
// family slot's runs, and the end of the last.
const famStride = famSlots + 1

// sameQuantity reports whether two quantities are equal but for their spans.
func sameQuantity(x, y quant.Quantity) bool {
	x.Start, x.End, y.Start, y.End = 0, 0, 0, 0
	return x == y
}

// consider records conflict p and how much the question bears on it.
func (c *conflictScan) consider(p conflictPair) {
	a := c.a
	a.m.spend(2 * len(a.q.toks))
	c.f.conflicts = append(c.f.conflicts, p)
	g1, g2 := a.global(p.ci, p.si), a.global(p.cj, p.sj)
	qr := math.Max(c.questionCoverage(g1), c.questionCoverage(g2))
	c.qrel = math.Max(c.qrel, qr*p.score)
}

// questionCoverage is the weighted share of the question's content words
// that context sentence g (a global index) holds, computed once per
// sentence in a scan: the conflicts found often share a sentence.
func (c *conflictScan) questionCoverage(g int) float64 {
	a := c.a
	if a.qcov[g] >= 0 {
		return a.qcov[g]
	}
	q := coverage(a.q.toks, c.v, func(t *token) bool { return a.sentHas(g, t.hash) })
	a.qcov[g] = q
	return q
}

// simOf is a.similarity of sentences g1 and g2 (global indices of
// sentences of contexts ci and cj) when it is at least 0.3, and a
// value below 0.3 otherwise (similarityAbove), remembered for the last g1:
// quantities of one sentence meet the same sentences of other contexts
// again (resetSimCache empties the memory for each sample).
// numberConflicts reads the memory (simFor, simVal) in place and calls
// simOf when it misses; a remembered value is charged to the work meter
// as similarity charges it, the two sentences' lengths (setLen).
func (c *conflictScan) simOf(ci, cj, g1, g2 int) float64 {
	a := c.a
	sim := a.similarityAbove(ci, g1-int(a.sentBase[ci]), cj, g2-int(a.sentBase[cj]), c.v, 0.3)
	a.simFor[g2], a.simVal[g2] = int32(g1), sim
	return sim
}

// resetSimCache sizes simOf's memory to the sample's sentences and empties it.
func (a *analysis) resetSimCache() {
	a.simFor = slices.Grow(a.simFor[:0], a.nsent)[:a.nsent]
	a.simVal = slices.Grow(a.simVal[:0], a.nsent)[:a.nsent]
	for i := range a.simFor {
		a.simFor[i] = -1
	}
}

// numberConflicts finds quantities of two contexts in the same slot with
// different values, stated in similar sentences, and returns the highest
// similarity found. A quantity is compared with the runs of its slot family
// only; the work meter is charged as if it stepped through every run of the
// other context, and through each member of a run it conflicts with, as the
// plain scan does. A pair of quantities whose sentences cannot both be
// relevant, where the other is alone in its run, only counts as a pair
// looked at if it conflicts: it is tested only when the count matters (see
// pairMaybe).
func (c *conflictScan) numberConflicts() float64 {
	a, n, best := c.a, len(c.a.ctxs), 0.0
	a.quantRuns()
	a.maybe = a.maybe[:0]
	a.resetSimCache()
	for ci := 0; ci < n && c.under(); ci++ {
		di := &a.ctxs[ci]
		relSent := a.relSent[a.quantBase[ci]:]
		for qi := range di.quants {
			q := &di.quants[qi]
			qf := int(q.Kind.Family()) // 0 for kind 0: no slot
			g1 := int(relSent[qi])     // -1: no relevant sentence
			qrel := g1 >= 0
			for cj := ci + 1; cj < n && c.under(); cj++ {
				at := a.famAt[cj*famStride : (cj+1)*famStride]
				looked := int(at[famSlots] - at[0])
				if lo, hi := at[qf], at[qf+1]; qf != 0 && lo < hi {
					quants := a.ctxs[cj].quants
					for ri := lo; ri < hi; ri++ {
						run := &a.qruns[ri]
						both := qrel && run.rel
						if !both && run.end-run.first == 1 {
							a.maybe = append(a.maybe, pairMaybe{int32(ci), int32(qi), ri})
							continue
						}
						if !conflicting(q, &quants[run.first]) {
							continue
						}
						// Every member of the run is a pair looked at.
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
								// simOf's memory, read in place: the
								// pair passed canReach before.
								a.m.spend(int(a.setLen[g1] + a.setLen[g2]))
								sim = a.simVal[g2]
							case !a.canReach(g1, int(g2), 0.3):
								continue
							default:
								sim = c.simOf(ci, cj, g1, int(g2))
							}
							if sim >= 0.3 {
								best = math.Max(best, sim)
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

// negationConflicts finds a negated sentence and a similar one of another
// context that is not negated, and returns the highest similarity found.
// Only sentences with a negation are candidates, so the pair count stays
// small.
func (c *conflictScan) negationConflicts() float64 {
	a, n, best := c.a, len(c.a.ctxs), 0.0
	for ci := 0; ci < n && c.under(); ci++ {
		di := &a.ctxs[ci]
		for si := range di.sents {
			if g := a.global(ci, si); !a.sentNeg[g] || !a.sentRel[g] {
				continue
			}
			for cj := 0; cj < n && c.under(); cj++ {
				if cj == ci {
					continue
				}
				dj := &a.ctxs[cj]
				if !a.m.spend(len(dj.sents)) {
					return best
				}
				for sj := range dj.sents {
					c.pairs++
					if g2 := a.global(cj, sj); !a.sentNeg[g2] && a.sentRel[g2] && a.canReach(a.global(ci, si), g2, 0.6) {
						if sim := a.similarityAbove(ci, si, cj, sj, c.v, 0.6); sim >= 0.6 {
							best = math.Max(best, sim)
							c.consider(conflictPair{ci, si, cj, sj, -1, -1, "negation", sim})
						}
					}
				}
			}
		}
	}
	return best
}

// antonymConflicts finds, for each context word with antonyms (listed by
// simRun), the similar sentences of other contexts that hold one of its
// antonyms (read from the term index) and not the word itself, and returns
// the highest similarity found. Only relevant sentences are looked at (their
// runs are built by weighRelevantSentences), so the words of the others
// are skipped whole.
func (c *conflictScan) antonymConflicts() float64 {
	a, n, best := c.a, len(c.a.ctxs), 0.0
	for i := range a.winSeen {
		a.winSeen[i] = -1 // winSeen[g2] = g1: the pair was looked at
	}
	for ci := 0; ci < n && c.under(); ci++ {
		di := &a.ctxs[ci]
		for si := range di.sents {
			g1 := int32(a.global(ci, si))
			if !a.sentRel[g1] {
				continue
			}
			ants := a.simInfo[g1].ant
			for _, ti := range a.antToks[ants[0]:ants[1]] {
				t := &di.toks[ti]
				for _, ant := range antonymOf.of(t.hash) {
					if a.head(ant) == 0 {
						continue // no context holds the antonym
					}
					if sim, ok := c.antonymIn(ci, si, g1, t.hash, ant); ok {
						best = math.Max(best, sim)
					}
				}
			}
		}
	}
	for i := range a.winSeen {
		a.winSeen[i] = -1 // as score expects it
	}
	return best
}

// antonymIn looks through the sentences of other contexts holding ant, the
// antonym of word h of sentence si of context ci (global index g1), for
// those that lack h and are similar to it. It returns the highest
// similarity found and whether it found one.
func (c *conflictScan) antonymIn(ci, si int, g1 int32, h, ant uint64) (float64, bool) {
	a, best, found := c.a, 0.0, false
	for o := a.head(ant); o != 0 && c.under(); o = a.occ[o-1].next {
		if !a.m.spend(1) {
			break
		}
		oc := &a.occ[o-1]
		cj := int(oc.ctx)
		if cj == ci {
			continue
		}
		if a.winSeen[oc.sent] == g1 || !a.sentRel[oc.sent] {
			continue
		}
		c.pairs++
		sj := int(oc.sent) - int(a.sentBase[cj])
		if a.sentHas(int(oc.sent), h) {
			continue
		}
		a.winSeen[oc.sent] = g1
		if !a.canReach(int(g1), int(oc.sent), 0.5) {
			continue
		}
		if sim := a.similarityAbove(ci, si, cj, sj, c.v, 0.5); sim >= 0.5 {
			best, found = math.Max(best, sim), true
			c.consider(conflictPair{ci, si, cj, sj, -1, -1, "antonym", sim})
		}
	}
	return best, found
}

// global returns the global index of sentence k of context ci.
func (a *analysis) global(ci, k int) int { return int(a.sentBase[ci]) + k }

// buildSets records, for the context sentences g with only[g] (every
// sentence when only is nil), the hashes of its tokens, a 256-bit
// signature of them (a Bloom filter with one hash function: most lookups
// of absent words stop there), and whether it holds a negation. The
// conflict scans read the sets of relevant sentences only (sentRel): every
// other sentence gets an empty set and signature, no negation, and its
// token count (setLen). The hashes of a sentence of more than setSortMin
// tokens are sorted and made distinct, so that sentHas is a binary search;
// a shorter sentence's stay in token order, to be scanned: sorting every
// short sentence cost more than the scans it would spare.
func (a *analysis) buildSets(only []bool) {
	// Every table is sized once and written in place: a sentence's set
	// holds at most its tokens.
	ntok := 0
	for ci := range a.ctxs {
		ntok += len(a.ctxs[ci].toks)
	}
	hs := slices.Grow(a.setHashes[:0], ntok)[:ntok]
	setAt := slices.Grow(a.setAt[:0], a.nsent+1)[:a.nsent+1]
	setLen := slices.Grow(a.setLen[:0], a.nsent)[:a.nsent]
	setSig := slices.Grow(a.setSig[:0], a.nsent)[:a.nsent]
	sorted := slices.Grow(a.setSorted[:0], a.nsent)[:a.nsent]
	neg := slices.Grow(a.sentNeg[:0], a.nsent)[:a.nsent]
	n, g := 0, 0
	for ci := range a.ctxs {
		d := &a.ctxs[ci]
		for k := range d.sents {
			run := d.sentToks(k)
			setAt[g], setLen[g] = int32(n), int32(len(run))
			if only != nil && !only[g] {
				setSig[g], sorted[g], neg[g] = [4]uint64{}, false, false
				g++
				continue
			}
			set := hs[n : n+len(run)]
			var sig [4]uint64
			var flags uint16 // of all the sentence's tokens
			for i := range run {
				h := run[i].hash
				set[i] = h
				sig[h>>62] |= 1 << (h >> 56 & 63)
				flags |= run[i].flags
			}
			setSig[g] = sig
			sorted[g] = len(run) > setSortMin
			if sorted[g] {
				slices.Sort(set)
				set = slices.Compact(set)
			}
			neg[g] = flags&fNeg != 0 // hasNeg(run)
			n += len(set)
			g++
		}
	}
	setAt[g] = int32(n)
	a.setHashes, a.setAt, a.setLen, a.setSig, a.setSorted, a.sentNeg = hs[:n], setAt, setLen, setSig, sorted, neg
	a.simTabs[0].g, a.simTabs[1].g = -1, -1 // the sets they held are gone
	a.resetSimRuns()
	a.qcov = slices.Grow(a.qcov[:0], a.nsent)[:a.nsent]
	for i := range a.qcov {
		a.qcov[i] = -1 // not computed (see questionCoverage)
	}
}

// setSortMin is the number of tokens above which a sentence's set is sorted
// (see buildSets).
const setSortMin = 64

// weighRelevantSentences records the weighted size of every relevant
// context sentence (sentW), as similarity counts it, and 0 for the others:
// canReach reads it only for pairs of relevant sentences, so the weights of
// the others are never looked up. It builds the relevant sentences' runs
// (simRun) on the way, which similarity reads next.
func (a *analysis) weighRelevantSentences(v *vocabulary) {
	a.sentW = a.sentW[:0]
	for ci := range a.ctxs {
		d := &a.ctxs[ci]
		for k := range d.sents {
			g := a.global(ci, k)
			w := 0.0
			if a.sentRel[g] {
				a.simRun(ci, k, g, v)
				w = a.simInfo[g].w // the run's weights added in order
			}
			a.sentW = append(a.sentW, w)
		}
	}
}

// sentHas reports whether a token of context sentence g (a global index)
// had hash h when the sets were built.
func (a *analysis) sentHas(g int, h uint64) bool {
	if a.setSig[g][h>>62]&(1<<(h>>56&63)) == 0 {
		return false
	}
	set := a.setHashes[a.setAt[g]:a.setAt[g+1]]
	if a.setSorted[g] {
		_, ok := slices.BinarySearch(set, h)
		return ok
	}
	for _, x := range set {
		if x == h {
			return true
		}
	}
	return false
}

// sentOfFrom returns the sentence of d holding byte offset off, -1 for
// none, for offsets asked in ascending order: *k, 0 at first, is where the
// search for the next one starts (an offset below the last one asked starts
// over). Sentences are in text order and do not overlap.
func sentOfFrom(d *doc, off int, k *int) int {
	if *k > 0 && (*k > len(d.sents) || d.sents[*k-1].end > off) {
		*k = 0
	}
	for *k < len(d.sents) && d.sents[*k].end <= off {
		*k++
	}
	if *k < len(d.sents) && off >= d.sents[*k].start {
		return *k
	}
	return -1
}

// similarity is the weighted Jaccard index of the content words (numbers
// excluded) of sentence k1 of context c1 and sentence k2 of context c2: the
// weights of the first's words, the shared ones in the intersection, over
// those of the first's words and the second's words the first lacks, every
// occurrence counted, summed in token order. Each word is looked up in the
// other sentence's set (buildSets); similarityAbove spares most pairs
// even that.
func (a *analysis) similarity(c1, k1, c2, k2 int, v *vocabulary) float64 {
	return a.similarityAbove(c1, k1, c2, k2, v, 0)
}

// similarityAbove is similarity when that is at least thr, and otherwise a
// value below thr (an upper bound of it): the conflict scans only compare
// similarities with their threshold. Two bounds spare most pairs the exact
// count. roughBound reads only the two sentences' summaries (simInfo).
// The second reads each word's presence from the other sentence's
// signature, which never misses a word it holds: the weights of the words
// that may be shared over those of the first sentence's words and the
// second's words it certainly lacks, tried first over the first sentence's
// words alone: most pairs are settled before the second's are read. The
// sums add a part of similarity's terms, in its order, or a superset of
// them; rounding keeps the order, so the bound is never below the exact
// value.
func (a *analysis) similarityAbove(c1, k1, c2, k2 int, v *vocabulary, thr float64) float64 {
	g1, g2 := a.global(c1, k1), a.global(c2, k2)
	a.m.spend(int(a.setLen[g1] + a.setLen[g2]))
	// simRun, with the test for a built run in place: the runs of the
	// sentences the scans compare are built before (weighRelevantSentences).
	if a.simAt[g1][0] < 0 || a.simAt[g2][0] < 0 {
		a.simRun(c1, k1, g1, v)
		a.simRun(c2, k2, g2, v)
	}
	if thr > 0 {
		if ub := a.roughBound(g1, g2, thr); ub < thr {
			return ub
		}
	}
	at1, at2 := a.simAt[g1], a.simAt[g2]
	r1, r2 := a.simToks[at1[0]:at1[1]], a.simToks[at2[0]:at2[1]]
	if thr > 0 {
		sig1, sig2 := &a.setSig[g1], &a.setSig[g2]
		maybe := 0.0
		for _, t := range r1 {
			if h := t.hash; sig2[h>>62]&(1<<(h>>56&63)) != 0 {
				maybe += t.w
			}
		}
		// The union holds the first sentence's words, which similarity
		// adds first: their weights in order, the run's summed weight.
		lacks := a.simInfo[g1].w
		if lacks > 0 {
			if ub := maybe / lacks; ub < thr {
				return ub
			}
		}
		for _, t := range r2 {
			if h := t.hash; sig1[h>>62]&(1<<(h>>56&63)) == 0 {
				lacks += t.w
			}
		}
		if lacks > 0 {
			if ub := maybe / lacks; ub < thr {
				return ub
			}
		}
	}
	inter, union := 0.0, 0.0
	if a.setSorted[g1] || a.setSorted[g2] {
		// A long sentence's set is sorted: sentHas searches it.
		for _, t := range r1 {
			union += t.w
			if a.sentHas(g2, t.hash) {
				inter += t.w
			}
		}
		for _, t := range r2 {
			if !a.sentHas(g1, t.hash) {
				union += t.w
			}
		}
	} else {
		// A short sentence's set is in token order, and a hit scans
		// half of it: each side's words are looked up in a table of the
		// other's set instead, built for this pair.
		set2 := a.hashTable(g2)
		for _, t := range r1 {
			union += t.w
			if set2.has(t.hash) {
				inter += t.w
			}
		}
		set1 := a.hashTable(g1)
		for _, t := range r2 {
			if !set1.has(t.hash) {
				union += t.w
			}
		}
	}
	if union == 0 {
		return 0
	}
	return inter / union
}

// hashTable returns a table of the hashes of sentence g's set (an
// unsorted one, of at most setSortMin hashes), one of the two a.simTabs:
// the one that holds it already, or else the one not asked for last.
// Consecutive pairs often share a sentence.
func (a *analysis) hashTable(g int) *hashSet {
	i := a.tabLast
	if a.simTabs[i].g != g {
		i ^= 1
		if a.simTabs[i].g != g {
			a.simTabs[i].fill(a.setHashes[a.setAt[g]:a.setAt[g+1]])
			a.simTabs[i].g = g
		}
	}
	a.tabLast = i
	return &a.simTabs[i]
}

// hashSet is a small open-addressing set of hashes, for at most setSortMin
// of them: the exact similarity of two short sentences looks every word of
// one up in the other's set.
type hashSet struct {
	slots [hashSetMax]uint64 // 0: empty
	mask  uint64             // the slots in use: a power of two minus one
	g     int                // the global index of the sentence whose set it is, -1 for none
	zero  bool               // the set holds hash 0, which marks an empty slot
}

// hashSetMax is the most slots a hashSet uses: twice setSortMin, so that
// at most half are taken.
const hashSetMax = 2 * setSortMin

// fill makes t the set of hs (at most setSortMin hashes), using the fewest
// slots that leave at least half of them empty.
func (t *hashSet) fill(hs []uint64) {
	n := 16
	for n < 2*len(hs) {
		n *= 2
	}
	t.mask, t.zero = uint64(n-1), false
	clear(t.slots[:n])
	for _, h := range hs {
		if h == 0 {
			t.zero = true
			continue
		}
		i := hashSlot(h) & t.mask
		for t.slots[i] != 0 && t.slots[i] != h {
			i = (i + 1) & t.mask
		}
		t.slots[i] = h
	}
}

// has reports whether t holds h.
func (t *hashSet) has(h uint64) bool {
	if h == 0 {
		return t.zero
	}
	for i := hashSlot(h) & t.mask; ; i = (i + 1) & t.mask {
		switch t.slots[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// hashSlot spreads a hash's bits over its low ones, where hashSet reads
// the slot.
func hashSlot(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15) >> 32 }

// roughBound is an upper bound of the similarity of sentences g1 and g2
// (global indices, their runs built) from their summaries alone, +Inf when
// it has none: similarityAbove's first, rougher bound. At most n1 words of
// g1's run have their bit in g2's signature (the bits the two share, plus
// the run's repeated bits), so the intersection weighs at most n1 times the
// run's largest weight, and at most the run's weight; likewise at most n2
// words of g2's run may be in g1, so the union weighs at least g1's run and
// the rest of g2's. The sums similarity adds differ from these by rounding,
// far less than roughSlack for any sentence a sample can hold: the bound
// leaves that much room on each side.
func (a *analysis) roughBound(g1, g2 int, thr float64) float64 {
	s1, s2 := &a.simInfo[g1], &a.simInfo[g2]
	set1, set2 := &a.setSig[g1], &a.setSig[g2]
	if s1.w <= 0 {
		return math.Inf(1)
	}
	// Plain comparisons rather than min and max, which also order NaNs
	// and signed zeros: the weights are neither.
	n1 := int(s1.dup) + bits.OnesCount64(s1.sig[0]&set2[0]) + bits.OnesCount64(s1.sig[1]&set2[1]) +
		bits.OnesCount64(s1.sig[2]&set2[2]) + bits.OnesCount64(s1.sig[3]&set2[3])
	inter := float64(n1) * s1.maxw * (1 + roughSlack)
	if inter > s1.w {
		inter = s1.w
	}
	if ub := inter / s1.w * (1 + roughSlack); ub < thr {
		return ub // the union weighs at least s1.w
	}
	n2 := int(s2.dup) + bits.OnesCount64(s2.sig[0]&set1[0]) + bits.OnesCount64(s2.sig[1]&set1[1]) +
		bits.OnesCount64(s2.sig[2]&set1[2]) + bits.OnesCount64(s2.sig[3]&set1[3])
	union := s1.w
	if rest := s2.w*(1-roughSlack) - float64(n2)*s2.maxw*(1+roughSlack); rest > 0 {
		union += rest
	}
	return inter / union * (1 + roughSlack)
}

// roughSlack is roughBound's room for rounding: the relative error of a
// sum of n weights is below n times 2^-53, under 1e-7 up to a billion
// words.
const roughSlack = 1e-6

// simTok is a content word (not a number) of a context sentence, as
// similarity reads it: its weight and its hash.
type simTok struct {
	w    float64
	hash uint64
}

// resetSimRuns forgets the runs simRun built from the previous sentence
// sets.
func (a *analysis) resetSimRuns() {
	a.simToks = a.simToks[:0]
	a.antToks = a.antToks[:0]
	a.simAt = slices.Grow(a.simAt[:0], a.nsent)[:a.nsent]
	a.simInfo = slices.Grow(a.simInfo[:0], a.nsent)[:a.nsent]
	for i := range a.simAt {
		a.simAt[i] = [2]int32{-1, -1}
		a.simInfo[i] = simInfo{} // a pooled analysis keeps the last sample's
	}
}

// simRun returns the content words but numbers of sentence k of context ci
// (global index g), in order, building the run and its summary
// (a.simInfo[g]) the first time it is asked for in a sample.
func (a *analysis) simRun(ci, k, g int, v *vocabulary) []simTok {
	if at := a.simAt[g]; at[0] >= 0 {
		return a.simToks[at[0]:at[1]]
	}
	start := len(a.simToks)
	d := &a.ctxs[ci]
	base, run := d.sentAt[k], d.sentToks(k)
	info := simInfo{ant: [2]int32{int32(len(a.antToks)), 0}}
	for i := range run {
		t := &run[i]
		if !t.content() {
			continue
		}
		if t.flags&fAnt != 0 {
			a.antToks = append(a.antToks, base+int32(i))
		}
		if t.flags&fNum != 0 {
			continue
		}
		w, h := v.weight(t), t.hash
		a.simToks = append(a.simToks, simTok{w: w, hash: h})
		info.w += w
		if w > info.maxw { // not max, which also orders NaNs and signed zeros
			info.maxw = w
		}
		bit := uint64(1) << (h >> 56 & 63)
		if info.sig[h>>62]&bit != 0 {
			info.dup++
		}
		info.sig[h>>62] |= bit
	}
	info.ant[1] = int32(len(a.antToks))
	a.simAt[g] = [2]int32{int32(start), int32(len(a.simToks))}
	a.simInfo[g] = info
	return a.simToks[start:]
}

// simInfo sums a sentence's run (simRun) up for roughBound, and lists its
// words with antonyms for antonymConflicts, which looks at no other
// sentences than those whose runs weighRelevantSentences builds.
type simInfo struct {
	sig  [4]uint64 // the signature of the run's words, as setSig
	w    float64   // the run's weights added in order, as similarity adds them
	maxw float64   // the largest weight of the run
	dup  int32     // the words of the run whose signature bit an earlier one set
	ant  [2]int32  // the sentence's content words with antonyms: a.antToks[ant[0]:ant[1]], by index in the context's tokens
}

// canReach reports whether sentences g1 and g2 (global indices) are close
// enough in weighted size for their similarity to reach thr: a weighted
// Jaccard index J needs the smaller weight to be at least J/(1+J) of the two
// together, since the intersection is at most the smaller one. A cheap test
// that spares most similarity computations between long contexts. Both
// sentences must be relevant (sentRel): only those are weighed.
func (a *analysis) canReach(g1, g2 int, thr float64) bool {
	w1, w2 := a.sentW[g1], a.sentW[g2]
	return min(w1, w2) >= thr/(1+thr)*(w1+w2)
}
