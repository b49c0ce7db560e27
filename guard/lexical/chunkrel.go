package lexical

import (
	"math"
	"slices"

	"github.com/ragtriage/ragtriage/guard"
)

// chunkFeatures are the raw features of chunk relevance, one vector per
// context. They read the question and the contexts only, never the answer:
// whether a chunk holds what the question asks about does not depend on
// what the generator made of it, so a generator fault never reads as a
// retrieval fault. Like every feature set, none reads one text alone or
// names a dataset.
var chunkFeatures = []Feature{
	{"question_coverage", +1, false},          // weighted share of the question's words in the chunk
	{"relative_question_coverage", +1, false}, // question coverage over the best chunk's
	{"question_entities", +1, false},          // share of the question's names and numbers in the chunk
	{"lead_question_coverage", +1, false},     // weighted share of the question's words in the chunk's first two sentences (its heading or lead)
	{"lead_in_question", +1, false},           // weighted share of the words of the chunk's first sentence that the question holds (a heading that names what the question asks about)
	{"added_question_coverage", +1, false},    // weighted share of the question's words the chunk holds and the best-matching chunks lack: the other part of a two-part question
	{"named_by_question_chunk", +1, false},    // every name of the chunk's first sentence stands in another chunk whose first sentence the question names, times one minus relative_question_coverage: a passage on what the passage the question is about names (the other hop of a two-hop question)
}

// Indices into a chunk vector, kept in step with chunkFeatures.
const (
	cQCov = iota
	cQRel
	cQEnt
	cLead
	cLeadInQ
	cAdded
	cNamed
	nChunk
)

// chunkRelevance computes the per-context relevance features from the
// question and the contexts. Each question word's occurrences in the term
// index are read a bounded number of times, and each chunk's first sentence
// once: the cost is linear in the text, plus a sort of the question's
// words.
func (a *analysis) chunkRelevance(f *featureSet, v *vocabulary) {
	n := len(a.ctxs)
	if n == 0 {
		return
	}
	if cap(f.chunkBuf) < n*nChunk {
		f.chunkBuf = make([]float64, n*nChunk)
	}
	f.chunkBuf = f.chunkBuf[:n*nChunk]
	clear(f.chunkBuf)
	for ci := 0; ci < n; ci++ {
		f.chunks = append(f.chunks, f.chunkBuf[ci*nChunk:(ci+1)*nChunk:(ci+1)*nChunk])
	}
	qTotal, entTotal := a.chunkQuestionCoverage(f, v)
	maxQ := 0.0
	for _, c := range f.chunks {
		if qTotal > 0 {
			c[cQCov] /= qTotal
			c[cLead] /= qTotal
		}
		if entTotal > 0 {
			c[cQEnt] /= float64(entTotal)
		} else {
			c[cQEnt] = 1
		}
		maxQ = math.Max(maxQ, c[cQCov])
	}
	for _, c := range f.chunks {
		if maxQ > 0 {
			c[cQRel] = c[cQCov] / maxQ
		}
	}
	a.addedCoverage(f, v, maxQ, qTotal)
	a.leadInQuestion(f, v)
	a.namedByQuestionChunk(f, v)
}

// chunkScratch is the working memory of the chunk features, kept with the
// feature set so that a judgement does not allocate.
type chunkScratch struct {
	set   []uint64    // sorted distinct hashes: the question's words, then the chunks' first-sentence names
	count []int32     // for each name of set, the chunks that hold it and whose first sentence the question names
	posts []ctxPost   // the contexts holding each distinct question word, in decreasing order of context
	at    []postRange // for each question token, its word's range of posts
	seen  map[uint64]postRange
}

// ctxPost is one context that holds a question word, and whether one of the
// word's occurrences there is in its first two sentences.
type ctxPost struct {
	ctx  int32
	lead bool
}

// postRange is a word's range of chunkScratch.posts.
type postRange struct{ lo, hi int32 }

// questionPosts lists, for every content token of the question, the
// contexts that hold its word (s.at[i] indexes s.posts). A word is looked up
// in the occurrence index once, however often the question repeats it, so
// the cost is the index's size for the question's distinct words plus, per
// token, the count of contexts holding its word. All of it is metered.
func (a *analysis) questionPosts(s *chunkScratch) {
	s.posts, s.at = s.posts[:0], s.at[:0]
	clear(s.seen)
	q := a.q.toks
	for i := range q {
		t := &q[i]
		if !t.content() {
			s.at = append(s.at, postRange{})
			continue
		}
		r, ok := s.earlier(q, i)
		if !ok {
			r = a.walkPosts(s, t.hash)
			if len(q) > smallQuestion {
				if s.seen == nil {
					s.seen = make(map[uint64]postRange)
				}
				s.seen[t.hash] = r
			}
		}
		s.at = append(s.at, r)
		if !a.m.spend(int(r.hi - r.lo)) {
			return
		}
	}
}

// smallQuestion is the token count up to which a repeated word is found by
// scanning the question's earlier tokens instead of a map.
const smallQuestion = 32

// earlier returns the posts of an earlier token of q with the word of q[i].
func (s *chunkScratch) earlier(q []token, i int) (postRange, bool) {
	if len(q) > smallQuestion {
		r, ok := s.seen[q[i].hash]
		return r, ok
	}
	for k := 0; k < i; k++ {
		if q[k].hash == q[i].hash && q[k].content() {
			return s.at[k], true
		}
	}
	return postRange{}, false
}

// walkPosts appends the contexts holding h to s.posts and returns their
// range. Occurrences come in decreasing order of context, so a context's
// run of them is one post.
func (a *analysis) walkPosts(s *chunkScratch, h uint64) postRange {
	lo := int32(len(s.posts))
	for o := a.head(h); o != 0; o = a.occ[o-1].next {
		if !a.m.spend(1) {
			break
		}
		oc := &a.occ[o-1]
		lead := oc.sent-a.sentBase[oc.ctx] < 2
		if n := len(s.posts); n > int(lo) && s.posts[n-1].ctx == oc.ctx {
			s.posts[n-1].lead = s.posts[n-1].lead || lead
			continue
		}
		s.posts = append(s.posts, ctxPost{ctx: oc.ctx, lead: lead})
	}
	return postRange{lo, int32(len(s.posts))}
}

// chunkQuestionCoverage adds, in one pass over the question's tokens, the
// weight of the question's words each chunk holds (cQCov) and holds in its
// first two sentences (cLead), and the count of its names it holds (cQEnt).
// It returns the question's total weight and its count of names.
func (a *analysis) chunkQuestionCoverage(f *featureSet, v *vocabulary) (qTotal float64, entTotal int) {
	s := &f.chunkTmp
	a.questionPosts(s)
	for i, r := range s.at {
		t := &a.q.toks[i]
		if !t.content() {
			continue
		}
		wt := v.weight(t)
		qTotal += wt
		ent := t.entity()
		if ent {
			entTotal++
		}
		for _, p := range s.posts[r.lo:r.hi] {
			c := f.chunks[p.ctx]
			c[cQCov] += wt
			if ent {
				c[cQEnt]++
			}
			if p.lead {
				c[cLead] += wt
			}
		}
	}
	return qTotal, entTotal
}

// addedCoverage gives each chunk the weighted share of the question's words
// that it holds and no best chunk (one of highest question coverage maxQ)
// holds: what it adds to the passage that matches the question best, as the
// passage on the second part of a two-part question does. A sole best chunk
// gets its own coverage; best chunks tied with others get the words that
// none of the others holds. The result does not depend on the order of the
// contexts.
func (a *analysis) addedCoverage(f *featureSet, v *vocabulary, maxQ, qTotal float64) {
	if maxQ == 0 || qTotal == 0 {
		return
	}
	nBest := 0
	for _, c := range f.chunks {
		if c[cQCov] == maxQ {
			nBest++
		}
	}
	s := &f.chunkTmp
	for i, r := range s.at {
		t := &a.q.toks[i]
		if !t.content() {
			continue
		}
		posts := s.posts[r.lo:r.hi]
		if !a.m.spend(2 * len(posts)) {
			return
		}
		inBest := 0
		for _, p := range posts {
			if f.chunks[p.ctx][cQCov] == maxQ {
				inBest++
			}
		}
		wt := v.weight(t) / qTotal
		for _, p := range posts {
			best := f.chunks[p.ctx][cQCov] == maxQ
			if inBest == 0 || best && (inBest == 1 || nBest == 1) {
				f.chunks[p.ctx][cAdded] += wt
			}
		}
	}
}

// leadInQuestion gives each chunk the weighted share of its first
// sentence's words that the question holds (cLeadInQ): a heading or a lead
// sentence that names what the question asks about. The question's words
// are looked up in a sorted copy.
func (a *analysis) leadInQuestion(f *featureSet, v *vocabulary) {
	qset := f.chunkTmp.set[:0]
	for i := range a.q.toks {
		if t := &a.q.toks[i]; t.content() {
			qset = append(qset, t.hash)
		}
	}
	slices.Sort(qset)
	qset = slices.Compact(qset)
	f.chunkTmp.set = qset
	// A one-word Bloom filter of the question's words (a bit chosen by each
	// hash's top six bits) turns most of the chunks' words away before
	// they are looked up.
	var bloom uint64
	for _, h := range qset {
		bloom |= 1 << (h >> 58)
	}
	for ci := range a.ctxs {
		d := &a.ctxs[ci]
		if len(d.sents) == 0 {
			continue
		}
		total, got := 0.0, 0.0
		run := d.sentToks(0)
		for i := range run {
			t := &run[i]
			if !t.content() {
				continue
			}
			wt := v.weight(t)
			total += wt
			if bloom&(1<<(t.hash>>58)) == 0 {
				continue
			}
			if len(qset) <= smallSet {
				for _, h := range qset {
					if h >= t.hash {
						if h == t.hash {
							got += wt
						}
						break
					}
				}
			} else if _, ok := slices.BinarySearch(qset, t.hash); ok {
				got += wt
			}
		}
		if total > 0 {
			f.chunks[ci][cLeadInQ] = got / total
		}
	}
}

// smallSet is the size up to which leadInQuestion scans the question's
// words in order: a question's words are a few, and a scan costs less than
// a binary search's call and unpredictable branches.
const smallSet = 16

// namedByQuestionChunk sets cNamed of each chunk whose first sentence holds
// a name and whose every such name stands in another chunk named by the
// question (a chunk whose first sentence the question holds whole, cLeadInQ
// 1): to one minus its relative question coverage. A two-hop question
// ("the position held by the woman who played X") names one passage's
// subject; the passage the question needs next is on something that one
// names, and may share no word with the question. Each distinct name's
// occurrences are read once.
func (a *analysis) namedByQuestionChunk(f *featureSet, v *vocabulary) {
	// Only a chunk the question names (cLeadInQ 1) can vouch for another's
	// names: without one, or with a single chunk (which cannot vouch for
	// itself), no chunk qualifies, and the names need not be read.
	lead := false
	for _, c := range f.chunks {
		lead = lead || c[cLeadInQ] == 1
	}
	if !lead || len(f.chunks) < 2 {
		return
	}
	s := &f.chunkTmp
	s.set = s.set[:0]
	for ci := range a.ctxs {
		if len(a.ctxs[ci].sents) == 0 {
			continue
		}
		for _, t := range a.ctxs[ci].sentToks(0) {
			if t.content() && t.entity() {
				s.set = append(s.set, t.hash)
			}
		}
	}
	slices.Sort(s.set)
	s.set = slices.Compact(s.set)
	s.count = s.count[:0]
	for _, h := range s.set {
		n := int32(0)
		a.eachContext(h, func(ci int) {
			if f.chunks[ci][cLeadInQ] == 1 {
				n++
			}
		})
		s.count = append(s.count, n)
	}
	for ci, c := range f.chunks {
		if len(a.ctxs[ci].sents) == 0 {
			continue
		}
		self := int32(0)
		if c[cLeadInQ] == 1 {
			self = 1 // the chunk holds its own names
		}
		names, all := 0, true
		for _, t := range a.ctxs[ci].sentToks(0) {
			if !t.content() || !t.entity() {
				continue
			}
			names++
			x, _ := slices.BinarySearch(s.set, t.hash)
			all = all && s.count[x]-self > 0
		}
		if names > 0 && all {
			c[cNamed] = 1 - c[cQRel]
		}
	}
}

// eachContext calls fn once for every context holding h.
func (a *analysis) eachContext(h uint64, fn func(ci int)) {
	last := int32(-1)
	for o := a.head(h); o != 0; o = a.occ[o-1].next {
		if !a.m.spend(1) {
			return // over the work limit, or the request ended
		}
		if c := a.occ[o-1].ctx; c != last {
			fn(int(c))
			last = c
		}
	}
}

// chunksTo writes to est, one zero Estimate per context, the chunk
// relevance estimates of the contexts. Their evidence, like their features,
// reads the question and the contexts only. The evidence of the chunks that
// lean irrelevant (one item each) shares one allocation, and so do the
// items' details: a row of ten paragraphs, most of them off the question,
// would otherwise allocate three times a chunk.
func (j *Judge) chunksTo(est []guard.Estimate, a *analysis, f *featureSet, s *guard.Sample) {
	var lowAt [16]int32
	low := lowAt[:0] // the contexts whose estimate needs evidence
	if len(est) > len(lowAt) {
		low = make([]int32, 0, len(est))
	}
	for ci := range est {
		if j.chunkTo(&est[ci], f, s, ci) {
			low = append(low, int32(ci))
		}
	}
	if len(low) == 0 {
		return
	}
	var bufAt [1024]byte
	var endAt [16]int32
	buf, ends := bufAt[:0], endAt[:0]
	if len(low) > chunkDetailsOnStack {
		// Past what the stack buffer holds, the details are measured
		// first and written into one allocation of their size: grown by
		// append, the buffer's steps would allocate several times that.
		n := 0
		for _, ci := range low {
			n += len(appendChunkDetail(bufAt[:0], f.chunks[ci]))
		}
		buf, ends = make([]byte, 0, n), make([]int32, 0, len(low))
	}
	for _, ci := range low {
		buf = appendChunkDetail(buf, f.chunks[ci])
		ends = append(ends, int32(len(buf)))
	}
	details := string(buf)
	ev := make([]guard.Evidence, len(low))
	from := int32(0)
	for k, ci := range low {
		ev[k] = guard.Evidence{Decision: guard.ChunkRelevance, Kind: guard.EvidenceOffTopic, Detail: details[from:ends[k]],
			Quote: quoteCtx(a, s, int(ci), span{0, min(len(s.Contexts[ci].Text), 160)})}
		est[ci].Evidence = ev[k : k+1 : k+1]
		from = ends[k]
	}
}

// chunkDetailsOnStack is the number of chunk details chunksTo writes into
// its stack buffer: a detail takes about 100 bytes.
const chunkDetailsOnStack = 8

// chunkTo writes to *e, the zero Estimate, the chunk relevance estimate of
// context ci without its evidence, and reports whether it needs some
// (chunksTo adds it): it does when it leans irrelevant.
func (j *Judge) chunkTo(e *guard.Estimate, f *featureSet, s *guard.Sample, ci int) bool {
	id := s.Contexts[ci].ID
	if f.emptyQ {
		*e = guard.Abstain(guard.ChunkRelevance, id, noQuestion)
		return false
	}
	p, ok := j.predict(guard.ChunkRelevance, f.chunks[ci])
	if !ok {
		*e = guard.Abstain(guard.ChunkRelevance, id, "the profile has no chunk_relevance model")
		return false
	}
	e.Decision, e.ContextID, e.P = guard.ChunkRelevance, id, p
	return p < 0.5
}

// appendChunkDetail appends the detail of the evidence of a chunk that
// leans irrelevant, whose feature vector is c.
func appendChunkDetail(b []byte, c []float64) []byte {
	b = append(b, "holds "...)
	b = appendPct(b, 100*c[cQCov])
	b = append(b, "% of the question's weighted terms"...)
	if c[cQRel] == 1 {
		return append(b, ", as much as any chunk"...)
	}
	b = append(b, " and adds "...)
	b = appendPct(b, 100*c[cAdded])
	return append(b, "% to what the best-matching chunk holds"...)
}

// EstimatesChunks reports whether the judge estimates chunk relevance for
// s from its model: false when s's question has no content word, so that
// every chunk abstains (and no chunk can fail).
func (j *Judge) EstimatesChunks(s *guard.Sample) bool {
	a := analysisPool.Get().(*analysis)
	defer analysisPool.Put(a)
	loadSample(a, s, j.vocab)
	for i := range a.q.toks {
		if a.q.toks[i].content() {
			return true
		}
	}
	return false
}
