package lexical

import (
	"hash/maphash"
	"sync"
	"unsafe"

	"github.com/ragtriage/ragtriage/guard/lexical/internal/quant"
)

// DefaultContextCache is the byte budget of a Judge's context cache unless
// WithContextCache sets another.
const DefaultContextCache = 8 << 20

// WithContextCache sets the byte budget of the judge's context cache: what
// reading a context costs (its tokens, sentences and quantities) is kept
// for contexts seen more than once, and a later sample that retrieves the
// same text copies it instead of reading it again. RAG traffic retrieves
// the same chunks for many questions (the development SQuAD rows hold 83
// distinct paragraphs for 706 questions), and reading the contexts is about
// half of an evaluation. Results never depend on the cache: a hit gives
// what a fresh read gives (TestContextCacheGivesTheSameEstimates). 0 turns
// it off; a negative budget is 0. The cache keeps the texts it holds in the
// process's memory, for as long as they stay in it; nothing leaves the
// process.
func WithContextCache(bytes int) Option {
	return func(j *Judge) {
		j.cache = newCtxCache(max(bytes, 0))
	}
}

// ctxCache keeps the analyses of context texts (see analysis.analyze) for
// the samples that retrieve them again. It is shared by the judge's
// concurrent calls. A text is stored the second time it is read (the first
// time only its hash is noted), so that contexts retrieved once, the rule
// in many deployments, cost no copy and no memory. Memory is bounded by the
// budget: each shard keeps two generations, and when the newer one holds
// half the shard's budget the older one is dropped whole (a hit in the
// older one moves the entry to the newer one). A nil *ctxCache keeps
// nothing.
type ctxCache struct {
	seed   maphash.Seed
	budget int // per shard
	shards [ctxShards]ctxShard
}

const (
	ctxShards = 8
	// ctxSeenMax bounds a shard's set of hashes read once; it is emptied
	// when full.
	ctxSeenMax = 1 << 14
)

type ctxShard struct {
	mu       sync.Mutex
	cur, old map[uint64]*ctxEntry
	curBytes int
	seen     map[uint64]struct{}
}

// ctxEntry is the stored analysis of one context text. It is never
// changed once stored: readers copy it into their own doc.
type ctxEntry struct {
	text   string
	toks   []token
	sents  []span
	sentAt []int32
	quants []quant.Quantity
	size   int
}

// newCtxCache returns a cache of budget bytes, nil when budget is 0.
func newCtxCache(budget int) *ctxCache {
	if budget <= 0 {
		return nil
	}
	c := &ctxCache{seed: maphash.MakeSeed(), budget: max(budget/ctxShards, 1)}
	for i := range c.shards {
		c.shards[i].cur = map[uint64]*ctxEntry{}
	}
	return c
}

// entrySize is what an entry of that many parts holds in memory, about.
func entrySize(text string, toks, sents, sentAt, quants int) int {
	return len(text) + toks*int(unsafe.Sizeof(token{})) + sents*int(unsafe.Sizeof(span{})) +
		sentAt*4 + quants*int(unsafe.Sizeof(quant.Quantity{})) + 160
}

// load fills d with the stored analysis of text, the context at index ctx,
// and reports whether there was one. On false the caller reads the text
// and offers the result to store with the returned hash.
func (c *ctxCache) load(d *doc, text string, ctx int) (uint64, bool) {
	if c == nil {
		return 0, false
	}
	h := maphash.String(c.seed, text)
	sh := &c.shards[h%ctxShards]
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
// text was read before (see ctxCache) and fits the budget. The copy's
// tokens carry their weights from v (which a sample otherwise looks up as
// it needs them, see vocabulary.weight): a kept context is read by many
// samples, and each would look them up again.
func (c *ctxCache) store(h uint64, d *doc, v *vocabulary) {
	if c == nil {
		return
	}
	size := entrySize(d.s, len(d.toks), len(d.sents), len(d.sentAt), len(d.quants))
	if size > c.budget/4 {
		return
	}
	sh := &c.shards[h%ctxShards]
	sh.mu.Lock()
	_, again := sh.seen[h]
	if !again {
		if sh.seen == nil || len(sh.seen) >= ctxSeenMax {
			sh.seen = make(map[uint64]struct{}, 64)
		}
		sh.seen[h] = struct{}{}
	}
	sh.mu.Unlock()
	if !again {
		return
	}
	e := &ctxEntry{
		text:   d.s,
		toks:   append([]token(nil), d.toks...),
		sents:  append([]span(nil), d.sents...),
		sentAt: append([]int32(nil), d.sentAt...),
		quants: append([]quant.Quantity(nil), d.quants...),
		size:   size,
	}
	if v != nil {
		for i := range e.toks {
			v.weight(&e.toks[i])
		}
	}
	sh.mu.Lock()
	delete(sh.seen, h)
	sh.put(h, e, c.budget)
	sh.mu.Unlock()
}

// put adds e to the newer generation, first retiring it to the older one
// (and dropping the older) when it holds half the shard's budget. The
// caller holds sh.mu.
func (sh *ctxShard) put(h uint64, e *ctxEntry, budget int) {
	if old, ok := sh.cur[h]; ok {
		sh.curBytes -= old.size
	}
	if sh.curBytes+e.size > budget/2 {
		sh.old, sh.cur, sh.curBytes = sh.cur, make(map[uint64]*ctxEntry, len(sh.cur)), 0
	}
	sh.cur[h] = e
	sh.curBytes += e.size
}

// bytes is what the cache holds, about (for tests).
func (c *ctxCache) bytes() int {
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
		sh.mu.Unlock()
	}
	return n
}
