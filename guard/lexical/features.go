package lexical

import (
	"math"
	"slices"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical/internal/quant"
)

// Feature is one raw feature of a decision's model: its name and the
// direction it may push the probability. A sign of +1 means the feature can
// only raise P(decision true), −1 only lower it; fits keep to it
// (calibrate.LogisticConfig.Signs). Hard features are the evidence a
// confident negative needs (see HardEvidence).
type Feature struct {
	Name string
	Sign int
	Hard bool
}

// Feature sets per decision. Every feature compares texts with each other
// (answer with contexts, question with contexts, answer with reference); none
// reads one text alone, and none says which dataset a row came from (no
// counts of contexts, no answer length, no hedging vocabulary). A profile
// lists the names its weights were fitted for; loading a profile whose names
// differ fails.
var (
	groundFeatures = []Feature{
		{"support_min", +1, false},          // least supported answer sentence: share of its weighted words in its best two-sentence window
		{"sentence_support", +1, false},     // least supported answer sentence: share of its weighted words in one context sentence
		{"support_any", +1, false},          // weighted share of the answer's words found in some context
		{"containment", +1, false},          // unweighted share of the answer's content words found in some context
		{"token_support", +1, false},        // share of all the answer's words, function words included, found in some context
		{"bigram_support", +1, false},       // share of the answer's adjacent word pairs (function words included) found adjacent in a context
		{"exact_support", +1, false},        // every word and adjacent pair of the answer stands in a context, each sentence within one context sentence
		{"max_unsupported_idf", -1, false},  // rarest answer word found nowhere
		{"unsupported_entities", -1, true},  // names and numbers of the answer found in no context
		{"number_mismatches", -1, true},     // a quantity where the context has another value in the same slot
		{"unsupported_numbers", -1, true},   // a quantity no context states
		{"negation_flips", -1, true},        // a supported sentence whose negation differs from its window
		{"antonym_flips", -1, true},         // an answer word whose antonym stands in its window
		{"absent_claim", -1, true},          // a sentence most of whose content is in no context
		{"entity_outside_window", -1, true}, // a name or number of a supported sentence that its window lacks though a context states it elsewhere (a swapped entity)
		{"refusal", +1, false},              // the answer declines to answer (claims nothing)
	}
	contraFeatures = []Feature{
		{"number_mismatches", +1, true},
		{"negation_flips", +1, true},
		{"antonym_flips", +1, true},
		{"antonym_elsewhere", +1, true},  // an answer word absent from the contexts whose antonym is in one
		{"negation_mismatch", +1, false}, // the answer and its best window differ in negation (any support)
		{"unsupported_share", +1, false}, // 1 − support_min
	}
	relevFeatures = []Feature{
		{"question_in_answer", +1, false},              // weighted share of the question's words in the answer
		{"answer_window_question_coverage", +1, false}, // how much of the question the passage stating the answer covers
		{"type_match", +1, false},                      // the answer holds what the question asks for (a date for "when", …)
		{"type_mismatch", -1, false},                   // it plainly lacks it
		{"refusal", -1, false},
		{"yes_no_answer", +1, false},          // a yes/no question answered with yes or no
		{"answer_new_content", +1, false},     // weighted share of the answer's words that are not the question's (evasive answers echo it)
		{"answer_window_relative", +1, false}, // question coverage of the answer's passage over that of the question's best passage (off-topic answers come from elsewhere)
	}
	suffFeatures = []Feature{
		{"question_coverage", +1, false},         // weighted share of the question's words in some context
		{"window_question_coverage", +1, false},  // … in the best two-sentence window
		{"missing_question_entities", -1, false}, // names and numbers of the question in no context
		{"max_missing_idf", -1, false},           // rarest question word in no context
		{"type_in_window", +1, false},            // the window holds the kind of thing the question asks for
		{"window_question_order", +1, false},     // the question's word pairs stand near each other in that window
		{"context_question_order", +1, false},    // … in some context
		{"window_negation_mismatch", -1, false},  // question and window differ in negation
		{"window_antonym", -1, false},            // the window holds the antonym of a question word
		{"window_question_entities", +1, false},  // share of the question's names in the window
	}
	conflictFeatures = []Feature{
		{"number_conflict", +1, false}, {"negation_conflict", +1, false}, {"antonym_conflict", +1, false},
		{"conflict_question_relevance", +1, false},
	}
	correctFeatures = []Feature{
		{"f1", +1, false}, {"precision", +1, false}, {"recall", +1, false},
		{"negation_mismatch", -1, false}, {"number_mismatches", -1, false}, {"number_matches", +1, false},
		{"verbatim", +1, false}, {"both_refuse", +1, false}, {"refusal_mismatch", -1, false},
	}
)

// Indices into the groundedness vector, kept in step with groundFeatures.
const (
	gSupMin = iota
	gSentSup
	gSupAny
	gContain
	gToken
	gBigram
	gExact
	gMaxUnsupIDF
	gUnsupEnt
	gNumMismatch
	gNumUnsup
	gNegFlip
	gAntFlip
	gAbsent
	gEntOut
	gRefusal
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
	sent   int // answer sentence
	tok    int // answer token index (antonym flips), -1 for negation
	negTok int // answer token index of the word negated on one side only (negation flips)
	win    window
	anti   uint64
}

type conflictPair struct {
	ci, si, cj, sj int // contexts and sentences (within context)
	qi, qj         int // quantity indices, -1 for negation/antonym conflicts
	kind           string
	score          float64
}

// featureSet is every raw feature of one sample plus what evidence needs.
// Its blocks are computed on demand (see need): done says which are.
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
	swapped    []int // answer token indices of entities stated outside their sentence's window
	conflicts  []conflictPair
	refusal    bool
	emptyQ     bool // the question has no content word
	qtype      questionType
	ansContent int   // content words of the answer
	missingQ   []int // question token indices missing from every context
	ansWin     window
	qWin       window // the question's best window (see part)
	chunkBuf   []float64
	chunkTmp   chunkScratch
	done       part
}

// reset forgets every block computed from the answer and the contexts. The
// question's type and emptiness (see prepareQuestion) are kept.
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
	f.swapped = f.swapped[:0]
	f.conflicts = f.conflicts[:0]
	f.missingQ = f.missingQ[:0]
	f.refusal = false
	f.ansWin = window{ctx: -1}
	f.done = 0
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// part is a set of feature blocks. Each decision reads one block
// (groundedness and contradiction share theirs). Relevance and sufficiency
// share the question's best window, partQWin.
type part uint8

const (
	partGround part = 1 << iota // groundedness and contradiction
	partRelev
	partSuff
	partChunk
	partConflict
	partCorrect
	partQWin

	partAll = partGround | partRelev | partSuff | partChunk | partConflict | partCorrect
)

// decisionPart is the block each decision reads.
var decisionPart = [...]part{guard.ChunkRelevance: partChunk, guard.ContextSufficiency: partSuff,
	guard.ContextConflict: partConflict, guard.AnswerRelevance: partRelev, guard.Groundedness: partGround,
	guard.Contradiction: partGround, guard.Correctness: partCorrect}

// partsOf is the union of the blocks the decisions ds read.
func partsOf(ds []guard.Decision) part {
	var p part
	for _, d := range ds {
		if d.Valid() {
			p |= decisionPart[d]
		}
	}
	return p
}

// extract computes every feature of the analyzed sample.
func extract(a *analysis, v *vocabulary, f *featureSet) {
	prepare(a, f)
	f.need(a, v, partAll)
}

// prepare resets f and reads what every decision shares: synonyms, the
// question's type, the answer's words that the question holds, and whether
// the answer declines to answer.
func prepare(a *analysis, f *featureSet) {
	f.reset()
	prepareQuestion(a, f)
	prepareAnswer(a, f)
}

// need computes the blocks of p that f does not hold yet. prepare must have
// run. Blocks do not depend on each other, so any order of requests gives
// the same values as extract.
func (f *featureSet) need(a *analysis, v *vocabulary, p part) {
	p &^= f.done
	if p&partGround != 0 {
		groundedness(a, v, f)
	}
	a.m.at("comparing the question and the answer with the contexts")
	if p&(partRelev|partSuff) != 0 && f.done&partQWin == 0 {
		f.qWin = a.questionWindow(v)
		f.done |= partQWin
	}
	if p&partRelev != 0 {
		relevance(a, v, f)
	}
	if p&partSuff != 0 {
		sufficiency(a, v, f)
	}
	if p&partChunk != 0 {
		a.chunkRelevance(f, v)
	}
	if p&partConflict != 0 {
		a.conflictFeatures(f, v)
	}
	if p&partCorrect != 0 && a.hasRef {
		correctness(a, v, f)
	}
	f.done |= p
}

// prepareQuestion gives the question's words their synonyms found in the
// contexts and reads what the question asks for. Synonyms: a word found in
// no context, one of whose WordNet synonyms is, takes that synonym's
// identity ("purchase" for "buy"), so that every comparison sees the same
// word.
func prepareQuestion(a *analysis, f *featureSet) {
	a.substituteSynonyms(&a.q)
	f.qtype = classifyQuestion(&a.q)
	f.emptyQ = true
	for i := range a.q.toks {
		if a.q.toks[i].content() {
			f.emptyQ = false
			break
		}
	}
}

// prepareAnswer gives the answer's words their synonyms, marks those the
// question also holds (fInQ), counts its content words and reads whether
// it declines to answer: it does when its first sentence does (read by
// markPreambles on the same clause). Run it after prepareQuestion.
func prepareAnswer(a *analysis, f *featureSet) {
	a.substituteSynonyms(&a.a)
	f.ansContent = 0
	for i := range a.a.toks {
		t := &a.a.toks[i]
		if inDoc(&a.q, t.hash) {
			t.flags |= fInQ
		}
		if t.content() {
			f.ansContent++
		}
	}
	f.refusal = a.refusal0
}

// relevance computes the answer relevance features: how much of the
// question the answer and the passage stating it cover, and whether the
// answer is the kind of thing the question asks for.
func relevance(a *analysis, v *vocabulary, f *featureSet) {
	qInA := coverage(a.q.toks, v, func(t *token) bool { return inDoc(&a.a, t.hash) })
	aInQ := coverage(a.a.toks, v, inQ)
	match, mismatchT := typeMatch(f.qtype, &a.q, &a.a)
	// Where the answer is stated in answer to this question, and how much
	// of the question that window covers.
	ansWinQ := 0.0
	f.ansWin, ansWinQ = a.answerWindow(v)
	yesno := f.qtype == qYesNo && len(a.a.toks) > 0 && startsYesNo(&a.a)
	newContent := 1 - aInQ
	if f.ansContent == 0 {
		newContent = 0
	}
	qWin := f.qWin
	rel := 0.0
	if qWin.ctx >= 0 && qWin.coverage > 0 {
		rel = math.Min(1, ansWinQ/qWin.coverage)
	}
	f.relev = append(f.relev, qInA, ansWinQ, b2f(match), b2f(mismatchT), b2f(f.refusal), b2f(yesno), newContent, rel)
}

// sufficiency computes the context sufficiency features. They read the
// question and the contexts only, never the answer.
func sufficiency(a *analysis, v *vocabulary, f *featureSet) {
	qWin := f.qWin
	covAll := coverage(a.q.toks, v, func(t *token) bool { return a.inContexts(t.hash) })
	covWin := 0.0
	if qWin.ctx >= 0 {
		covWin = qWin.coverage
	}
	missEnt, maxMiss := missingQuestionTerms(a, v, f)
	typeInWin, wNeg, wAnt, wEnt := false, 0.0, 0.0, 0.0
	if qWin.ctx >= 0 {
		typeInWin = a.windowHasType(qWin, f.qtype)
		wAnt, wEnt = questionInWindow(a, qWin)
		wNeg = b2f(hasNeg(a.q.toks) != a.windowHasNeg(qWin))
	}
	words := a.questionWords()
	f.suff = append(f.suff, covAll, covWin, math.Log1p(float64(missEnt)), maxMiss, b2f(typeInWin),
		a.questionBigrams(qWin, words), a.questionBigrams(window{ctx: -2}, words), wNeg, wAnt, wEnt)
}

// missingQuestionTerms records the question's content words that no context
// holds, and returns how many of them are names or numbers and the weight
// of the rarest.
func missingQuestionTerms(a *analysis, v *vocabulary, f *featureSet) (missEnt int, maxMiss float64) {
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
	return missEnt, maxMiss
}

// questionInWindow reads the question against its best window: whether the
// window holds the antonym of a question word it lacks (1 or 0), and the
// share of the question's names it holds (1 without names).
func questionInWindow(a *analysis, qWin window) (wAnt, wEnt float64) {
	ents, entsIn := 0, 0
	for i := range a.q.toks {
		t := &a.q.toks[i]
		if !t.content() {
			continue
		}
		in := a.windowHasContent(qWin, t.hash)
		if t.entity() {
			ents++
			if in {
				entsIn++
			}
		}
		if !in && t.flags&fAnt != 0 {
			for _, ant := range antonymOf.of(t.hash) {
				if a.windowHas(qWin, ant) {
					wAnt = 1
				}
			}
		}
	}
	wEnt = 1
	if ents > 0 {
		wEnt = float64(entsIn) / float64(ents)
	}
	return wAnt, wEnt
}

// correctness computes the correctness features: the answer read against
// the reference. Call it only with a reference.
func correctness(a *analysis, v *vocabulary, f *featureSet) {
	inRef := func(t *token) bool { return inDoc(&a.rf, t.hash) }
	inAns := func(t *token) bool { return inDoc(&a.a, t.hash) }
	prec := coverage(a.a.toks, v, inRef)
	rec := coverage(a.rf.toks, v, inAns)
	f1 := 0.0
	if prec+rec > 0 {
		f1 = 2 * prec * rec / (prec + rec)
	}
	nm, nmatch := 0, 0
	a.m.at("comparing the answer's numbers with the reference's")
	for _, q := range a.a.quants {
		if !a.m.spend(len(a.rf.quants)) {
			break
		}
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
	verb := (refContent > 0 && containsSeq(a.a.toks, a.rf.toks)) || (f.ansContent > 0 && containsSeq(a.rf.toks, a.a.toks))
	f.correct = append(f.correct, f1, prec, rec, b2f(hasNeg(a.a.toks) != hasNeg(a.rf.toks)),
		float64(nm), float64(nmatch), b2f(verb), b2f(f.refusal && refRefusal), b2f(f.refusal != refRefusal))
}

// substituteSynonyms gives each content word of d that no context holds the
// identity of a WordNet synonym that some context does hold, and flags it
// fSyn.
func (a *analysis) substituteSynonyms(d *doc) {
	if len(a.ctxs) == 0 {
		return
	}
	d.setOK = false
	for i := range d.toks {
		t := &d.toks[i]
		if t.flags&fSynSet == 0 || !t.content() || a.inContexts(t.hash) {
			continue
		}
		for _, s := range synonymOf.of(t.hash) {
			if a.inContexts(s) {
				t.hash = s
				t.flags |= fSyn
				break
			}
		}
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
	a.m.spend(int(d.sentAt[min(win.sent+win.nsent, len(d.sents))] - d.sentAt[win.sent]))
	for k := win.sent; k < win.sent+win.nsent; k++ {
		if hasNeg(d.sentToks(k)) {
			return true
		}
	}
	return false
}

func containsSeq(hay, needle []token) bool {
	if len(needle) == 0 || len(needle) > len(hay) {
		return false
	}
	// Knuth–Morris–Pratt on the hashes: linear in both.
	fail := make([]int32, len(needle))
	for i, k := 1, int32(0); i < len(needle); i++ {
		for k > 0 && needle[i].hash != needle[k].hash {
			k = fail[k-1]
		}
		if needle[i].hash == needle[k].hash {
			k++
		}
		fail[i] = k
	}
	k := int32(0)
	for i := range hay {
		for k > 0 && hay[i].hash != needle[k].hash {
			k = fail[k-1]
		}
		if hay[i].hash == needle[k].hash {
			k++
		}
		if int(k) == len(needle) {
			return true
		}
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
			if auxStart(q.s[toks[0].start:toks[0].end]) {
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

// auxStart reports whether auxStarts holds the word w in lower case: what
// auxStarts[strings.ToLower(w)] says, without building the lower-case
// string for a short ASCII word (every word of auxStarts is one). Other
// words take strings.ToLower: a few non-ASCII letters lower-case to ASCII
// ones ("İ" to "i").
func auxStart(w string) bool {
	var b [8]byte
	if len(w) > len(b) {
		return auxStarts[strings.ToLower(w)]
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 {
			return auxStarts[strings.ToLower(w)]
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return auxStarts[string(b[:len(w)])]
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
func (a *analysis) questionBigrams(win window, words []termHead) float64 {
	if win.ctx == -1 {
		return 0
	}
	if len(words) < 2 {
		return 1 // no pair
	}
	found := 0
	for k := 1; k < len(words); k++ {
		w1, w2 := words[k-1], words[k]
		if a.nearPairAt(win, w1.hash, w2.hash, w1.head, w2.head) {
			found++
		}
	}
	return float64(found) / float64(len(words)-1)
}

// termHead is a content word and the head of its occurrences in the term
// index (see analysis.head).
type termHead struct {
	hash uint64
	head int32
}

// questionWords lists the question's content words in order with their
// heads in the term index, for questionBigrams: each word is looked up
// once, not once for each pair it is in and each window.
func (a *analysis) questionWords() []termHead {
	words := a.qWords[:0]
	for i := range a.q.toks {
		if t := &a.q.toks[i]; t.content() {
			words = append(words, termHead{t.hash, a.head(t.hash)})
		}
	}
	a.qWords = words
	return words
}

// nearPair reports whether content word h2 follows content word h1 within
// three content words, in the window or, when win.ctx is -2, in any one
// context. It walks the two occurrence lists of the term index together.
func (a *analysis) nearPair(win window, h1, h2 uint64) bool {
	if h1 == h2 {
		return false // a word is never its own follower
	}
	return a.nearPairAt(win, h1, h2, a.head(h1), a.head(h2))
}

// nearPairAt is nearPair for words whose heads in the term index are o1
// and o2 (see analysis.head).
func (a *analysis) nearPairAt(win window, h1, h2 uint64, o1, o2 int32) bool {
	if h1 == h2 {
		return false // a word is never its own follower
	}
	lo, hi := int32(0), int32(a.nsent)
	if win.ctx >= 0 {
		lo = a.sentBase[win.ctx] + int32(win.sent)
		hi = lo + int32(win.nsent)
	}
	for ; o2 != 0; o2 = a.occ[o2-1].next {
		if !a.m.spend(1) {
			return false
		}
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

// pairHash combines the hashes of two adjacent words.
func pairHash(h1, h2 uint64) uint64 { return (h1*0x9e3779b97f4a7c15 ^ h2) * 0xbf58476d1ce4e5b9 }

// buildPairs records every pair of adjacent words (within a sentence,
// function words included) of every context in an open-addressing set,
// once per load of the contexts.
func (a *analysis) buildPairs() {
	if a.pairsBuilt {
		return // the contexts have not changed (see JudgeClaims)
	}
	a.pairsBuilt = true
	n := 0
	for ci := range a.ctxs {
		n += len(a.ctxs[ci].toks)
	}
	size := 64
	for size < 4*n {
		size <<= 1
	}
	if cap(a.pairs) < size {
		a.pairs = make([]uint64, size)
	} else {
		a.pairs = a.pairs[:size]
		clear(a.pairs)
	}
	mask := uint64(size - 1)
	for ci := range a.ctxs {
		toks := a.ctxs[ci].toks
		for i := 1; i < len(toks); i++ {
			if toks[i].sent != toks[i-1].sent {
				continue
			}
			h := pairHash(toks[i-1].hash, toks[i].hash) | 1 // 0 marks an empty slot
			j := h & mask
			for a.pairs[j] != 0 && a.pairs[j] != h {
				j = (j + 1) & mask
			}
			a.pairs[j] = h
		}
		for i := range toks {
			h := pairHash(0, toks[i].hash) | 1
			j := h & mask
			for a.pairs[j] != 0 && a.pairs[j] != h {
				j = (j + 1) & mask
			}
			a.pairs[j] = h
		}
	}
}

func (a *analysis) hasPair(h1, h2 uint64) bool {
	if a.ansBuilt {
		return a.answerHasPair(pairHash(h1, h2) | 1)
	}
	if len(a.pairs) == 0 {
		return false
	}
	h := pairHash(h1, h2) | 1
	mask := uint64(len(a.pairs) - 1)
	for j := h & mask; a.pairs[j] != 0; j = (j + 1) & mask {
		if a.pairs[j] == h {
			return true
		}
	}
	return false
}

// buildAnswerPairs is buildPairs turned around, for an answer judged
// alone: it records d's pairs of adjacent words and its words in a small
// set, then marks those some context holds: through the term index when it
// shows them all, else in one pass over the contexts. hasPair then reads
// the marks: the same answers as the contexts' table, without writing a
// table as large as the contexts.
func (a *analysis) buildAnswerPairs(d *doc) {
	size := 16
	for size < 4*len(d.toks) {
		size <<= 1
	}
	a.ansPairs = slices.Grow(a.ansPairs[:0], size)[:size]
	a.ansFound = slices.Grow(a.ansFound[:0], size)[:size]
	clear(a.ansPairs)
	clear(a.ansFound)
	a.ansSig = [4]uint64{}
	for i := range d.toks {
		if i > 0 && d.toks[i].sent == d.toks[i-1].sent {
			a.addAnswerPair(pairHash(d.toks[i-1].hash, d.toks[i].hash) | 1)
		}
		a.addAnswerPair(pairHash(0, d.toks[i].hash) | 1)
	}
	// The term index shows most answers that the contexts support whole
	// (see proveAnswerPairs); for the others the contexts are read. What
	// the search marked before it gave up, the reading marks again.
	if !a.proveAnswerPairs(d) {
		a.scanAnswerPairs()
	}
	a.ansBuilt = true
}

// scanAnswerPairs marks the answer's words and pairs that some context
// holds by reading every context's tokens (see buildAnswerPairs).
func (a *analysis) scanAnswerPairs() {
	// The contexts' words are many and few of them are the answer's: the
	// signature test is made here, on a local copy, and only the words and
	// pairs that pass it look into the table. A pair whose second word
	// fails it is not tested at all: the answer's pairs are of its words,
	// and every word of the answer is in the signature.
	sig := a.ansSig
	for ci := range a.ctxs {
		toks := a.ctxs[ci].toks
		prev, prevSent := uint64(0), int32(-1)
		for i := range toks {
			t := &toks[i]
			if u := pairHash(0, t.hash) | 1; sig[u>>62]&(1<<(u>>56&63)) != 0 {
				a.markAnswerPair(u)
				if t.sent == prevSent {
					if h := pairHash(prev, t.hash) | 1; sig[h>>62]&(1<<(h>>56&63)) != 0 {
						a.markAnswerPair(h)
					}
				}
			}
			prev, prevSent = t.hash, t.sent
		}
	}
}

// proveAnswerPairs marks the answer's words and pairs that the term index
// shows in a context, and reports whether that is all of them; when it is
// not, the contexts must be read (the index holds content words only, and a
// word or pair it does not show may still stand in a context). A word is
// shown by an occurrence; a pair by an occurrence of one of its words
// whose neighbour in the same sentence is the other. The search stops at
// the first word or pair it cannot show, and after as many steps as the
// contexts have tokens, so that it never costs much more than reading them.
func (a *analysis) proveAnswerPairs(d *doc) bool {
	budget := 0
	for ci := range a.ctxs {
		budget += len(a.ctxs[ci].toks)
	}
	for i := range d.toks {
		h := d.toks[i].hash
		if i > 0 && d.toks[i].sent == d.toks[i-1].sent {
			h0 := d.toks[i-1].hash
			ok, steps := a.pairShown(h0, h, budget)
			if !ok {
				return false
			}
			budget -= steps
			a.markAnswerPair(pairHash(h0, h) | 1)
			a.markAnswerPair(pairHash(0, h0) | 1)
			a.markAnswerPair(pairHash(0, h) | 1)
			continue
		}
		if i+1 < len(d.toks) && d.toks[i+1].sent == d.toks[i].sent {
			continue // the pair it opens shows it, or the search fails there
		}
		if a.head(h) == 0 {
			return false
		}
		a.markAnswerPair(pairHash(0, h) | 1)
	}
	return true
}

// pairShown reports whether the term index shows the words h0 and h1
// adjacent, in this order, in one sentence of a context, visiting at most
// budget occurrences; it also returns how many it visited.
func (a *analysis) pairShown(h0, h1 uint64, budget int) (ok bool, steps int) {
	// The occurrences of the second word, each looking back; or, when it
	// is no content word, those of the first, looking ahead.
	o, back := a.head(h1), true
	if o == 0 {
		o, back = a.head(h0), false
	}
	for ; o != 0 && steps < budget; o = a.occ[o-1].next {
		steps++
		oc := &a.occ[o-1]
		toks := a.ctxs[oc.ctx].toks
		k, want := int(oc.tok)+1, h1
		if back {
			k, want = int(oc.tok)-1, h0
		}
		if k >= 0 && k < len(toks) && toks[k].hash == want && toks[k].sent == toks[oc.tok].sent {
			return true, steps
		}
	}
	return false, steps
}

// addAnswerPair puts pair hash h (never 0) in the answer's set.
func (a *analysis) addAnswerPair(h uint64) {
	a.ansSig[h>>62] |= 1 << (h >> 56 & 63)
	mask := uint64(len(a.ansPairs) - 1)
	j := h & mask
	for a.ansPairs[j] != 0 && a.ansPairs[j] != h {
		j = (j + 1) & mask
	}
	a.ansPairs[j] = h
}

// markAnswerPair marks pair hash h as held by a context, if the answer has
// it. The set's signature (a Bloom filter on the hash's top bits, which the
// table's slots do not read) turns most of the contexts' pairs away before
// they walk a run of occupied slots.
func (a *analysis) markAnswerPair(h uint64) {
	if a.ansSig[h>>62]&(1<<(h>>56&63)) == 0 {
		return
	}
	mask := uint64(len(a.ansPairs) - 1)
	for j := h & mask; a.ansPairs[j] != 0; j = (j + 1) & mask {
		if a.ansPairs[j] == h {
			a.ansFound[j] = true
			return
		}
	}
}

// answerHasPair reports whether some context holds the answer's pair hash h.
func (a *analysis) answerHasPair(h uint64) bool {
	mask := uint64(len(a.ansPairs) - 1)
	for j := h & mask; a.ansPairs[j] != 0; j = (j + 1) & mask {
		if a.ansPairs[j] == h {
			return a.ansFound[j]
		}
	}
	return false
}

// bigramSupport is the share of d's adjacent word pairs (within a sentence,
// function words included, attribution preambles left out) that some context
// holds adjacent; 1 when d has no pair, 0 without contexts.
func (a *analysis) bigramSupport(d *doc) float64 {
	if len(a.ctxs) == 0 {
		return 0
	}
	if a.pairsBuilt || a.manyAns {
		a.buildPairs()
	} else {
		a.buildAnswerPairs(d)
	}
	pairs, found := 0, 0
	for i := 1; i < len(d.toks); i++ {
		t0, t1 := &d.toks[i-1], &d.toks[i]
		if t0.sent != t1.sent || t0.flags&fPre != 0 {
			continue
		}
		pairs++
		if a.hasPair(t0.hash, t1.hash) {
			found++
		}
	}
	if pairs == 0 {
		return 1
	}
	return float64(found) / float64(pairs)
}

// tokenSupport is the share of d's words (function words included,
// attribution preambles left out) that some context holds; call it after
// bigramSupport, which builds the table it reads.
func (a *analysis) tokenSupport(d *doc) float64 {
	if len(a.ctxs) == 0 {
		return 0
	}
	n, found := 0, 0
	for i := range d.toks {
		t := &d.toks[i]
		if t.flags&fPre != 0 {
			continue
		}
		n++
		if a.hasPair(0, t.hash) || t.flags&fGiven != 0 {
			found++
		}
	}
	if n == 0 {
		return 1
	}
	return float64(found) / float64(n)
}

// clauses calls fn with the token ranges [from, to) of the clauses of
// tokens [lo, hi) of d: runs of one sentence with no ',', ';', ':',
// parenthesis, dash or line break between neighbours.
func clauses(d *doc, lo, hi int, fn func(from, to int)) {
	start := lo
	for i := lo + 1; i <= hi; i++ {
		if i == hi || d.toks[i].sent != d.toks[i-1].sent || clauseBreak(d.s, int(d.toks[i-1].end), int(d.toks[i].start)) || clauseWords[d.toks[i].hash] {
			if i > start {
				fn(start, i)
			}
			start = i
		}
	}
}

var hOnly = normHash("only")

// clauseWords open a new clause: relative pronouns and subordinating or
// contrasting conjunctions ("… warranty that also covers limescale", "…
// defects but not limescale damage").
var clauseWords = func() map[uint64]bool {
	m := map[uint64]bool{}
	for _, w := range strings.Fields("that which who whom whose but while whereas although though because since unless if when") {
		m[normHash(w)] = true
	}
	return m
}()

// boundWords follow a negation that sets a bound rather than denying a
// claim: "no more than 3", "do not take more than 3", "no later than".
var boundWords = func() map[uint64]bool {
	m := map[uint64]bool{}
	for _, w := range strings.Fields("more less later earlier fewer longer greater higher lower above over exceed beyond under below") {
		m[normHash(w)] = true
	}
	return m
}()

// negatedClause reports whether tokens [from, to) of d hold a negation that
// denies (not "not only", not a bound such as "no more than").
func negatedClause(d *doc, from, to int) bool {
	for j := from; j < to; j++ {
		if d.toks[j].flags&fNeg == 0 {
			continue
		}
		if j+1 < to && (d.toks[j+1].hash == hOnly || d.toks[j+1].flags&fNum != 0) {
			continue // "not only", "No. 2"
		}
		bound := false
		for m := j + 1; m < to && m <= j+3; m++ {
			if boundWords[d.toks[m].hash] {
				bound = true
				break
			}
		}
		if !bound {
			return true
		}
	}
	return false
}

func clauseBreak(s string, from, to int) bool {
	if from < 0 || to > len(s) || from >= to {
		return false
	}
	for _, c := range []byte(s[from:to]) {
		switch c {
		case ',', ';', ':', '(', ')', '\n':
			return true
		}
	}
	return strings.Contains(s[from:to], "—") || strings.Contains(s[from:to], " - ")
}

// negationFlip looks for a clause of answer sentence k whose content the
// window states in one clause (at least 60% of its weighted words, numbers
// aside) with the opposite polarity: one denies, the other does not. It
// returns the index of the answer clause's first token.
func (a *analysis) negationFlip(k int, win window, v *vocabulary) (int, bool) {
	d := &a.a
	c := &a.ctxs[win.ctx]
	cLo := int(c.sentAt[win.sent])
	cHi := int(c.sentAt[min(win.sent+win.nsent, len(c.sents))])
	found, at := false, -1
	clauses(d, int(d.sentAt[k]), int(d.sentAt[k+1]), func(from, to int) {
		if found {
			return
		}
		total, n := 0.0, 0
		for i := from; i < to; i++ {
			if t := &d.toks[i]; t.content() && t.flags&fNum == 0 {
				total += v.weight(t)
				n++
			}
		}
		if n < 2 || total == 0 {
			return
		}
		negA := negatedClause(d, from, to)
		clauses(c, cLo, cHi, func(cf, ct int) {
			if found || !a.m.spend((to-from)*(ct-cf)) {
				return
			}
			// A clause of the same polarity is no flip however much of
			// the answer's clause it holds: test that first, which reads
			// the clause once, before matching word against word.
			if negatedClause(c, cf, ct) == negA {
				return
			}
			got := 0.0
			for i := from; i < to; i++ {
				t := &d.toks[i]
				if !t.content() || t.flags&fNum != 0 {
					continue
				}
				for j := cf; j < ct; j++ {
					if c.toks[j].hash == t.hash {
						got += v.weight(t)
						break
					}
				}
			}
			if got/total >= 0.6 {
				found, at = true, from
			}
		})
	})
	return at, found
}

// alignedIn reports whether hash ant stands in the window next to (within
// two words of) a content word that also stands within two words of answer
// token i of run.
func (a *analysis) alignedIn(win window, run []token, i int, ant uint64) bool {
	d := &a.ctxs[win.ctx]
	lo := int(d.sentAt[win.sent])
	hi := int(d.sentAt[min(win.sent+win.nsent, len(d.sents))])
	a.m.spend(hi - lo)
	for k := lo; k < hi; k++ {
		if d.toks[k].hash != ant {
			continue
		}
		// Content neighbours of the antonym in the context.
		for dj := -3; dj <= 3; dj++ {
			j := k + dj
			if dj == 0 || j < lo || j >= hi || d.toks[j].sent != d.toks[k].sent || !d.toks[j].content() {
				continue
			}
			h := d.toks[j].hash
			for di := -3; di <= 3; di++ {
				if m := i + di; di != 0 && m >= 0 && m < len(run) && run[m].content() && run[m].hash == h {
					return true
				}
			}
		}
	}
	return false
}

// structural reports whether quantity q of text s is a list marker ("1." or
// "2)" at the start of a line, followed by the item's text) or a citation
// ("[4]"), not a claim. A line that is only "2005." is an answer.
func structural(s string, q quant.Quantity) bool {
	if q.Start > 0 && s[q.Start-1] == '[' && q.End < len(s) && s[q.End] == ']' {
		return true
	}
	if q.End+2 < len(s) && (s[q.End] == '.' || s[q.End] == ')') && (s[q.End+1] == ' ' || s[q.End+1] == '\t') && s[q.End+2] != '\n' && s[q.End+2] != ' ' {
		i := q.Start - 1
		for i >= 0 && (s[i] == ' ' || s[i] == '\t' || s[i] == '-' || s[i] == '*') {
			i--
		}
		return i < 0 || s[i] == '\n'
	}
	return false
}

func inRun(run []token, h uint64) bool {
	for i := range run {
		if run[i].hash == h {
			return true
		}
	}
	return false
}

// afterBreak reports whether the word at byte i of s opens a line, a list
// item, a quotation or a parenthesis, where a capital says nothing about a
// name ("- Develop a plan", "Note: Offering …").
func afterBreak(s string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch s[j] {
		case ' ', '\t':
			continue
		case '\n', ':', '-', '*', '(', '"', '\'', '[':
			return true
		case 0x80, 0xa2, 0x9c: // the tails of •, “ and ‘ in UTF-8
			return true
		}
		return false
	}
	return true
}

// quantAligned reports whether answer quantity q and quantity c of context ci
// are said of the same thing: a content word (numbers aside) within four
// words of q in the answer is also within four words of c in the context.
func (a *analysis) quantAligned(q quant.Quantity, ci int, c quant.Quantity) bool {
	d := &a.ctxs[ci]
	found := false
	eachNearWord(a.a.toks, q.Start, q.End, func(h uint64) {
		if found {
			return
		}
		eachNearWord(d.toks, c.Start, c.End, func(h2 uint64) { found = found || h == h2 })
	})
	return found
}
