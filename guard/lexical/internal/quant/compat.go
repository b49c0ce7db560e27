package quant

import "math"

// family groups kinds that describe the same slot: a Year and a Date are
// both calendar references.
func (k Kind) family() Kind {
	if k == Year {
		return Date
	}
	return k
}

// SameSlot reports whether q and o describe the same kind of fact, so that a
// different value is a conflict rather than an unrelated number: both Money
// in the same currency, both Measure in the same unit, both Percent with the
// same unit, both calendar references (Date or Year), both Time, both
// Ordinal, or both bare Numbers.
func (q Quantity) SameSlot(o Quantity) bool {
	if q.Kind == 0 || o.Kind == 0 {
		return false
	}
	f := q.Kind.family()
	if f != o.Kind.family() {
		return false
	}
	switch f {
	case Date, Time:
		return true
	}
	return q.Unit == o.Unit
}

// Compatible reports whether q and o can state the same fact: they are in
// the same slot and every part known on both sides agrees.
//
//   - Numbers, Percent, Money, Measure, Ordinal, Time: values equal within a
//     relative 1e-9, or within 10% when both are approximate.
//   - Dates and Years: Year, Month and Day must agree wherever both state
//     them, and at least one part must be stated by both ("June 17, 1935"
//     matches "1935" and "June 17", not "July 1935"). A decade ("1990s",
//     a Year with Approx set and a year ending in 0) matches any year of it.
//   - A Year and a bare Number with the same value are compatible ("1500"
//     is read as a year, "1,500" as a number), although not the same slot.
func (q Quantity) Compatible(o Quantity) bool {
	if q.Kind.family() == Date && o.Kind.family() == Date {
		return datesAgree(q, o)
	}
	if q.Kind == Year && o.Kind == Number || q.Kind == Number && o.Kind == Year {
		return near(q.Value, o.Value, false)
	}
	if !q.SameSlot(o) {
		return false
	}
	return near(q.Value, o.Value, q.Approx && o.Approx)
}

func near(a, b float64, approx bool) bool {
	if a == b {
		return true
	}
	if math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	d := math.Abs(a - b)
	m := math.Max(math.Abs(a), math.Abs(b))
	if d <= 1e-9*m {
		return true
	}
	return approx && d <= 0.1*m
}

func isDecade(q Quantity) bool {
	return q.Kind == Year && q.Approx && q.Year%10 == 0 && q.Year > 0
}

func datesAgree(q, o Quantity) bool {
	shared := false
	if q.Year != 0 && o.Year != 0 {
		switch {
		case q.Year == o.Year:
		case isDecade(q) && o.Year >= q.Year && o.Year < q.Year+10:
		case isDecade(o) && q.Year >= o.Year && q.Year < o.Year+10:
		default:
			return false
		}
		shared = true
	}
	if q.Month != 0 && o.Month != 0 {
		if q.Month != o.Month {
			return false
		}
		shared = true
	}
	if q.Day != 0 && o.Day != 0 {
		if q.Day != o.Day {
			return false
		}
		shared = true
	}
	return shared
}
