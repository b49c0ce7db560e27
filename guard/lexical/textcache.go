package lexical

import (
	"hash/maphash"
	"strings"
	"sync"
	"unsafe"

	"github.com/ragtriage/ragtriage/guard/lexical/internal/quant"
)

// DefaultTextCache is the byte budget of a Judge's text cache unless
// WithTextCache sets another.
const DefaultTextCache = 8 << 20

// WithTextCache sets the byte budget of the judge's text cache. What
// reading a context, a question or a reference costs (its tokens,
// sentences and quantities) is kept for the texts read more than once, and
// a later sample that holds the same text copies it instead of reading it
// again. RAG traffic retrieves the same chunks for many questions (the
// development SQuAD rows hold 83 distinct paragraphs for 706 questions),
// and an evaluation judges the same question with several answers
// (HaluEval's rows come in pairs); reading the texts is about half of an
// evaluation. Answers are never kept: they seldom repeat. Results never
// depend on the cache: a hit gives what a fresh read gives
// (TestTextCacheGivesTheSameEstimates). 0 turns it off; a negative budget
// is 0. The cache keeps the texts it holds in the process's memory, for as
// long as they stay in it; nothing leaves the process.
func WithTextCache(bytes int) Option {
	return func(j *Judge) {
		j.cache = newTextCache(max(bytes, 0))
	}
}

// textCache keeps the analyses of texts (see analysis.analyze) for the
// samples that hold them again. It is shared by the judge's concurrent
// calls. A text is stored the second time it is read (the first time only
// its hash is noted), so that texts read once, the rule for the contexts
// of many deployments, cost no copy. Memory is bounded by the budget: a
// sixteenth of it holds the hashes of texts read once (a shard's set is
// emptied when full), the rest the entries: each shard keeps two
// generations, and when the newer one holds half the shard's part the
// older one is dropped whole (a hit in the older one moves the entry to
// the newer one). A nil *textCache keeps nothing.
type textCache struct {
	seed    maphash.Seed
	budget  int // a shard's bytes for entries
	seenMax int // a shard's hashes of texts read once
	shards  [textShards]textShard
}

const (
	textShards = 8
	// seenBytes is about what one hash of a text read once costs in a
	// shard's set (a map entry, with the map's slack).
	seenBytes = 24
)

type textShard struct {
	mu       sync.Mutex
	cur, old map[uint64]*textEntry
	curBytes int
	seen     map[uint64]struct{}
}

// textEntry is the stored analysis of one text. It is never changed once
// stored: readers copy it into their own doc.
type textEntry struct {
	text   string
	toks   []token
	sents  []span
	sentAt []int32
	quants []quant.Quantity
	size   int
}

// newTextCache returns a cache of budget bytes, nil when budget is 0.
func newTextCache(budget int) *textCache {
	if budget <= 0 {
		return nil
	}
	shard := budget / textShards
	seenMax := max(shard/16/seenBytes, 16)
	c := &textCache{seed: maphash.MakeSeed(), budget: max(shard-seenMax*seenBytes, 1), seenMax: seenMax}
	for i := range c.shards {
		c.shards[i].cur = map[uint64]*textEntry{}
	}
	return c
}

// entrySize is what an entry of that many parts holds in memory, about.
func entrySize(text string, toks, sents, sentAt, quants int) int {
	return len(text) + toks*int(unsafe.Sizeof(token{})) + sents*int(unsafe.Sizeof(span{})) +
		sentAt*4 + quants*int(unsafe.Sizeof(quant.Quantity{})) + 160
}

// load fills d with the stored analysis of text, read as the context at
// index ctx (a question or a reference when ctx < 0), and reports whether
// there was one. On false the caller reads the text
// and offers the result to store with the returned hash.
func (c *textCache) load(d *doc, text string, ctx int) (uint64, bool) {
	if c == nil {
		return 0, false
	}
	// A text reads the same as a context, a question or a reference: one
	// entry serves all three.
	h := maphash.String(c.seed, text)
	sh := &c.shards[h%textShards]
	sh.mu.Lock()
	e := sh.cur[h]
	if e == nil {
		if e = sh.old[h]; e != nil && e.text == text {
			sh.put(h, e, c.budget)
		}
	}
	sh.mu.Unlock()
	if e == nil || e.text != text {
		return h, false
	}
	d.s = text
	d.ctx = ctx
	d.toks = append(d.toks[:0], e.toks...)
	d.sents = append(d.sents[:0], e.sents...)
	d.sentAt = append(d.sentAt[:0], e.sentAt...)
	d.quants = append(d.quants[:0], e.quants...)
	d.setOK = false
	return h, true
}

// store keeps a copy of d, just read from its text, under hash h, if d's
// text was read before (see textCache) and fits the budget.
func (c *textCache) store(h uint64, d *doc) {
	if c == nil {
		return
	}
	size := entrySize(d.s, len(d.toks), len(d.sents), len(d.sentAt), len(d.quants))
	if size > c.budget/4 {
		return
	}
	sh := &c.shards[h%textShards]
	sh.mu.Lock()
	_, again := sh.seen[h]
	if !again {
		if sh.seen == nil || len(sh.seen) >= c.seenMax {
			sh.seen = make(map[uint64]struct{}, 64)
		}
		sh.seen[h] = struct{}{}
	}
	sh.mu.Unlock()
	if !again {
		return
	}
	e := &textEntry{
		// A copy: the sample's text may be a part of a larger string
		// (judge slices every text out of its input line), which the
		// entry would keep alive outside its budget.
		text:   strings.Clone(d.s),
		toks:   append([]token(nil), d.toks...),
		sents:  append([]span(nil), d.sents...),
		sentAt: append([]int32(nil), d.sentAt...),
		quants: append([]quant.Quantity(nil), d.quants...),
		size:   size,
	}
	sh.mu.Lock()
	delete(sh.seen, h)
	sh.put(h, e, c.budget)
	sh.mu.Unlock()
}

// put adds e to the newer generation, first retiring it to the older one
// (and dropping the older) when it holds half the shard's budget. The
// caller holds sh.mu.
func (sh *textShard) put(h uint64, e *textEntry, budget int) {
	if old, ok := sh.cur[h]; ok {
		sh.curBytes -= old.size
	}
	if sh.curBytes+e.size > budget/2 {
		sh.old, sh.cur, sh.curBytes = sh.cur, make(map[uint64]*textEntry, len(sh.cur)), 0
	}
	sh.cur[h] = e
	sh.curBytes += e.size
}

// bytes is what the cache holds, about, the hashes of texts read once
// included (for tests).
func (c *textCache) bytes() int {
	if c == nil {
		return 0
	}
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		for _, e := range sh.cur {
			n += e.size
		}
		for h, e := range sh.old {
			if sh.cur[h] != e {
				n += e.size
			}
		}
		n += len(sh.seen) * seenBytes
		sh.mu.Unlock()
	}
	return n
}
