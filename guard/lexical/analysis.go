package lexical

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ragtriage/ragtriage/guard/lexical/internal/quant"
)

// doc is one analyzed text: tokens, sentences and quantities.
type doc struct {
	s      string
	toks   []token
	sents  []span
	sentAt []int32 // sentAt[k] is the index of sentence k's first token; len(sents)+1 entries
	quants []quant.Quantity
	ctx    int                 // context index, -1 for non-context texts
	set    map[uint64]struct{} // the hashes of toks, when setOK (see inDoc)
	setOK  bool
}

func (d *doc) sentToks(k int) []token { return d.toks[d.sentAt[k]:d.sentAt[k+1]] }

// analysis holds every analyzed text of one sample and a term index over the
// contexts. It is pooled: one analysis serves one evaluation at a time.
type analysis struct {
	// cache is the judge's text cache (see textCache); nil: none.
	cache *textCache

	tz       tokenizer
	q, a, rf doc
	hasRef   bool
	ctxs     []doc
	nsent    int     // context sentences in all
	sentBase []int32 // global sentence index of each context's first sentence

	// term index over context content tokens: open addressing on the hash,
	// each slot the head of a linked list of occurrences.
	slots []int32 // slot → 1+index into occ, 0 empty
	keys  []uint64
	occ   []occurrence

	feat      featureSet
	ctxTexts  []string
	m         meter // the work of the current call (see Limits)
	nquant    int   // quantities of the contexts in all
	qidx      quantIndex
	qruns     []quantRun  // see quantRuns
	runTmp    []quantRun  // scratch of quantRuns
	famAt     []int32     // see quantRuns
	relSent   []int32     // see quantRuns
	quantBase []int32     // see quantRuns
	maybe     []pairMaybe // see conflictScan.under
	simFor    []int32     // see conflictScan.simOf
	simVal    []float64   // see conflictScan.simOf
	simTabs   [2]hashSet  // see analysis.hashTable
	tabLast   int         // see analysis.hashTable

	// sentence sets (see buildSets), by global sentence index
	setHashes []uint64
	setAt     []int32
	setLen    []int32 // the sentence's tokens (charged by similarity), also when its set is made distinct
	setSig    [][4]uint64
	setSorted []bool // the sentence's hashes are sorted and distinct (see buildSets)
	sentNeg   []bool
	sentW     []float64 // weighted size of each context sentence, as similarity counts it
	sentRel   []bool    // the sentence shares a content word with the question or the answer
	relSet    map[uint64]struct{}
	relHashes []uint64   // scratch of markRelevantByScan
	simToks   []simTok   // see simRun
	simAt     [][2]int32 // by global sentence: its run in simToks, {-1, -1} until simRun builds it
	simInfo   []simInfo  // by global sentence: its run's summary, set with simAt
	antToks   []int32    // see simInfo
	qcov      []float64  // by global sentence: see conflictScan.questionCoverage; -1 until computed

	// scratch
	pairs       []uint64  // adjacent word pairs of the contexts (see buildPairs)
	pairsBuilt  bool      // pairs holds the contexts' pairs
	manyAns     bool      // several answers are judged against these contexts (JudgeClaims)
	ansPairs    []uint64  // the answer's pairs, when it is judged alone (see buildAnswerPairs)
	ansFound    []bool    // ansFound[j]: some context holds pair ansPairs[j]
	ansSig      [4]uint64 // a 256-bit signature of ansPairs (see markAnswerPair)
	ansBuilt    bool      // ansPairs answers hasPair for the current answer
	refusal0    bool      // the answer's first sentence declines to answer (set by markPreambles)
	fold        []byte
	win         scores     // window scores of the last scoreWindows (or score) of a run
	qWinScore   keptScores // window scores of the question (questionWindow, answerWindow)
	aWinScore   keptScores // window scores of the answer (sentenceWindow, answerWindow)
	winSeen     []int32    // -1 between calls of score
	post        []int32    // term index by term: the global sentences of its occurrences, ascending (see buildPostings)
	postAt      []int32    // slot → start of its term's run in post; len(slots)+1 entries
	postBuilt   bool
	postCharged bool             // the work meter was charged for building the postings (see windowHasContent)
	postWalked  int              // occurrences windowHasContent walked since load instead of building the postings
	sentMemo    map[uint64]int32 // see memoSupport
	grp         groupScratch
	mark        []int32
	markGen     int32
	rec         *[]int32   // score records its charges here when not nil (see keptScores)
	qWords      []termHead // see questionWords
}

// occurrence is one content token of a context in the term index. The
// occurrences of a term are linked newest first, so in decreasing order of
// (ctx, tok).
type occurrence struct {
	next int32 // 1+index of the next occurrence of the same term, 0 at the end
	ctx  int32
	sent int32 // global sentence index
	tok  int32 // token index within its context
	cpos int32 // index among the content tokens of its context
}

var analysisPool = sync.Pool{New: func() any { return new(analysis) }}

func (a *analysis) reset() {
	a.q.reset()
	a.a.reset()
	a.rf.reset()
	for i := range a.ctxs {
		a.ctxs[i].reset()
	}
	a.ctxs = a.ctxs[:0]
	a.occ = a.occ[:0]
	a.hasRef = false
	a.pairsBuilt = false
	a.manyAns = false
	a.ansBuilt = false
	a.qidx.built = false
	a.nquant = 0
	a.postCharged = false
	a.postWalked = 0
	a.qWinScore.kept = false
	a.aWinScore.kept = false
}

func (d *doc) reset() {
	d.s = ""
	d.toks = d.toks[:0]
	d.sents = d.sents[:0]
	d.sentAt = d.sentAt[:0]
	d.quants = d.quants[:0]
	d.ctx = -1
	d.setOK = false
}

func (a *analysis) analyze(d *doc, s string, ctx int) {
	d.s = s
	d.ctx = ctx
	d.toks, d.sents = a.tz.tokenize(d.toks[:0], s, d.sents[:0])
	// The tokenizer knows where each sentence starts: it saw them start.
	d.sentAt = append(append(d.sentAt[:0], a.tz.starts...), int32(len(d.toks)))
	d.quants = quant.Extract(d.quants[:0], s)
}

// analyzeCached is analyze through the judge's text cache (see textCache):
// a text kept there is copied, not read again.
func (a *analysis) analyzeCached(d *doc, s string, ctx int) {
	if h, ok := a.cache.load(d, s, ctx); !ok {
		a.analyze(d, s, ctx)
		a.cache.store(h, d)
	}
}

// load analyzes every text of the sample and builds the term index.
func (a *analysis) load(question, answer string, ref *string, contexts []string) {
	a.reset()
	a.analyzeCached(&a.q, question, -1)
	a.loadAnswer(answer)
	if ref != nil {
		a.hasRef = true
		a.analyzeCached(&a.rf, *ref, -1)
	}
	if cap(a.ctxs) < len(contexts) {
		a.ctxs = append(a.ctxs[:cap(a.ctxs)], make([]doc, len(contexts)-cap(a.ctxs))...)
	}
	a.ctxs = a.ctxs[:len(contexts)]
	a.sentBase = a.sentBase[:0]
	a.nsent = 0
	ntok := 0
	for i, c := range contexts {
		a.analyzeCached(&a.ctxs[i], c, i)
		a.sentBase = append(a.sentBase, int32(a.nsent))
		a.nsent += len(a.ctxs[i].sents)
		ntok += len(a.ctxs[i].toks)
		a.nquant += len(a.ctxs[i].quants)
	}
	a.buildIndex(ntok)
	a.win.resize(a.nsent)
	a.qWinScore.resize(a.nsent)
	if cap(a.winSeen) < a.nsent {
		a.winSeen = make([]int32, a.nsent)
	}
	a.winSeen = a.winSeen[:a.nsent]
	for i := range a.winSeen {
		a.winSeen[i] = -1
	}
	a.postBuilt = false
}

// buildIndex builds the term index over the contexts' content tokens, of
// which there are at most ntok.
func (a *analysis) buildIndex(ntok int) {
	size := 64
	for size < 2*ntok {
		size <<= 1
	}
	if cap(a.slots) < size {
		a.slots = make([]int32, size)
		a.keys = make([]uint64, size)
	} else {
		a.slots = a.slots[:size]
		a.keys = a.keys[:size]
		clear(a.slots)
	}
	// The occurrences are written in place: at most one per token, so the
	// slice is sized once instead of growing by append.
	if cap(a.occ) < ntok {
		a.occ = make([]occurrence, ntok)
	}
	occ := a.occ[:ntok]
	n := int32(0)
	for ci := range a.ctxs {
		n = indexContext(a.slots, a.keys, occ, n, a.ctxs[ci].toks, int32(ci), a.sentBase[ci])
	}
	a.occ = occ[:n]
}

// indexContext adds the content tokens of context ci, whose first sentence
// is global sentence base, to the term index (slots and keys) as
// occurrences occ[n:]; it returns the new count of occurrences. occ has
// room for an occurrence per token of toks. It works on its arguments
// alone, so that the loop keeps them in registers.
func indexContext(slots []int32, keys []uint64, occ []occurrence, n int32, toks []token, ci, base int32) int32 {
	keys = keys[:len(slots)]
	mask := uint64(len(slots) - 1)
	// First the indexes of the content tokens, written without a branch
	// into the tok fields of the occurrences to come: function and content
	// words come in no pattern a branch predictor could learn, and a
	// branch on the kind of each token was mispredicted for a third of
	// them. Every token's index is written; only a content token's stays,
	// the next write going to the next occurrence (fStop is bit 0).
	free := occ[n:]
	m := 0
	for ti := range toks {
		free[m].tok = int32(ti)
		m += int(^toks[ti].flags & fStop)
	}
	for cpos := range free[:m] {
		o := &free[cpos]
		t := &toks[o.tok]
		h := t.hash
		j := h & mask
		// One branch a probe, not two: the slot is free or holds h (the
		// usual first probe), or the next slot is to be tried.
		for b2u8(slots[j] == 0)|b2u8(keys[j] == h) == 0 {
			j = (j + 1) & mask
		}
		o.next, o.ctx, o.sent, o.cpos = slots[j], ci, base+t.sent, int32(cpos)
		slots[j] = n + int32(cpos) + 1
		keys[j] = h
	}
	return n + int32(m)
}

// scores holds a score per global window and the windows a call of score
// gave a score to: every other entry is 0, so a call costs what it touches,
// not the number of windows.
type scores struct {
	v       []float64
	touched []int32
}

// resize makes s n zero scores.
func (s *scores) resize(n int) {
	if cap(s.v) < n {
		s.v = make([]float64, n)
	} else {
		s.v = s.v[:n]
		clear(s.v)
	}
	s.touched = s.touched[:0]
}

// zero clears the scores of the last call.
func (s *scores) zero() {
	for _, g := range s.touched {
		s.v[g] = 0
	}
	s.touched = s.touched[:0]
}

// max returns the highest score, at least 0 (every untouched window scores
// 0), and the first window that has it (0 when the highest is 0). ok is
// false when a score is negative, which no weight gives: then only best is
// right.
func (s *scores) max() (best float64, at int, ok bool) {
	ok = true
	for _, g := range s.touched {
		x := s.v[g]
		ok = ok && x >= 0
		if x > best || x == best && x > 0 && int(g) < at {
			best, at = x, int(g)
		}
	}
	return best, at, ok
}

// loadAnswer analyzes answer in place of the sample's answer. The
// question, the reference, the contexts and the term index stay as they are.
func (a *analysis) loadAnswer(answer string) {
	a.a.reset()
	a.ansBuilt = false
	a.aWinScore.kept = false
	a.analyze(&a.a, answer, -1)
	a.markPreambles()
}

// head returns 1+index of the most recent occurrence of h in the contexts, 0
// when none.
func (a *analysis) head(h uint64) int32 {
	if len(a.slots) == 0 {
		return 0
	}
	mask := uint64(len(a.slots) - 1)
	j := h & mask
	for a.slots[j] != 0 {
		if a.keys[j] == h {
			return a.slots[j]
		}
		j = (j + 1) & mask
	}
	return 0
}

func (a *analysis) inContexts(h uint64) bool { return a.head(h) != 0 }

// inDoc reports whether a token of d has hash h. A long text is looked up
// in a set of its hashes, built on first use (and dropped when its hashes
// change, see substituteSynonyms).
func inDoc(d *doc, h uint64) bool {
	if len(d.toks) > docSetMin {
		if !d.setOK {
			if d.set == nil {
				d.set = make(map[uint64]struct{}, len(d.toks))
			}
			clear(d.set)
			for i := range d.toks {
				d.set[d.toks[i].hash] = struct{}{}
			}
			d.setOK = true
		}
		_, ok := d.set[h]
		return ok
	}
	for i := range d.toks {
		if d.toks[i].hash == h {
			return true
		}
	}
	return false
}

// docSetMin is the number of tokens from which inDoc uses a set.
var docSetMin = 64

// window describes the best-supporting context window of a token run.
type window struct {
	ctx      int     // context index, -1 if none
	sent     int     // first sentence of the window within that context
	nsent    int     // 1 or 2
	coverage float64 // weighted fraction of the run found in the window
}

// scoreWindows adds to dst[s] the weight of the content tokens of run found
// in window s (sentence s and the next one of the same context), each token
// counted once per window. Tokens for which skip returns true are not looked
// up; their weight is returned as given. dst holds a.nsent scores; the
// last call's are cleared first.
func (a *analysis) scoreWindows(run []token, v *vocabulary, skip func(*token) bool, dst *scores) (total, given float64) {
	return a.score(run, v, skip, dst, 2)
}

// score is scoreWindows for windows of width sentences (1 or 2): an
// occurrence in sentence s counts for the windows that start at s and, with
// width 2, at s-1 in the same context. Each occurrence looked at is a unit
// of work.
func (a *analysis) score(run []token, v *vocabulary, skip func(*token) bool, dst *scores, width int32) (total, given float64) {
	if !a.m.ok() {
		dst.zero()
		return 0, 0 // stopped: the features are not used
	}
	if len(run) >= groupedRunMin && len(a.occ) > postingsMin {
		a.rec = nil // charged otherwise than by the loop below: nothing to replay
		if d := a.directCost(run, skip); d > groupedMin*(len(run)+len(a.occ)) {
			if total, given, ok := a.scoreGrouped(run, v, skip, dst, width, d); ok {
				return total, given
			}
		}
	}
	dst.zero()
	for i := range run {
		t := &run[i]
		if !t.content() {
			continue
		}
		w := v.weight(t)
		total += w
		if skip != nil && skip(t) {
			given += w
			continue
		}
		n := 0
		for o := a.head(t.hash); o != 0; o = a.occ[o-1].next {
			oc := &a.occ[o-1]
			n++
			// The window that starts at the occurrence's sentence, then,
			// with width 2, the one that starts at the sentence before it
			// in the same context.
			s := oc.sent
			if a.winSeen[s] != int32(i) {
				a.winSeen[s] = int32(i)
				if dst.v[s] == 0 {
					dst.touched = append(dst.touched, s)
				}
				dst.v[s] += w
			}
			if width == 2 && s > a.sentBase[oc.ctx] {
				s--
				if a.winSeen[s] != int32(i) {
					a.winSeen[s] = int32(i)
					if dst.v[s] == 0 {
						dst.touched = append(dst.touched, s)
					}
					dst.v[s] += w
				}
			}
		}
		if a.rec != nil {
			*a.rec = append(*a.rec, int32(n+1))
		}
		if !a.m.spend(n + 1) {
			break
		}
	}
	for _, s := range dst.touched {
		a.winSeen[s] = -1
	}
	return total, given
}

// windowAt turns a global window index into a window.
func (a *analysis) windowAt(g int, coverage float64) window {
	// The last context whose first sentence is at or before g (contexts
	// without sentences share their successor's base).
	ci := max(0, sort.Search(len(a.sentBase), func(i int) bool { return int(a.sentBase[i]) > g })-1)
	w := window{ctx: ci, sent: g - int(a.sentBase[ci]), nsent: 2, coverage: coverage}
	if w.sent+1 >= len(a.ctxs[ci].sents) {
		w.nsent = 1
	}
	return w
}

// bestWindow finds the context window (a sentence and the next one in the
// same context) covering the largest weighted share of the content tokens
// of run. Tokens for which skip returns true count as covered everywhere.
func (a *analysis) bestWindow(run []token, v *vocabulary, skip func(*token) bool) window {
	if a.nsent == 0 {
		return window{ctx: -1}
	}
	// Locate the window with every token (given ones included), so that an
	// answer echoing the question is still placed where it is stated; then
	// measure its coverage counting given tokens as covered.
	total, _ := a.scoreWindows(run, v, nil, &a.win)
	return a.bestOf(&a.win, total, run, v, skip)
}

// keptScores are the window scores of a run that two features read: the
// question's (its best window, and answerWindow), a one-sentence answer's
// (its sentence's best window, and answerWindow). They are computed once;
// the second reader charges the work meter what computing them again would
// have, in the same order.
type keptScores struct {
	scores
	kept   bool    // the scores are the run's, and spends what computing them charged
	total  float64 // the run's content weight, as score returns it
	spends []int32 // score's charges, in order
}

// scoreKept scores run into k, keeping what it charged the meter.
func (a *analysis) scoreKept(run []token, v *vocabulary, k *keptScores) float64 {
	if len(k.v) != a.nsent {
		k.resize(a.nsent)
	}
	k.spends = k.spends[:0]
	a.rec = &k.spends
	total, _ := a.scoreWindows(run, v, nil, &k.scores)
	k.kept = a.rec != nil
	a.rec = nil
	k.total = total
	return total
}

// rescore is scoreWindows(run, v, nil, &k.scores) for the second reader
// of k: when k holds run's scores, it only charges the meter the amounts
// computing them charged, and gives up where score would.
func (a *analysis) rescore(run []token, v *vocabulary, k *keptScores) float64 {
	if !k.kept {
		if len(k.v) != a.nsent {
			k.resize(a.nsent)
		}
		total, _ := a.scoreWindows(run, v, nil, &k.scores)
		return total
	}
	if !a.m.ok() {
		k.zero()
		return 0 // stopped: the features are not used
	}
	for _, n := range k.spends {
		if !a.m.spend(int(n)) {
			break
		}
	}
	return k.total
}

// questionWindow is bestWindow for the question (no token given), its
// scores kept for answerWindow.
func (a *analysis) questionWindow(v *vocabulary) window {
	if a.nsent == 0 {
		return window{ctx: -1}
	}
	total := a.scoreKept(a.q.toks, v, &a.qWinScore)
	return a.bestOf(&a.qWinScore.scores, total, a.q.toks, v, nil)
}

// sentenceWindow is bestWindow(run, v, given) for answer sentence k: when
// the sentence is the whole answer, its scores are kept for answerWindow.
func (a *analysis) sentenceWindow(k int, run []token, v *vocabulary) window {
	if a.nsent == 0 || k != 0 || len(run) != len(a.a.toks) {
		return a.bestWindow(run, v, given)
	}
	total := a.scoreKept(run, v, &a.aWinScore)
	return a.bestOf(&a.aWinScore.scores, total, run, v, given)
}

// bestOf is the end of bestWindow: the best window of the scores sc of
// run, whose content weighs total.
func (a *analysis) bestOf(sc *scores, total float64, run []token, v *vocabulary, skip func(*token) bool) window {
	if total == 0 {
		return window{ctx: -1, coverage: 1}
	}
	best, bi, ok := sc.max()
	if !ok {
		bi = firstMax(sc.v)
		best = sc.v[bi]
	}
	win := a.windowAt(bi, 0)
	if skip == nil {
		win.coverage = math.Min(1, best/total)
		return win
	}
	got := 0.0
	for i := range run {
		t := &run[i]
		if t.content() && (skip(t) || a.windowHasContent(win, t.hash)) {
			got += v.weight(t)
		}
	}
	win.coverage = math.Min(1, got/total)
	return win
}

// answerWindow finds, among the windows that hold the most of the answer,
// the one that covers the most of the question: where the answer is stated
// in answer to this question, if anywhere.
func (a *analysis) answerWindow(v *vocabulary) (window, float64) {
	if a.nsent == 0 {
		return window{ctx: -1}, 0
	}
	aTotal := a.rescore(a.a.toks, v, &a.aWinScore)
	qTotal := a.rescore(a.q.toks, v, &a.qWinScore)
	aw := &a.aWinScore.scores
	maxA, _, _ := aw.max()
	if aTotal == 0 || maxA <= 0 {
		return window{ctx: -1}, 0
	}
	// Of the windows holding nearly the most of the answer (all touched),
	// the first that holds the most of the question.
	bi := -1
	qs := a.qWinScore.v
	for _, g := range aw.touched {
		s := int(g)
		if aw.v[s] >= 0.999*maxA && (bi < 0 || qs[s] > qs[bi] || qs[s] == qs[bi] && s < bi) {
			bi = s
		}
	}
	qcov := 0.0
	if qTotal > 0 {
		qcov = qs[bi] / qTotal
	}
	return a.windowAt(bi, maxA/aTotal), qcov
}

// firstMax returns the index of the first highest value of v.
func firstMax(v []float64) int {
	bi := 0
	for s, x := range v {
		if x > v[bi] {
			bi = s
		}
	}
	return bi
}

// windowSpan returns the byte span of a window in its context.
func (a *analysis) windowSpan(w window) span {
	d := &a.ctxs[w.ctx]
	return span{d.sents[w.sent].start, d.sents[w.sent+w.nsent-1].end}
}

// windowHasContent reports whether the content word h occurs in window w. It
// reads the term index, which holds content words only: for any other word
// use windowHas. On large contexts a term with many occurrences is looked up
// by binary search in its sentences (see buildPostings); the postings are
// built only once walking the terms' occurrences has cost as much as
// building them would, since most samples ask a few words only. The work
// meter is charged as if they were built at the first lookup.
func (a *analysis) windowHasContent(w window, h uint64) bool {
	if w.ctx < 0 {
		return false
	}
	lo := a.sentBase[w.ctx] + int32(w.sent)
	hi := lo + int32(w.nsent)
	if len(a.occ) > postingsMin {
		if !a.postBuilt {
			a.chargePostings()
			if a.postWalked < len(a.occ) {
				found, steps := a.walkWindow(w, h, lo, hi)
				a.postWalked += steps
				a.m.spend(1)
				return found
			}
		}
		a.buildPostings()
		ss := a.postings(h)
		k, _ := slices.BinarySearch(ss, lo)
		a.m.spend(1)
		return k < len(ss) && ss[k] < hi
	}
	found, _ := a.walkWindow(w, h, lo, hi)
	return found
}

// walkWindow is windowHasContent by walking h's occurrences; lo and hi are
// the window's first and last+1 global sentences. It also returns the
// number of occurrences it visited.
func (a *analysis) walkWindow(w window, h uint64, lo, hi int32) (found bool, steps int) {
	for o := a.head(h); o != 0; o = a.occ[o-1].next {
		oc := &a.occ[o-1]
		steps++
		if int(oc.ctx) < w.ctx {
			return false, steps // occurrences come in decreasing context order
		}
		if int(oc.ctx) == w.ctx && oc.sent >= lo && oc.sent < hi {
			return true, steps
		}
	}
	return false, steps
}

// chargePostings charges the work meter for building the postings, once
// per load, whether or not they are built.
func (a *analysis) chargePostings() {
	if !a.postCharged {
		a.postCharged = true
		a.m.spend(len(a.occ))
	}
}

// postingsMin is the number of context content words from which
// windowHasContent searches the sorted postings instead of walking a term's
// occurrences.
var postingsMin = 1024

// buildPostings lays the term index out by term, once per load: for each
// slot, the global sentences of its term's occurrences in ascending order.
func (a *analysis) buildPostings() {
	if a.postBuilt {
		return
	}
	a.postBuilt = true
	n := len(a.slots)
	if cap(a.postAt) < n+1 {
		a.postAt = make([]int32, n+1)
	}
	a.postAt = a.postAt[:n+1]
	at := int32(0)
	for j := 0; j < n; j++ {
		a.postAt[j] = at
		for o := a.slots[j]; o != 0; o = a.occ[o-1].next {
			at++
		}
	}
	a.postAt[n] = at
	if cap(a.post) < int(at) {
		a.post = make([]int32, at)
	}
	a.post = a.post[:at]
	for j := 0; j < n; j++ {
		// The occurrences are linked newest first: fill from the end.
		k := a.postAt[j+1]
		for o := a.slots[j]; o != 0; o = a.occ[o-1].next {
			k--
			a.post[k] = a.occ[o-1].sent
		}
	}
	a.chargePostings()
}

// postings returns the sentences of h's occurrences, ascending (see
// buildPostings).
func (a *analysis) postings(h uint64) []int32 {
	if len(a.slots) == 0 {
		return nil
	}
	mask := uint64(len(a.slots) - 1)
	for j := h & mask; a.slots[j] != 0; j = (j + 1) & mask {
		if a.keys[j] == h {
			return a.post[a.postAt[j]:a.postAt[j+1]]
		}
	}
	return nil
}

// windowHas reports whether h occurs in window w.
func (a *analysis) windowHas(w window, h uint64) bool {
	if w.ctx < 0 {
		return false
	}
	d := &a.ctxs[w.ctx]
	// The window's tokens are one run: its sentences' runs end to end.
	toks := d.toks[d.sentAt[w.sent]:d.sentAt[min(w.sent+w.nsent, len(d.sents))]]
	a.m.spend(len(toks))
	for i := range toks {
		if toks[i].hash == h {
			return true
		}
	}
	return false
}

// markPreambles turns the words of attribution preambles ("According to the
// provided context,") at the start of answer sentences into function words:
// they say where a claim comes from, not what it claims, so they neither need
// support nor count as content.
func (a *analysis) markPreambles() {
	d := &a.a
	a.refusal0 = false
	// Citations ("[3]") and list markers ("1." at the start of a line) are
	// structure, not claims.
	for i := range d.toks {
		t := &d.toks[i]
		if t.flags&fNum == 0 {
			continue
		}
		st, en := int(t.start), int(t.end)
		cite := st > 0 && d.s[st-1] == '[' && en < len(d.s) && d.s[en] == ']'
		marker := false
		if en+2 < len(d.s) && (d.s[en] == '.' || d.s[en] == ')') && d.s[en+1] == ' ' && d.s[en+2] != '\n' && d.s[en+2] != ' ' {
			j := st - 1
			for j >= 0 && (d.s[j] == ' ' || d.s[j] == '\t' || d.s[j] == '-' || d.s[j] == '*') {
				j--
			}
			marker = j < 0 || d.s[j] == '\n'
		}
		if cite || marker {
			t.flags |= fPre | fStop | fWeighed
			t.flags &^= fCap | fCapAny | fNum
			t.w = 0
		}
	}
	for k, sp := range d.sents {
		end := 0
		// A sentence that declines to answer ("The documents don't say
		// what the fee is.") claims nothing about the world: its words are
		// meta as a preamble's are.
		// isRefusal and preambleEnd read the same folded opening clause:
		// it is folded once.
		s := d.s[sp.start:sp.end]
		var lead int
		lead, a.fold = foldOpening(s, a.fold)
		ref := refusalClause(a.fold)
		if k == 0 {
			a.refusal0 = ref
		}
		if ref {
			end = sp.end - sp.start
			if c := strings.IndexAny(s, ".!?;"); c > 0 && c+1 < sp.end-sp.start {
				end = c
			}
		} else if preambleMayOpen(s[lead:]) {
			end = preambleEndFolded(s, lead, a.fold)
		}
		if end == 0 {
			continue
		}
		end += sp.start
		for i := d.sentAt[k]; i < d.sentAt[k+1] && int(d.toks[i].start) < end; i++ {
			t := &d.toks[i]
			t.flags |= fPre | fStop | fWeighed
			t.flags &^= fCap | fCapAny
			t.w = 0
		}
	}
}

// bestSentence returns the largest weighted share of run's content words
// (tokens for which given returns true count as found) that one context
// sentence holds: support within a single sentence, stricter than a window's.
func (a *analysis) bestSentence(run []token, v *vocabulary, given func(*token) bool) float64 {
	if a.nsent == 0 {
		return 0
	}
	total, got := a.score(run, v, given, &a.win, 1)
	if total == 0 {
		return 1
	}
	best, _, _ := a.win.max()
	return min(1, (best+got)/total)
}
