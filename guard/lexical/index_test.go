package lexical

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// refIndexContext is indexContext as it was, one loop with a branch on
// each token's kind and two on each probe.
func refIndexContext(slots []int32, keys []uint64, occ []occurrence, n int32, toks []token, ci, base int32) int32 {
	keys = keys[:len(slots)]
	mask := uint64(len(slots) - 1)
	cpos := int32(0)
	for ti := range toks {
		t := &toks[ti]
		if !t.content() {
			continue
		}
		h := t.hash
		j := h & mask
		for slots[j] != 0 && keys[j] != h {
			j = (j + 1) & mask
		}
		o := &occ[n]
		o.next, o.ctx, o.sent, o.tok, o.cpos = slots[j], ci, base+t.sent, int32(ti), cpos
		n++
		slots[j] = n
		keys[j] = h
		cpos++
	}
	return n
}

// indexRow is the contexts of a sample read as analysis.load reads them:
// their tokens, and the global index of each one's first sentence.
type indexRow struct {
	toks [][]token
	base []int32
	ntok int
}

func indexRows(tb testing.TB, files ...string) []indexRow {
	loadLexicon()
	tz := tokenizer{vocab: defaultVocab}
	var rows []indexRow
	for _, f := range files {
		for _, s := range DevRows(tb, f) {
			var r indexRow
			nsent := 0
			for _, c := range s.Contexts {
				toks, sents := tz.tokenize(nil, c.Text, nil)
				r.toks = append(r.toks, toks)
				r.base = append(r.base, int32(nsent))
				nsent += len(sents)
				r.ntok += len(toks)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// index builds r's term index as buildIndex does, with the given
// indexContext, into the buffers slots, keys and occ (grown as needed and
// returned).
func (r *indexRow) index(f func([]int32, []uint64, []occurrence, int32, []token, int32, int32) int32,
	slots []int32, keys []uint64, occ []occurrence) ([]int32, []uint64, []occurrence) {
	size := 64
	for size < 2*r.ntok {
		size <<= 1
	}
	if cap(slots) < size {
		slots, keys = make([]int32, size), make([]uint64, size)
	}
	slots, keys = slots[:size], keys[:size]
	clear(slots)
	if cap(occ) < r.ntok {
		occ = make([]occurrence, r.ntok)
	}
	occ = occ[:r.ntok]
	n := int32(0)
	for ci, toks := range r.toks {
		n = f(slots, keys, occ, n, toks, int32(ci), r.base[ci])
	}
	return slots, keys, occ[:n]
}

// TestIndexContextMatchesReference holds indexContext to the reference on
// the contexts of every development file, and on contexts of function
// words only, of content words only, and of one word repeated: the same
// slots, the same keys in the used slots, the same occurrences.
func TestIndexContextMatchesReference(t *testing.T) {
	files, _ := filepath.Glob("../../data/dev/*.jsonl")
	if len(files) == 0 {
		t.Skip("no development data")
	}
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	rows := indexRows(t, files...)
	edge := func(flags ...uint16) indexRow {
		var r indexRow
		for k := range 3 {
			toks := make([]token, 40*(k+1))
			for i := range toks {
				toks[i] = token{hash: uint64(i%7) << 20, flags: flags[i%len(flags)], sent: int32(i / 9)}
			}
			r.toks, r.base, r.ntok = append(r.toks, toks), append(r.base, int32(10*k)), r.ntok+len(toks)
		}
		return r
	}
	rows = append(rows, edge(fStop), edge(0), edge(fCap|fNum), edge(fStop, 0, fStop|fNeg, fHedge), indexRow{toks: [][]token{nil}, base: []int32{0}})
	for i, r := range rows {
		gs, gk, gocc := r.index(indexContext, nil, nil, nil)
		ws, wk, wocc := r.index(refIndexContext, nil, nil, nil)
		if !slices.Equal(gs, ws) || !slices.Equal(gocc, wocc) {
			t.Fatalf("row %d: slots or occurrences differ from the reference", i)
		}
		for j := range gs {
			if gs[j] != 0 && gk[j] != wk[j] {
				t.Fatalf("row %d: slot %d holds %#x, the reference's %#x", i, j, gk[j], wk[j])
			}
		}
	}
	t.Logf("%d rows", len(rows))
}

// BenchmarkIndexContextVsReference builds the term index of the 50
// development HotpotQA rows with indexContext and with the reference, one
// after the other in each op (each first in every other op), so that both
// meet the same load from the rest of the machine: ns/row, ref-ns/row and
// their ratio.
func BenchmarkIndexContextVsReference(b *testing.B) {
	rows := indexRows(b, "hotpotqa.jsonl")
	var slots []int32
	var keys []uint64
	var occ []occurrence
	var cur, old time.Duration
	for i := 0; b.Loop(); i++ {
		for k := range 2 {
			t0 := time.Now()
			if (i+k)&1 == 0 {
				for _, r := range rows {
					slots, keys, occ = r.index(indexContext, slots, keys, occ)
				}
				cur += time.Since(t0)
			} else {
				for _, r := range rows {
					slots, keys, occ = r.index(refIndexContext, slots, keys, occ)
				}
				old += time.Since(t0)
			}
		}
	}
	per := float64(b.N) * float64(len(rows))
	b.ReportMetric(float64(cur.Nanoseconds())/per, "ns/row")
	b.ReportMetric(float64(old.Nanoseconds())/per, "ref-ns/row")
	b.ReportMetric(float64(cur)/float64(old), "new/ref")
}
