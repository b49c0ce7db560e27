package lexical

import (
	"math"
	"sort"
	"strings"

	"github.com/ragtriage/ragtriage/guard/lexical/internal/quant"
)

// Feature names per decision. A profile lists the names its weights were
// fitted for; loading a profile whose names differ from these fails.
var (
	groundFeatures = []string{"min_window_support", "min_context_support", "min_context_support_no_question",
		"max_unsupported_idf", "unsupported_entities", "number_mismatches", "unsupported_numbers",
		"negation_flips", "antonym_flips", "verbatim", "refusal", "unsupported_mass", "no_contexts"}
	contraFeatures = []string{"min_window_support", "number_mismatches", "negation_flips", "antonym_flips",
		"refusal", "verbatim", "max_unsupported_idf"}
	relevFeatures = []string{"question_in_answer", "answer_in_question", "type_match", "type_mismatch",
		"refusal", "answer_window_question_coverage", "answer_length", "yes_no_answer"}
	suffFeatures = []string{"question_coverage", "best_window_question_coverage", "missing_question_entities",
		"max_missing_idf", "answer_window_question_coverage", "answer_support", "refusal",
		"answer_type_in_window", "contexts", "no_contexts", "answer_window_max_missing_idf",
		"answer_window_missing_mass", "answer_window_negation_mismatch", "answer_window_antonym",
		"answer_type_match", "answer_type_mismatch", "question_entities_in_answer_window",
		"answer_window_question_bigrams", "context_question_bigrams"}
	chunkFeatures = []string{"question_coverage", "relative_question_coverage", "answer_coverage",
		"title_in_question", "title_bridge", "inverse_rank", "contexts", "question_entities"}
	conflictFeatures = []string{"number_conflict", "negation_conflict", "antonym_conflict", "conflict_question_relevance"}
	correctFeatures  = []string{"f1", "precision", "recall", "negation_mismatch", "hedges", "number_mismatches",
		"number_matches", "verbatim", "refusal", "reference_refusal", "length_ratio", "grounded", "has_contexts"}
)

// Indices into the feature vectors, kept in step with the names above.
const (
	gMinWin = iota
	gMinAny
	gMinCtx
	gMaxUnsupIDF
	gUnsupEnt
	gNumMismatch
	gNumUnsup
	gNegFlip
	gAntFlip
	gVerbatim
	gRefusal
	gUnsupMass
	gNoCtx
	nG
)

// sentInfo records how one answer sentence is supported.
type sentInfo struct {
	win     window
	support float64 // window coverage, question tokens given
	negFlip bool
}

type mismatch struct {
	ans      int // index into answer quantities
	ctx, cq  int // context and its quantity
	sameSlot bool
}

type flip struct {
	sent int // answer sentence
	tok  int // answer token index (antonym flips), -1 for negation
	win  window
	anti uint64
}

type conflictPair struct {
	ci, si, cj, sj int // contexts and sentences (within context)
	qi, qj         int // quantity indices, -1 for negation/antonym conflicts
	kind           string
	score          float64
}

// featureSet is every raw feature of one sample plus what evidence needs.
type featureSet struct {
	ground   [nG]float64
	contra   []float64
	relev    []float64
	suff     []float64
	conflict []float64
	correct  []float64
	chunks   [][]float64

	sents      []sentInfo
	mismatches []mismatch
	flips      []flip
	absent     []int // answer token indices of absent entities
	conflicts  []conflictPair
	refusal    bool
	qtype      questionType
	missingQ   []int // question token indices missing from every context
	ansWin     window
	chunkBuf   []float64
}

func (f *featureSet) reset() {
	f.ground = [nG]float64{}
	f.contra = f.contra[:0]
	f.relev = f.relev[:0]
	f.suff = f.suff[:0]
	f.conflict = f.conflict[:0]
	f.correct = f.correct[:0]
	f.chunks = f.chunks[:0]
	f.chunkBuf = f.chunkBuf[:0]
	f.sents = f.sents[:0]
	f.mismatches = f.mismatches[:0]
	f.flips = f.flips[:0]
	f.absent = f.absent[:0]
	f.conflicts = f.conflicts[:0]
	f.missingQ = f.missingQ[:0]
	f.refusal = false
	f.ansWin = window{ctx: -1}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// extract computes every feature of the analyzed sample.
func extract(a *analysis, v *vocabulary, f *featureSet) {
	f.reset()
	// Mark the answer's words that are also in the question, once.
	for i := range a.a.toks {
		if t := &a.a.toks[i]; inDoc(&a.q, t.hash) {
			t.flags |= fInQ
		}
	}
	inQ := func(t *token) bool { return t.flags&fInQ != 0 } // answer tokens only
	// given: answer tokens supported by construction (see below), or in the
	// question.
	givenOrQ := func(t *token) bool {
		return t.flags&fGiven != 0 || inQ(t)
	}
	f.refusal, a.fold = isRefusal(a.a.s, a.fold)
	f.qtype = classifyQuestion(&a.q)
	nctx := len(a.ctxs)

	// --- groundedness -------------------------------------------------
	ansContent := 0
	for i := range a.a.toks {
		if a.a.toks[i].content() {
			ansContent++
		}
	}
	// Quantities.
	numMis, numUnsup := 0, 0
	for qi, q := range a.a.quants {
		compatible, sameSlot := false, -1
		sameCtx, sameQ := -1, -1
		for ci := range a.ctxs {
			for cq, c := range a.ctxs[ci].quants {
				if q.Compatible(c) {
					compatible = true
				} else if sameSlot < 0 && (q.SameSlot(c) || (c.Kind == q.Kind && c.Value == q.Value && c.Unit != q.Unit)) {
					// Same slot, other value; or same value, other unit
					// ("20 hours" for "20 days").
					sameSlot, sameCtx, sameQ = 1, ci, cq
				}
			}
		}
		if !compatible {
			for _, c := range a.q.quants {
				if q.Compatible(c) {
					compatible = true
				}
			}
		}
		if compatible {
			// Words of a quantity the contexts state ("thirty" for "30")
			// count as supported.
			// Tokens are in text order: start at the first one inside q.
			toks := a.a.toks
			i := sort.Search(len(toks), func(i int) bool { return int(toks[i].start) >= q.Start })
			for ; i < len(toks) && int(toks[i].start) < q.End; i++ {
				if t := &toks[i]; int(t.end) <= q.End {
					t.flags |= fGiven
				}
			}
			continue
		}
		numUnsup++
		if sameSlot > 0 {
			numMis++
			f.mismatches = append(f.mismatches, mismatch{ans: qi, ctx: sameCtx, cq: sameQ, sameSlot: true})
		} else {
			f.mismatches = append(f.mismatches, mismatch{ans: qi, ctx: -1, cq: -1})
		}
	}
	minWin, minAny, minCtx := 1.0, 1.0, 1.0
	for k := range a.a.sents {
		run := a.a.sentToks(k)
		win := a.bestWindow(run, v, givenOrQ)
		total, any, ctxOnly := 0.0, 0.0, 0.0
		for i := range run {
			t := &run[i]
			if !t.content() {
				continue
			}
			wt := v.weight(t)
			total += wt
			in := a.inContexts(t.hash) || t.flags&fGiven != 0
			if in {
				ctxOnly += wt
			}
			if in || inQ(t) {
				any += wt
			}
		}
		si := sentInfo{win: win, support: win.coverage}
		if total > 0 {
			minAny = math.Min(minAny, any/total)
			minCtx = math.Min(minCtx, ctxOnly/total)
		}
		if nctx == 0 {
			si.support = 0
			if total == 0 {
				si.support = 1
			}
		}
		minWin = math.Min(minWin, si.support)
		// Negation flip: the sentence is well supported by a window but
		// exactly one of them is negated.
		if win.ctx >= 0 && si.support >= 0.5 {
			if hasNeg(run) != a.windowHasNeg(win) {
				si.negFlip = true
				f.flips = append(f.flips, flip{sent: k, tok: -1, win: win})
			}
			// Antonym flip: an answer word absent from the window whose
			// antonym is in it.
			for i := range run {
				t := &run[i]
				if t.flags&fAnt == 0 || a.windowHas(win, t.hash) {
					continue // no antonym, or the word itself is there
				}
				for _, ant := range antonymOf[t.hash] {
					if a.windowHas(win, ant) && t.flags&fInQ == 0 {
						f.flips = append(f.flips, flip{sent: k, tok: int(a.a.sentAt[k]) + i, win: win, anti: ant})
					}
				}
			}
		}
		f.sents = append(f.sents, si)
	}
	if nctx == 0 {
		minAny, minCtx = 0, 0
		if ansContent == 0 {
			minAny, minCtx = 1, 1
		}
	}
	maxUnsup, unsupMass := 0.0, 0.0
	unsupEnt := 0
	for i := range a.a.toks {
		t := &a.a.toks[i]
		if !t.content() || a.inContexts(t.hash) || t.flags&fGiven != 0 || inQ(t) {
			continue
		}
		wt := v.weight(t)
		unsupMass += wt
		maxUnsup = math.Max(maxUnsup, wt)
		if t.entity() {
			unsupEnt++
			f.absent = append(f.absent, i)
		}
	}
	negFlips, antFlips := 0, 0
	for _, fl := range f.flips {
		if fl.tok < 0 {
			negFlips++
		} else {
			antFlips++
		}
	}
	verbatim := nctx > 0 && ansContent > 0 && a.containsRun(a.a.toks)
	g := &f.ground
	g[gMinWin] = minWin
	g[gMinAny] = minAny
	g[gMinCtx] = minCtx
	g[gMaxUnsupIDF] = maxUnsup
	g[gUnsupEnt] = math.Log1p(float64(unsupEnt))
	g[gNumMismatch] = float64(numMis)
	g[gNumUnsup] = float64(numUnsup)
	g[gNegFlip] = float64(negFlips)
	g[gAntFlip] = float64(antFlips)
	g[gVerbatim] = b2f(verbatim)
	g[gRefusal] = b2f(f.refusal)
	g[gUnsupMass] = unsupMass
	g[gNoCtx] = b2f(nctx == 0)
	f.contra = append(f.contra, minWin, float64(numMis), float64(negFlips), float64(antFlips), b2f(f.refusal), b2f(verbatim), maxUnsup)

	// --- answer relevance ---------------------------------------------
	qInA := coverage(a.q.toks, v, func(t *token) bool { return inDoc(&a.a, t.hash) })
	aInQ := coverage(a.a.toks, v, inQ)
	match, mismatchT := typeMatch(f.qtype, &a.q, &a.a)
	// Where the answer is stated in answer to this question, and how much
	// of the question that window covers.
	ansWinQ := 0.0
	f.ansWin, ansWinQ = a.answerWindow(v)
	yesno := f.qtype == qYesNo && len(a.a.toks) > 0 && startsYesNo(&a.a)
	f.relev = append(f.relev, qInA, aInQ, b2f(match), b2f(mismatchT), b2f(f.refusal), ansWinQ, math.Log1p(float64(ansContent)), b2f(yesno))

	// --- sufficiency --------------------------------------------------
	covAll := coverage(a.q.toks, v, func(t *token) bool { return a.inContexts(t.hash) })
	qWin := a.bestWindow(a.q.toks, v, nil)
	covWin := 0.0
	if qWin.ctx >= 0 {
		covWin = qWin.coverage
	}
	missEnt, maxMiss := 0, 0.0
	for i := range a.q.toks {
		t := &a.q.toks[i]
		if !t.content() || a.inContexts(t.hash) {
			continue
		}
		f.missingQ = append(f.missingQ, i)
		maxMiss = math.Max(maxMiss, v.weight(t))
		if t.entity() {
			missEnt++
		}
	}
	typeInWin := false
	if qWin.ctx >= 0 {
		typeInWin = a.windowHasType(qWin, f.qtype)
	}
	// What of the question the answer's window leaves out.
	awMaxMiss, awMissMass, awNeg, awAnt, awEnt := 0.0, 0.0, 0.0, 0.0, 0.0
	if f.ansWin.ctx >= 0 {
		qTotal, ents, entsIn := 0.0, 0, 0
		for i := range a.q.toks {
			t := &a.q.toks[i]
			if !t.content() {
				continue
			}
			wt := v.weight(t)
			qTotal += wt
			in := a.windowHasContent(f.ansWin, t.hash)
			if t.entity() {
				ents++
				if in {
					entsIn++
				}
			}
			if in {
				continue
			}
			awMissMass += wt
			awMaxMiss = math.Max(awMaxMiss, wt)
			if t.flags&fAnt != 0 {
				for _, ant := range antonymOf[t.hash] {
					if a.windowHas(f.ansWin, ant) {
						awAnt = 1
					}
				}
			}
		}
		if qTotal > 0 {
			awMissMass /= qTotal
		}
		awEnt = 1
		if ents > 0 {
			awEnt = float64(entsIn) / float64(ents)
		}
		awNeg = b2f(hasNeg(a.q.toks) != a.windowHasNeg(f.ansWin))
	}
	f.suff = append(f.suff, covAll, covWin, math.Log1p(float64(missEnt)), maxMiss, ansWinQ, minWin,
		b2f(f.refusal), b2f(typeInWin), math.Log1p(float64(nctx)), b2f(nctx == 0),
		awMaxMiss, awMissMass, awNeg, awAnt, b2f(match), b2f(mismatchT), awEnt,
		a.questionBigrams(f.ansWin), a.questionBigrams(window{ctx: -2}))

	// --- chunk relevance ----------------------------------------------
	a.chunkFeatures(f, v)

	// --- conflict -----------------------------------------------------
	a.conflictFeatures(f, v)

	// --- correctness --------------------------------------------------
	if a.hasRef {
		inRef := func(t *token) bool { return inDoc(&a.rf, t.hash) }
		inAns := func(t *token) bool { return inDoc(&a.a, t.hash) }
		prec := coverage(a.a.toks, v, inRef)
		rec := coverage(a.rf.toks, v, inAns)
		f1 := 0.0
		if prec+rec > 0 {
			f1 = 2 * prec * rec / (prec + rec)
		}
		hedges := 0
		for i := range a.a.toks {
			if a.a.toks[i].flags&(fHedge|fNeg) != 0 {
				hedges++
			}
		}
		nm, nmatch := 0, 0
		for _, q := range a.a.quants {
			for _, r := range a.rf.quants {
				if q.Compatible(r) {
					nmatch++
				} else if q.SameSlot(r) {
					nm++
				}
			}
		}
		var refRefusal bool
		refRefusal, a.fold = isRefusal(a.rf.s, a.fold)
		refContent := 0
		for i := range a.rf.toks {
			if a.rf.toks[i].content() {
				refContent++
			}
		}
		verb := (refContent > 0 && containsSeq(a.a.toks, a.rf.toks)) || (ansContent > 0 && containsSeq(a.rf.toks, a.a.toks))
		grounded := 0.0
		if nctx > 0 {
			grounded = minWin
		}
		f.correct = append(f.correct, f1, prec, rec, b2f(hasNeg(a.a.toks) != hasNeg(a.rf.toks)),
			math.Log1p(float64(hedges)), float64(nm), float64(nmatch), b2f(verb), b2f(f.refusal),
			b2f(refRefusal), math.Log((1+float64(ansContent))/(1+float64(refContent))), grounded, b2f(nctx > 0))
	}
}

// coverage is the weighted share of the content tokens of run for which in
// is true (1 when run has no content).
func coverage(run []token, v *vocabulary, in func(*token) bool) float64 {
	total, got := 0.0, 0.0
	for i := range run {
		t := &run[i]
		if !t.content() {
			continue
		}
		wt := v.weight(t)
		total += wt
		if in(t) {
			got += wt
		}
	}
	if total == 0 {
		return 1
	}
	return got / total
}

func hasNeg(run []token) bool {
	for i := range run {
		if run[i].flags&fNeg != 0 {
			return true
		}
	}
	return false
}

func (a *analysis) windowHasNeg(win window) bool {
	d := &a.ctxs[win.ctx]
	for k := win.sent; k < win.sent+win.nsent; k++ {
		if hasNeg(d.sentToks(k)) {
			return true
		}
	}
	return false
}

// containsRun reports whether the token sequence run (by hash, punctuation
// ignored) occurs contiguously in some context.
func (a *analysis) containsRun(run []token) bool {
	for ci := range a.ctxs {
		if containsSeq(a.ctxs[ci].toks, run) {
			return true
		}
	}
	return false
}

func containsSeq(hay, needle []token) bool {
	if len(needle) == 0 || len(needle) > len(hay) {
		return false
	}
outer:
	for i := 0; i+len(needle) <= len(hay); i++ {
		for j := range needle {
			if hay[i+j].hash != needle[j].hash {
				continue outer
			}
		}
		return true
	}
	return false
}

var (
	hWhen, hYear, hDate, hTime, hCentury, hDecade  = normHash("when"), normHash("year"), normHash("date"), normHash("time"), normHash("century"), normHash("decade")
	hHow, hMany, hMuch, hLong, hOld, hFar, hWho    = normHash("how"), normHash("many"), normHash("much"), normHash("long"), normHash("old"), normHash("far"), normHash("who")
	hWhom, hWhose, hWhere, hWhich, hWhat, hWhy     = normHash("whom"), normHash("whose"), normHash("where"), normHash("which"), normHash("what"), normHash("why")
	hOr, hYes, hNo, hNumber, hPercent, hPercentage = normHash("or"), normHash("yes"), normHash("no"), normHash("number"), normHash("percent"), normHash("percentage")
	hTall, hBig, hLarge, hHigh, hDay, hMonth       = normHash("tall"), normHash("big"), normHash("large"), normHash("high"), normHash("day"), normHash("month")
)

// classifyQuestion finds what kind of answer the question wants.
func classifyQuestion(q *doc) questionType {
	toks := q.toks
	for i := range toks {
		h := toks[i].hash
		var next uint64
		if i+1 < len(toks) {
			next = toks[i+1].hash
		}
		switch h {
		case hWhen:
			return qWhen
		case hHow:
			switch next {
			case hMany, hMuch, hLong, hOld, hFar, hTall, hBig, hLarge, hHigh:
				return qHowMany
			}
			return qHow
		case hWho, hWhom, hWhose:
			return qWho
		case hWhere:
			return qWhere
		case hWhy:
			return qWhy
		case hWhat, hWhich:
			switch next {
			case hYear, hDate, hCentury, hDecade, hDay, hMonth:
				return qWhen
			case hNumber, hPercent, hPercentage:
				return qHowMany
			}
			if h == hWhich {
				return qWhich
			}
			return qOther
		}
		if i == 0 && len(q.s) > 0 {
			w := strings.ToLower(q.s[toks[0].start:toks[0].end])
			if auxStarts[w] {
				for j := range toks {
					if toks[j].hash == hOr {
						return qWhich
					}
				}
				return qYesNo
			}
		}
		if i >= 3 {
			break
		}
	}
	return qOther
}

func startsYesNo(d *doc) bool {
	h := d.toks[0].hash
	return h == hYes || h == hNo
}

// typeMatch says whether the answer has the kind of content the question asks
// for (match), or plainly lacks it (mismatch). Both are false when the
// question type says nothing.
func typeMatch(qt questionType, q, a *doc) (match, mismatch bool) {
	switch qt {
	case qWhen:
		ok := hasKind(a.quants, quant.Date, quant.Year, quant.Time)
		return ok, !ok
	case qHowMany:
		ok := hasKind(a.quants, quant.Number, quant.Measure, quant.Percent, quant.Money, quant.Ordinal)
		return ok, !ok
	case qYesNo:
		if len(a.toks) == 0 {
			return false, true
		}
		return startsYesNo(a), false
	case qWho, qWhere:
		for i := range a.toks {
			t := &a.toks[i]
			if t.flags&fCapAny != 0 && !inDoc(q, t.hash) {
				return true, false
			}
		}
		return false, true
	}
	return false, false
}

func hasKind(qs []quant.Quantity, kinds ...quant.Kind) bool {
	for _, q := range qs {
		for _, k := range kinds {
			if q.Kind == k {
				return true
			}
		}
	}
	return false
}

// windowHasType reports whether a window holds the kind of thing the question
// asks for.
func (a *analysis) windowHasType(win window, qt questionType) bool {
	d := &a.ctxs[win.ctx]
	sp := a.windowSpan(win)
	switch qt {
	case qWhen, qHowMany:
		for _, q := range d.quants {
			if q.Start >= sp.start && q.End <= sp.end {
				if qt == qWhen && (q.Kind == quant.Date || q.Kind == quant.Year || q.Kind == quant.Time) {
					return true
				}
				if qt == qHowMany && q.Kind != quant.Date && q.Kind != quant.Year && q.Kind != quant.Time {
					return true
				}
			}
		}
		return false
	case qWho, qWhere, qWhich:
		for k := win.sent; k < win.sent+win.nsent; k++ {
			for _, t := range d.sentToks(k) {
				if t.flags&fCap != 0 && !inDoc(&a.q, t.hash) {
					return true
				}
			}
		}
		return false
	}
	return true
}

// questionBigrams is the share of adjacent pairs of question content words
// that also stand near each other (within three words, same order) in the
// window, or in any context when win.ctx is -2. It sees word order, which
// bag-of-words coverage cannot: a question that recombines the passage's
// words ("unanswerable" SQuAD questions) breaks its pairs.
func (a *analysis) questionBigrams(win window) float64 {
	if win.ctx == -1 {
		return 0
	}
	pairs, found := 0, 0
	prev := -1
	for i := range a.q.toks {
		if !a.q.toks[i].content() {
			continue
		}
		if prev >= 0 {
			pairs++
			if a.nearPair(win, a.q.toks[prev].hash, a.q.toks[i].hash) {
				found++
			}
		}
		prev = i
	}
	if pairs == 0 {
		return 1
	}
	return float64(found) / float64(pairs)
}

// nearPair reports whether content word h2 follows content word h1 within
// three content words, in the window or, when win.ctx is -2, in any one
// context. It walks the two occurrence lists of the term index together.
func (a *analysis) nearPair(win window, h1, h2 uint64) bool {
	if h1 == h2 {
		return false // a word is never its own follower
	}
	lo, hi := int32(0), int32(a.nsent)
	if win.ctx >= 0 {
		lo = a.sentBase[win.ctx] + int32(win.sent)
		hi = lo + int32(win.nsent)
	}
	o1 := a.head(h1)
	for o2 := a.head(h2); o2 != 0; o2 = a.occ[o2-1].next {
		x := &a.occ[o2-1]
		if x.sent < lo || x.sent >= hi {
			continue
		}
		// Skip the occurrences of h1 at or after x (the lists run backwards).
		for o1 != 0 {
			y := &a.occ[o1-1]
			if y.ctx > x.ctx || y.ctx == x.ctx && y.cpos >= x.cpos || y.sent >= hi {
				o1 = y.next
				continue
			}
			break
		}
		// o1 is now the nearest earlier h1: is it in the same context and
		// window, at most three content words back?
		if o1 != 0 {
			if y := &a.occ[o1-1]; y.ctx == x.ctx && y.sent >= lo && y.cpos >= x.cpos-3 {
				return true
			}
		}
	}
	return false
}
