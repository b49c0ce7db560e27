package lexical

import (
	"slices"
)

// groupedMin is the ratio of direct work (occurrences to visit) to text
// size from which score groups windows instead (see scoreGrouped).
var groupedMin = 16

// groupedRunMin is the shortest run score considers grouping for.
var groupedRunMin = 64

// directCost is the number of occurrences score visits for run: the
// postings of each of its content words looked up.
func (a *analysis) directCost(run []token, skip func(*token) bool) int {
	a.buildPostings()
	n := 0
	for i := range run {
		t := &run[i]
		if t.content() && (skip == nil || !skip(t)) {
			n += len(a.postings(t.hash))
		}
	}
	return n
}

// scoreGrouped computes what score computes, for a long run whose words
// occur many times in the contexts (a long answer that repeats a few
// words). A window's score is the sum, in run order, of the weights of the
// run's tokens whose word the window holds; windows that hold the same
// words of the run have the same score. So it files every window by the
// set of run words it holds and sums each distinct set once, in the same
// order as score, which gives the same bits. It reports false, having done
// nothing, when the distinct sets are too many for that to pay.
func (a *analysis) scoreGrouped(run []token, v *vocabulary, skip func(*token) bool, dst *scores, width int32, direct int) (total, given float64, ok bool) {
	ids := a.grp.ids
	if ids == nil {
		ids = map[uint64]int32{}
		a.grp.ids = ids
	}
	clear(ids)
	for i := range run {
		t := &run[i]
		if !t.content() || skip != nil && skip(t) {
			continue
		}
		if _, seen := ids[t.hash]; !seen {
			ids[t.hash] = int32(len(ids))
		}
	}
	sets, at := a.sentenceSets(ids)
	classes := a.windowClasses(sets, at, width)
	if len(classes)*len(run) > direct {
		return 0, 0, false
	}
	dst.zero()
	total, given = 0, 0
	for i := range run {
		t := &run[i]
		if !t.content() {
			continue
		}
		w := v.weight(t)
		total += w
		if skip != nil && skip(t) {
			given += w
		}
	}
	mark := slices.Grow(a.grp.mark[:0], len(ids))[:len(ids)]
	clear(mark)
	for c, members := range classes {
		set := a.grp.win[members[0]]
		for _, id := range set {
			mark[id] = int32(c + 1)
		}
		sum := 0.0
		for i := range run {
			t := &run[i]
			if !t.content() || skip != nil && skip(t) {
				continue
			}
			if mark[ids[t.hash]] == int32(c+1) {
				sum += v.weight(t)
			}
		}
		for _, g := range members {
			dst.v[g] = sum
			dst.touched = append(dst.touched, g)
		}
		a.m.spend(len(run) + len(members))
	}
	a.grp.mark = mark
	return total, given, true
}

// sentenceSets returns, for every context sentence, the sorted distinct ids
// of the run words its content words are (ids), laid out in one slice:
// sentence g's are sets[at[g]:at[g+1]].
func (a *analysis) sentenceSets(ids map[uint64]int32) (sets, at []int32) {
	sets, at = a.grp.sets[:0], a.grp.at[:0]
	for ci := range a.ctxs {
		d := &a.ctxs[ci]
		for k := range d.sents {
			start := len(sets)
			at = append(at, int32(start))
			for _, t := range d.sentToks(k) {
				if !t.content() {
					continue
				}
				if id, ok := ids[t.hash]; ok {
					sets = append(sets, id)
				}
			}
			s := sets[start:]
			slices.Sort(s)
			sets = sets[:start+len(slices.Compact(s))]
		}
		a.m.spend(len(d.toks))
	}
	at = append(at, int32(len(sets)))
	a.grp.sets, a.grp.at = sets, at
	return sets, at
}

// windowClasses files the windows that hold a run word by the set of run
// words they hold: the union of their sentences' sets. Each class lists its
// windows in ascending order; a.grp.win[g] is window g's set.
func (a *analysis) windowClasses(sets, at []int32, width int32) [][]int32 {
	byKey := a.grp.byKey
	if byKey == nil {
		byKey = map[uint64][]int32{}
		a.grp.byKey = byKey
	}
	clear(byKey)
	if cap(a.grp.win) < a.nsent {
		a.grp.win = make([][]int32, a.nsent)
	}
	a.grp.win = a.grp.win[:a.nsent]
	var classes [][]int32
	buf := a.grp.union[:0]
	for ci := range a.ctxs {
		base := a.sentBase[ci]
		n := int32(len(a.ctxs[ci].sents))
		for k := int32(0); k < n; k++ {
			g := base + k
			set := sets[at[g]:at[g+1]]
			if width == 2 && k+1 < n {
				start := len(buf)
				buf = unionSorted(buf, set, sets[at[g+1]:at[g+2]])
				set = buf[start:]
			}
			a.grp.win[g] = set
			if len(set) == 0 {
				continue
			}
			h := uint64(fnvOffset)
			for _, id := range set {
				h = (h ^ uint64(id)) * fnvPrime
			}
			placed := false
			for _, c := range byKey[h] {
				if slices.Equal(a.grp.win[classes[c][0]], set) {
					classes[c] = append(classes[c], g)
					placed = true
					break
				}
			}
			if !placed {
				byKey[h] = append(byKey[h], int32(len(classes)))
				classes = append(classes, []int32{g})
			}
		}
		a.m.spend(int(n))
	}
	a.grp.union = buf
	return classes
}

// unionSorted appends the sorted union of two sorted sets to dst.
func unionSorted(dst, x, y []int32) []int32 {
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case j == len(y) || i < len(x) && x[i] < y[j]:
			dst = append(dst, x[i])
			i++
		case i == len(x) || y[j] < x[i]:
			dst = append(dst, y[j])
			j++
		default:
			dst = append(dst, x[i])
			i++
			j++
		}
	}
	return dst
}

// groupScratch is scoreGrouped's reusable memory.
type groupScratch struct {
	ids      map[uint64]int32
	sets, at []int32
	union    []int32
	win      [][]int32
	byKey    map[uint64][]int32
	mark     []int32
}
