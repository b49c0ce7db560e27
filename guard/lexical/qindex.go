package lexical

import (
	"sort"

	"github.com/ragtriage/ragtriage/guard/lexical/internal/quant"
)

// quantIndexMin is the number of answer × context (and question) quantity
// pairs from which quantCounterpart uses the indexes rather than compare
// every pair. Below it the pairwise scan is cheaper than building them;
// both give the same answers.
var quantIndexMin = 256

// slotWord files a context quantity under a content word near it and its
// slot; valWord under a content word near it, its kind and its value.
type (
	slotWord struct {
		h    uint64
		slot quant.Slot
	}
	valWord struct {
		h    uint64
		kind quant.Kind
		v    float64
	}
)

// quantIndex holds the indexes of the contexts' and the question's
// quantities (see buildQuantIndex).
type quantIndex struct {
	built, ok bool
	ctx, q    quant.Index
	all       []quant.Quantity   // every context quantity, in order
	where     []int64            // ctx<<32 | index within it, of each of all
	bySlot    map[slotWord]int64 // first context quantity (ctx<<32 | index) of each key
	byValue   map[valWord]int64
}

// buildQuantIndex builds the quantity indexes of the loaded contexts and
// question, once per load, and reports whether they can answer for the
// scan: not when a quantity has no kind (which no slot holds).
func (a *analysis) buildQuantIndex() bool {
	x := &a.qidx
	if x.built {
		return x.ok
	}
	x.built = true
	x.all, x.where = x.all[:0], x.where[:0]
	for ci := range a.ctxs {
		for cq, c := range a.ctxs[ci].quants {
			if c.Kind == 0 {
				return false
			}
			x.all = append(x.all, c)
			x.where = append(x.where, int64(ci)<<32|int64(cq))
		}
	}
	for _, c := range a.q.quants {
		if c.Kind == 0 {
			return false
		}
	}
	a.m.spend(4 * (len(x.all) + len(a.q.quants)))
	x.ctx.Reset(x.all)
	x.q.Reset(a.q.quants)
	if x.bySlot == nil {
		x.bySlot, x.byValue = map[slotWord]int64{}, map[valWord]int64{}
	}
	clear(x.bySlot)
	clear(x.byValue)
	for k, c := range x.all {
		w := x.where[k]
		d := &a.ctxs[w>>32]
		slot, _ := quant.SlotOf(c)
		eachNearWord(d.toks, c.Start, c.End, func(h uint64) {
			if _, seen := x.bySlot[slotWord{h, slot}]; !seen {
				x.bySlot[slotWord{h, slot}] = w
			}
			if c.Value == c.Value { // not NaN
				if _, seen := x.byValue[valWord{h, c.Kind, c.Value}]; !seen {
					x.byValue[valWord{h, c.Kind, c.Value}] = w
				}
			}
		})
	}
	x.ok = true
	return true
}

// quantCounterpartIndexed is quantCounterpart through the indexes. When no
// quantity states q, no pair is Compatible or Approx, so SameSlot is
// equality of slots (quant.SlotOf), and the first quantity in the same
// slot (or of the same kind and value) that shares a neighbouring word
// with q is the first one filed under one of q's neighbouring words.
func (a *analysis) quantCounterpartIndexed(q quant.Quantity) (stated bool, sameCtx, sameQ int) {
	x := &a.qidx
	w0 := x.ctx.Work + x.q.Work
	stated = x.ctx.States(q, true, true) || x.q.States(q, false, false)
	a.m.spend(x.ctx.Work + x.q.Work - w0 + 1)
	if stated {
		return true, -1, -1
	}
	first := int64(-1)
	better := func(w int64, ok bool) {
		if ok && (first < 0 || w < first) {
			first = w
		}
	}
	slot, _ := quant.SlotOf(q)
	byValue := q.Kind != quant.Date && q.Kind != quant.Year && q.Kind != quant.Time && q.Value == q.Value
	n := 0
	eachNearWord(a.a.toks, q.Start, q.End, func(h uint64) {
		n++
		w, ok := x.bySlot[slotWord{h, slot}]
		better(w, ok)
		if byValue {
			w, ok = x.byValue[valWord{h, q.Kind, q.Value}]
			better(w, ok)
		}
	})
	a.m.spend(n)
	if first < 0 {
		return false, -1, -1
	}
	return false, int(first >> 32), int(first & (1<<32 - 1))
}

// nearSpan returns the range [i, j) of the tokens of toks inside the byte
// span [start, end), and [lo, hi), that range widened by four tokens on
// each side.
func nearSpan(toks []token, start, end int) (lo, i, j, hi int) {
	i = sort.Search(len(toks), func(i int) bool { return int(toks[i].end) > start })
	j = sort.Search(len(toks), func(i int) bool { return int(toks[i].start) >= end })
	return max(0, i-4), i, j, min(len(toks), j+4)
}

// eachNearWord calls fn with the hash of every content word (numbers aside)
// within four tokens of the byte span [start, end) of toks, outside it.
func eachNearWord(toks []token, start, end int, fn func(h uint64)) {
	lo, i, j, hi := nearSpan(toks, start, end)
	for k := lo; k < hi; k++ {
		t := &toks[k]
		if k >= i && k < j || !t.content() || t.flags&fNum != 0 {
			continue
		}
		fn(t.hash)
	}
}
