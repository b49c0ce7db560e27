package quant

import (
	"math"
	"slices"
)

// Index is a set of quantities that answers, in about logarithmic time,
// whether one of them states a given quantity: the question Compatible,
// Approx and the bare-number rule ask of every pair. It finds candidates
// through their values (sorted per kind and unit, per dimension in a base
// unit, and dates by their stated parts) and confirms each one with the
// pairwise predicate, so its answers are exactly those of a scan. The zero
// Index is empty; Reset fills it. An Index is not safe for concurrent use.
type Index struct {
	qs      []Quantity
	byValue map[float64]uint8 // bit 1: some quantity has the value; bit 2: some Number has it
	lists   map[listKey][]entry
	dates   map[dateKey]struct{}
	// Work counts the candidates looked at and the lookups made since the
	// last Reset, for callers that bound their work.
	Work int
}

// listKey names one sorted list of an Index.
type listKey struct {
	kind   Kind
	mode   uint8 // one of the list modes
	hedged bool  // listSameUnit only
	dim    dimension
	unit   string
}

// List modes.
const (
	listSameUnit = iota // one kind, unit and hedging, by value
	listDim             // one kind and dimension, by value in the base unit
	listDegree          // Measures in degree-like units, by value
	listKind            // every quantity of one kind, by value (Year against Number)
)

// entry is one quantity of a list: its sort value, its index in qs, and
// (listDim) the index of the next entry with another unit.
type entry struct {
	v        float64
	i        int32
	nextUnit int32
}

// dateKey is one way a date can agree with another: the parts the other
// states (pat), the parts both state (s) and their values.
type dateKey struct {
	pat, s  uint8
	y, m, d int
}

const (
	partY = 1 << iota
	partM
	partD
)

// Reset makes x the index of qs (which it keeps, unchanged, until the next
// Reset).
func (x *Index) Reset(qs []Quantity) {
	x.qs = qs
	x.Work = 0
	if x.byValue == nil {
		x.byValue = map[float64]uint8{}
		x.lists = map[listKey][]entry{}
		x.dates = map[dateKey]struct{}{}
	}
	clear(x.byValue)
	for k, l := range x.lists {
		x.lists[k] = l[:0]
	}
	clear(x.dates)
	for i, c := range qs {
		x.add(int32(i), c)
	}
	for k, l := range x.lists {
		slices.SortStableFunc(l, func(a, b entry) int {
			switch {
			case a.v < b.v:
				return -1
			case a.v > b.v:
				return 1
			}
			return 0
		})
		if k.mode == listDim {
			next := int32(len(l))
			for j := len(l) - 1; j >= 0; j-- {
				if j+1 < len(l) && qs[l[j+1].i].Unit != qs[l[j].i].Unit {
					next = int32(j + 1)
				}
				l[j].nextUnit = next
			}
		}
	}
}

func (x *Index) push(k listKey, v float64, i int32) {
	if math.IsNaN(v) {
		return // NaN is near nothing
	}
	x.lists[k] = append(x.lists[k], entry{v: v, i: i})
}

// add files quantity c (index i) under every key a query may look it up by.
func (x *Index) add(i int32, c Quantity) {
	if !math.IsNaN(c.Value) {
		b := x.byValue[c.Value] | 1
		if c.Kind == Number {
			b |= 2
		}
		x.byValue[c.Value] = b
	}
	if c.Kind == 0 {
		return
	}
	x.push(listKey{kind: c.Kind, mode: listKind}, c.Value, i)
	if c.Kind.family() == Date {
		x.addDate(c)
		return
	}
	x.push(listKey{kind: c.Kind, mode: listSameUnit, hedged: c.Hedged, unit: c.Unit}, c.Value, i)
	if c.Kind != Measure && c.Kind != Percent {
		return
	}
	if degreeLike(c.Unit) {
		x.push(listKey{kind: c.Kind, mode: listDegree}, c.Value, i)
	}
	if d, v, ok := baseValue(c); ok {
		x.push(listKey{kind: c.Kind, mode: listDim, dim: d}, v, i)
	}
}

// baseValue is c's value in the base unit of its dimension, as relate
// compares them (degrees Celsius for temperatures, decimal multiples for
// data sizes); ok is false for units of no dimension and infinite values.
func baseValue(c Quantity) (dimension, float64, bool) {
	if c.Unit == uDegree {
		return dimNone, 0, false
	}
	d, f, _ := unitScale(c.Unit)
	var v float64
	switch d {
	case dimNone:
		return dimNone, 0, false
	case dimTemp:
		v = tempC(c.Value, c.Unit)
	case dimData:
		v = c.Value * math.Pow(1000, float64(dataPow(c.Unit)))
	default:
		v = c.Value * f
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return dimNone, 0, false
	}
	return d, v, true
}

// years are the year values a date is filed or looked up under: its year,
// and every year of a decade.
func years(q Quantity, buf *[11]int) []int {
	ys := append(buf[:0], q.Year)
	if isDecade(&q) {
		for y := q.Year + 1; y < q.Year+10; y++ {
			ys = append(ys, y)
		}
	}
	return ys
}

func datePattern(q Quantity) uint8 {
	var p uint8
	if q.Year != 0 {
		p |= partY
	}
	if q.Month != 0 {
		p |= partM
	}
	if q.Day != 0 {
		p |= partD
	}
	return p
}

func (x *Index) addDate(c Quantity) {
	pat := datePattern(c)
	var buf [11]int
	for s := uint8(1); s <= pat; s++ {
		if s&pat != s {
			continue
		}
		k := dateKey{pat: pat, s: s}
		if s&partM != 0 {
			k.m = c.Month
		}
		if s&partD != 0 {
			k.d = c.Day
		}
		if s&partY == 0 {
			x.dates[k] = struct{}{}
			continue
		}
		for _, y := range years(c, &buf) {
			k.y = y
			x.dates[k] = struct{}{}
		}
	}
}

// dateAgrees reports whether some indexed date agrees with q (datesAgree).
func (x *Index) dateAgrees(q Quantity) bool {
	pq := datePattern(q)
	var buf [11]int
	ys := years(q, &buf)
	for pat := uint8(1); pat <= partY|partM|partD; pat++ {
		s := pat & pq
		if s == 0 {
			continue
		}
		k := dateKey{pat: pat, s: s}
		if s&partM != 0 {
			k.m = q.Month
		}
		if s&partD != 0 {
			k.d = q.Day
		}
		if s&partY == 0 {
			x.Work++
			if _, ok := x.dates[k]; ok {
				return true
			}
			continue
		}
		for _, y := range ys {
			k.y = y
			x.Work++
			if _, ok := x.dates[k]; ok {
				return true
			}
		}
	}
	return false
}

// band returns the values within a relative tolerance rel of v: all the b
// with |b-v| ≤ rel·max(|b|, |v|) lie in [lo, hi], for rel up to 0.1.
func band(v, rel float64) (lo, hi float64) {
	if math.IsInf(v, 0) || v == 0 {
		return v, v
	}
	w := math.Abs(v) * rel * 1.25
	return v - w, v + w
}

// States reports whether some indexed quantity c has q.Compatible(c), or
// (numbers) q or c is a Number of the same value, or (approx) q.Approx(c).
// With numbers and approx false it is Compatible alone.
func (x *Index) States(q Quantity, numbers, approx bool) bool {
	pred := func(c Quantity) bool {
		return q.Compatible(c) || numbers && (q.Kind == Number || c.Kind == Number) && c.Value == q.Value || approx && q.Approx(c)
	}
	if numbers && !math.IsNaN(q.Value) {
		x.Work++
		if b := x.byValue[q.Value]; b&2 != 0 || b&1 != 0 && q.Kind == Number {
			return true
		}
	}
	if q.Kind == 0 || len(x.qs) == 0 {
		return false
	}
	switch q.Kind {
	case Year:
		if x.scan(listKey{kind: Number, mode: listKind}, q.Value, 1e-9, pred) {
			return true
		}
	case Number:
		if x.scan(listKey{kind: Year, mode: listKind}, q.Value, 1e-9, pred) {
			return true
		}
	}
	if q.Kind.family() == Date {
		return x.dateAgrees(q)
	}
	for _, h := range [2]bool{false, true} {
		rel := 1e-9
		if h && q.Hedged {
			rel = nearTol
		}
		if x.scan(listKey{kind: q.Kind, mode: listSameUnit, hedged: h, unit: q.Unit}, q.Value, rel, pred) {
			return true
		}
	}
	if q.Kind != Measure && q.Kind != Percent {
		return false
	}
	if degreeLike(q.Unit) {
		rel := 1e-9
		if q.Hedged {
			rel = nearTol
		}
		if x.scan(listKey{kind: q.Kind, mode: listDegree}, q.Value, rel, pred) {
			return true
		}
	}
	return x.scanDim(q, pred)
}

// scan looks through the entries of list k within relative tolerance rel
// of v for one that pred accepts.
func (x *Index) scan(k listKey, v, rel float64, pred func(Quantity) bool) bool {
	l := x.lists[k]
	if len(l) == 0 || math.IsNaN(v) {
		return false
	}
	lo, hi := band(v, rel)
	j, _ := slices.BinarySearchFunc(l, lo, func(e entry, t float64) int {
		if e.v < t {
			return -1
		}
		if e.v > t {
			return 1
		}
		return 0
	})
	for ; j < len(l) && l[j].v <= hi; j++ {
		x.Work++
		if pred(x.qs[l[j].i]) {
			return true
		}
	}
	return false
}

// scanDim looks through the quantities of q's dimension in other units
// whose base value is near enough to q's for relate to call them equal or
// near, for one that pred accepts. Runs of q's own unit are skipped in one
// step (those are the same-unit lists' business).
func (x *Index) scanDim(q Quantity, pred func(Quantity) bool) bool {
	d, v, ok := baseValue(q)
	if !ok {
		return false
	}
	l := x.lists[listKey{kind: q.Kind, mode: listDim, dim: d}]
	if len(l) == 0 {
		return false
	}
	var lo, hi float64
	switch d {
	case dimTemp:
		lo, hi = v-tempNear*1.01, v+tempNear*1.01
	case dimData:
		// 1,000 against 1,024: four powers apart at most.
		lo, hi = min(v*0.8, v*1.25), max(v*0.8, v*1.25)
	default:
		lo, hi = band(v, nearTol)
	}
	j, _ := slices.BinarySearchFunc(l, lo, func(e entry, t float64) int {
		if e.v < t {
			return -1
		}
		if e.v > t {
			return 1
		}
		return 0
	})
	for j < len(l) && l[j].v <= hi {
		x.Work++
		c := x.qs[l[j].i]
		if c.Unit == q.Unit {
			j = int(l[j].nextUnit)
			continue
		}
		if pred(c) {
			return true
		}
		j++
	}
	return false
}

// Slot names the slot of a quantity: two quantities of which neither is
// Compatible with nor Approx the other are SameSlot exactly when their
// Slots are equal and ok. It lets a caller file quantities by slot instead
// of comparing every pair.
type Slot struct {
	kind Kind
	dim  dimension
	unit string
}

// SlotOf returns q's slot; ok is false for a quantity of no kind, which is
// in no slot.
func SlotOf(q Quantity) (s Slot, ok bool) {
	switch {
	case q.Kind == 0:
		return Slot{}, false
	case q.Kind.family() == Date:
		return Slot{kind: Date}, true
	case q.Kind == Time:
		return Slot{kind: Time}, true
	case q.Kind == Measure || q.Kind == Percent:
		if d, _, _ := unitScale(q.Unit); d != dimNone && q.Unit != uDegree {
			return Slot{kind: q.Kind, dim: d}, true
		}
	}
	return Slot{kind: q.Kind, unit: q.Unit}, true
}
