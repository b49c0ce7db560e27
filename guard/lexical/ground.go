package lexical

import (
	"math"
	"sort"

	"github.com/ragtriage/ragtriage/guard/lexical/internal/quant"
)

// groundTally is what the groundedness and contradiction features count
// while they read the answer against the contexts.
type groundTally struct {
	numMis, numUnsup int     // quantities in the same slot with another value; quantities no context states
	minWin, minSent  float64 // least support of an answer sentence, by window and by single sentence
	absent           bool    // a sentence most of whose content is in no context
	entOut           int     // names and numbers of supported sentences that their window lacks
	negAny           bool    // a negation mismatch at any support
	maxUnsup         float64 // weight of the rarest answer word found nowhere
	unsupEnt         int     // names and numbers of the answer in no context
	antElsewhere     int     // answer words absent from the contexts whose antonym is in one
	supAny, contain  float64 // weighted and unweighted share of the answer's words in some context
}

// groundedness computes the groundedness and contradiction features (they
// read the same comparison of the answer with the contexts) and the
// sentences, mismatches, flips and entities their evidence quotes.
func groundedness(a *analysis, v *vocabulary, f *featureSet) {
	t := groundTally{minWin: 1, minSent: 1}
	quantitySupport(a, f, &t)
	a.m.at("comparing the answer's sentences with the contexts")
	for k := range a.a.sents {
		if !a.m.ok() {
			return // stopped: the features are not used
		}
		f.sents = append(f.sents, sentenceSupport(a, v, f, k, &t))
	}
	answerSupport(a, v, f, &t)
	negFlips, antFlips := 0, 0
	for _, fl := range f.flips {
		if fl.tok < 0 {
			negFlips++
		} else {
			antFlips++
		}
	}
	nctx := len(a.ctxs)
	g := &f.ground
	g[gSupMin] = t.minWin
	g[gSentSup] = t.minSent
	g[gSupAny] = t.supAny
	g[gContain] = t.contain
	g[gBigram] = a.bigramSupport(&a.a)
	g[gToken] = a.tokenSupport(&a.a)
	g[gExact] = b2f(nctx > 0 && f.ansContent > 0 && t.minSent >= 1 && g[gToken] >= 1 && g[gBigram] >= 1)
	g[gMaxUnsupIDF] = t.maxUnsup
	g[gUnsupEnt] = math.Log1p(float64(t.unsupEnt))
	g[gNumMismatch] = float64(t.numMis)
	g[gNumUnsup] = float64(t.numUnsup)
	g[gNegFlip] = float64(negFlips)
	g[gAntFlip] = float64(antFlips)
	g[gAbsent] = b2f(t.absent)
	g[gEntOut] = math.Log1p(float64(t.entOut))
	g[gRefusal] = b2f(f.refusal)
	f.contra = append(f.contra, float64(t.numMis), float64(negFlips), float64(antFlips), math.Log1p(float64(t.antElsewhere)),
		b2f(t.negAny), 1-t.minWin)
}

// given reports whether answer token t is supported by construction: a
// quantity the contexts state in other words (see quantitySupport). Words
// the answer shares with the question still need the contexts' support: a
// question can hold the very claim the answer makes ("Is it true that …?").
func given(t *token) bool { return t.flags&fGiven != 0 }

// inQ reports whether answer token t's word is also in the question (see
// prepareAnswer).
func inQ(t *token) bool { return t.flags&fInQ != 0 }

// quantitySupport decides, for each quantity of the answer, whether the
// contexts state it (its words are then given), contradict it in the same
// slot, or do not state it.
func quantitySupport(a *analysis, f *featureSet, t *groundTally) {
	a.m.at("comparing the answer's numbers with the contexts'")
	for qi, q := range a.a.quants {
		if !a.m.ok() {
			return
		}
		if structural(a.a.s, q) {
			continue // a list marker or a citation: not a claim
		}
		stated, sameCtx, sameQ := a.quantCounterpart(q)
		// A small count ("three things", "two figures") or an ordinal
		// ("first") with no counterpart said of the same thing often counts
		// the answer's own items: it is no evidence either way (its words
		// still need support like any other).
		if !stated && sameCtx < 0 && ownCount(q) {
			continue
		}
		if stated {
			// Words of a quantity the contexts state ("thirty" for "30")
			// count as supported; an approximate one ("a month" for "30
			// days") is neither evidence for nor against the answer.
			a.markGiven(q)
			continue
		}
		t.numUnsup++
		if sameCtx >= 0 {
			t.numMis++
			f.mismatches = append(f.mismatches, mismatch{ans: qi, ctx: sameCtx, cq: sameQ, sameSlot: true})
		} else {
			f.mismatches = append(f.mismatches, mismatch{ans: qi, ctx: -1, cq: -1})
		}
	}
}

// quantCounterpart looks for answer quantity q in the contexts: stated
// when one states it exactly or roughly (or the question states it), and
// otherwise the context and quantity (else -1, -1) of the first one in the
// same slot with another value, said of the same thing. A few pairs are
// compared one by one; more go through the quantity indexes (qindex.go),
// which give the same answers.
func (a *analysis) quantCounterpart(q quant.Quantity) (stated bool, sameCtx, sameQ int) {
	if len(a.a.quants)*(a.nquant+len(a.q.quants)) >= quantIndexMin && a.buildQuantIndex() {
		return a.quantCounterpartIndexed(q)
	}
	compatible, approx, sameCtx, sameQ := a.quantCounterpartScan(q)
	return compatible || approx, sameCtx, sameQ
}

// quantCounterpartScan is quantCounterpart by comparing q with every
// quantity of the contexts and the question: compatible when one states it
// (or the question does), approx when one states it roughly, and the first
// one in the same slot with another value, said of the same thing.
func (a *analysis) quantCounterpartScan(q quant.Quantity) (compatible, approx bool, sameCtx, sameQ int) {
	sameCtx, sameQ = -1, -1
	for ci := range a.ctxs {
		if !a.m.spend(len(a.ctxs[ci].quants)) {
			return
		}
		for cq, c := range a.ctxs[ci].quants {
			switch {
			case q.Compatible(c) || ((q.Kind == quant.Number || c.Kind == quant.Number) && c.Value == q.Value):
				// A bare number matches any quantity of that value
				// ("16" for "16 weeks", "65-watt" for a "65" whose unit
				// went unread).
				compatible = true
			case q.Approx(c):
				approx = true
			case sameCtx < 0 && (q.SameSlot(c) || (c.Kind == q.Kind && c.Value == q.Value && c.Unit != q.Unit)) &&
				a.quantAligned(q, ci, c):
				// Same slot, other value; or same value, other unit
				// ("20 hours" for "20 days"); and said of the same
				// thing: the two share a neighbouring word ("the first
				// £20 of the overdraft" against "the first £50 of
				// overdraft"). A number about something else is
				// unsupported, not contradicted.
				sameCtx, sameQ = ci, cq
			}
		}
	}
	if !compatible {
		a.m.spend(len(a.q.quants))
		for _, c := range a.q.quants {
			if q.Compatible(c) {
				compatible = true
			}
		}
	}
	return compatible, approx, sameCtx, sameQ
}

// ownCount reports whether q is a small whole count or an ordinal, which
// often counts the answer's own items.
func ownCount(q quant.Quantity) bool {
	return q.Kind == quant.Ordinal || (q.Kind == quant.Number && q.Value == math.Trunc(q.Value) && q.Value >= 0 && q.Value <= 12)
}

// markGiven flags the answer tokens inside quantity q as given. Tokens are
// in text order: it starts at the first one inside q.
func (a *analysis) markGiven(q quant.Quantity) {
	toks := a.a.toks
	i := sort.Search(len(toks), func(i int) bool { return int(toks[i].start) >= q.Start })
	for ; i < len(toks) && int(toks[i].start) < q.End; i++ {
		if t := &toks[i]; int(t.end) <= q.End {
			t.flags |= fGiven
		}
	}
}

// sentenceSupport measures how the contexts support answer sentence k: its
// best window, whether its claim is absent, and the flips and misplaced
// entities of a supported sentence.
func sentenceSupport(a *analysis, v *vocabulary, f *featureSet, k int, t *groundTally) sentInfo {
	nctx := len(a.ctxs)
	run := a.a.sentToks(k)
	memo := a.memoSupport(k)
	var win window
	if memo >= 0 {
		win = f.sents[memo].win
	} else {
		win = a.sentenceWindow(k, run, v)
	}
	total, any, n := 0.0, 0.0, 0
	for i := range run {
		tk := &run[i]
		if !tk.content() {
			continue
		}
		wt := v.weight(tk)
		total += wt
		n++
		if a.inContexts(tk.hash) || given(tk) {
			any += wt
		}
	}
	si := sentInfo{win: win, support: win.coverage}
	if nctx == 0 {
		si.support = 0
		if total == 0 {
			si.support = 1
		}
	}
	// A claim absent from every context: most of the sentence's weighted
	// content is found nowhere.
	if nctx > 0 && n >= 2 && total > 0 && any/total < 1.0/3 {
		t.absent = true
	}
	t.minWin = math.Min(t.minWin, si.support)
	if nctx > 0 {
		if memo < 0 {
			// A sentence like an earlier one has its single-sentence
			// support too, which t.minSent already holds.
			t.minSent = math.Min(t.minSent, a.bestSentence(run, v, given))
		}
	} else {
		t.minSent = 0
	}
	// Negation flip: a word the sentence shares with its window is negated
	// in one and not the other ("is refundable" against "is not
	// refundable"). Negation is read in scope, a few words before the word
	// within its clause, so that a "not" elsewhere in the window ("Do not
	// take more than …") does not count.
	if win.ctx >= 0 && si.support >= 0.3 && n >= 3 && (hasNeg(run) || a.windowHasNeg(win)) {
		if ti, ok := a.negationFlip(k, win, v); ok {
			t.negAny = true
			if si.support >= 0.5 {
				si.negFlip = true
				f.flips = append(f.flips, flip{sent: k, tok: -1, win: win, negTok: ti})
			}
		}
	}
	if win.ctx >= 0 && si.support >= 0.5 {
		antonymFlips(a, f, k, win)
		t.entOut += swappedEntities(a, f, k, win)
	}
	return si
}

// memoMin is the number of answer sentences from which groundedness looks
// for repeated sentences (see memoSupport).
var memoMin = 8

// memoSupport returns an earlier answer sentence whose best window and
// single-sentence support are sentence k's, or -1. Those depend on the
// content words of a sentence only (their words, weights and whether they
// are given, in order), so a sentence with the same ones as an earlier
// sentence gets the same: a long answer that repeats itself costs one
// search of the contexts per distinct sentence.
func (a *analysis) memoSupport(k int) int {
	if len(a.a.sents) < memoMin {
		return -1
	}
	if k == 0 {
		if a.sentMemo == nil {
			a.sentMemo = map[uint64]int32{}
		}
		clear(a.sentMemo)
	}
	run := a.a.sentToks(k)
	h := uint64(fnvOffset)
	for i := range run {
		if t := &run[i]; t.content() {
			h = (h ^ t.hash) * fnvPrime
			h = (h ^ math.Float64bits(t.w)) * fnvPrime
			h = (h ^ uint64(t.flags&fGiven)) * fnvPrime
		}
	}
	a.m.spend(len(run))
	prev, ok := a.sentMemo[h]
	if !ok || !sameContent(run, a.a.sentToks(int(prev))) {
		if !ok {
			a.sentMemo[h] = int32(k)
		}
		return -1
	}
	return int(prev)
}

// sameContent reports whether two runs have the same content words, with
// the same weights and given flags, in the same order.
func sameContent(r1, r2 []token) bool {
	i, j := 0, 0
	for {
		for i < len(r1) && !r1[i].content() {
			i++
		}
		for j < len(r2) && !r2[j].content() {
			j++
		}
		if i == len(r1) || j == len(r2) {
			return i == len(r1) && j == len(r2)
		}
		t, u := &r1[i], &r2[j]
		if t.hash != u.hash || math.Float64bits(t.w) != math.Float64bits(u.w) || t.flags&fGiven != u.flags&fGiven {
			return false
		}
		i++
		j++
	}
}

// antonymFlips records the words of supported answer sentence k absent from
// its window whose antonym stands in it in the same place: next to a word
// the answer has next to it ("the price increased" against "the price
// decreased").
func antonymFlips(a *analysis, f *featureSet, k int, win window) {
	run := a.a.sentToks(k)
	for i := range run {
		t := &run[i]
		if t.flags&fAnt == 0 || a.windowHas(win, t.hash) || t.flags&fInQ != 0 {
			continue // no antonym, or the word itself is there
		}
		for _, ant := range antonymOf.of(t.hash) {
			if !inRun(run, ant) && a.alignedIn(win, run, i, ant) { // "from higher to lower" names both
				f.flips = append(f.flips, flip{sent: k, tok: int(a.a.sentAt[k]) + i, win: win, anti: ant})
				break
			}
		}
	}
}

// swappedEntities records the names and numbers of supported answer
// sentence k that a context states but its window lacks, and returns how
// many there are.
func swappedEntities(a *analysis, f *featureSet, k int, win window) int {
	run := a.a.sentToks(k)
	n := 0
	for i := range run {
		t := &run[i]
		if t.entity() && t.content() && !inQ(t) && t.flags&fGiven == 0 && a.inContexts(t.hash) && !a.windowHasContent(win, t.hash) {
			n++
			f.swapped = append(f.swapped, int(a.a.sentAt[k])+i)
		}
	}
	return n
}

// answerSupport reads the answer's words one by one against all the
// contexts: how much of it they hold, its rarest unsupported word, and its
// names, numbers and antonyms found nowhere.
func answerSupport(a *analysis, v *vocabulary, f *featureSet, t *groundTally) {
	totalW, anyW, nIn := 0.0, 0.0, 0
	for i := range a.a.toks {
		tk := &a.a.toks[i]
		if !tk.content() {
			continue
		}
		wt := v.weight(tk)
		totalW += wt
		if a.inContexts(tk.hash) || given(tk) {
			anyW += wt
			nIn++
			continue
		}
		t.maxUnsup = math.Max(t.maxUnsup, wt)
		if tk.flags&fAnt != 0 {
			for _, ant := range antonymOf.of(tk.hash) {
				if a.inContexts(ant) {
					t.antElsewhere++
					break
				}
			}
		}
		if tk.entity() && !(tk.flags&fNum == 0 && afterBreak(a.a.s, int(tk.start))) {
			t.unsupEnt++
			f.absent = append(f.absent, i)
		}
	}
	t.supAny, t.contain = 1.0, 1.0
	if totalW > 0 {
		t.supAny = anyW / totalW
	}
	if f.ansContent > 0 {
		t.contain = float64(nIn) / float64(f.ansContent)
	}
	if len(a.ctxs) == 0 && f.ansContent > 0 {
		t.supAny, t.contain, t.minWin = 0, 0, 0
	}
}
