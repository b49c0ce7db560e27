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

// Family is the kind that stands for k's slot family: Date for a Year,
// k otherwise. Two quantities whose kinds have different families (or
// either kind 0) are never in the same slot (see SameSlot).
func (k Kind) Family() Kind { return k.family() }

// SameSlot reports whether q and o describe the same kind of fact, so that a
// different value is a conflict rather than an unrelated number: both Money
// in the same currency, both Measure or both Percent in the same unit or in
// units of one dimension ("1.5 km" and "2,000 metres", "20 hours" and "20
// days", "a fifth" and "30%"), both calendar references (Date or Year), both
// Time, both Ordinal, or both bare Numbers.
//
// A pair that is only approximately the same amount (see Approx: "a month"
// and "30 days") is not the same slot, so that it is never read as a
// conflict.
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
	if q.Unit == o.Unit {
		return true
	}
	switch relate(&q, &o) {
	case relEqual, relDiffer:
		return true
	}
	return false
}

// Compatible reports whether q and o can state the same fact: they are in
// the same slot and every part known on both sides agrees.
//
//   - Numbers, Percent, Money, Measure, Ordinal, Time: values equal within a
//     relative 1e-9, or within 10% when both are approximate (Hedged).
//   - Measure and Percent in two units of one dimension are compared in the
//     base unit of the dimension, with a relative tolerance of 2% for the
//     rounding of a conversion ("5 miles" and "8 km", "6 feet" and "1.8 m";
//     between a proportion and a percentage also at most half a percentage
//     point: "a third" matches "33%" but not "34%"); temperatures within
//     0.5 °C; data sizes in decimal or binary multiples ("1 GB" and "1,024
//     MB"). Calendar periods (month, year, decade, century) and fixed ones
//     (second … week) are never compatible with each other unless both are
//     hedged ("a month" is not "30 days", see Approx), but within each
//     group the conversion is exact ("a year" is "12 months", "a week" is
//     "7 days"). "20 hours" and "20 days" are not compatible.
//   - A number of "degrees" matches the same number of °C, °F or K.
//   - Dates and Years: Year, Month and Day must agree wherever both state
//     them, and at least one part must be stated by both ("June 17, 1935"
//     matches "1935" and "June 17", not "July 1935"). A decade ("1990s",
//     a Year with Hedged set and a year ending in 0) matches any year of it.
//   - A Year and a bare Number with the same value are compatible ("1500"
//     is read as a year, "1,500" as a number), although not the same slot.
func (q Quantity) Compatible(o Quantity) bool {
	if q.Kind.family() == Date && o.Kind.family() == Date {
		return datesAgree(&q, &o)
	}
	if q.Kind == Year && o.Kind == Number || q.Kind == Number && o.Kind == Year {
		return near(q.Value, o.Value, false)
	}
	if q.Kind != o.Kind || q.Kind == 0 {
		return false
	}
	if q.Unit == o.Unit {
		return near(q.Value, o.Value, q.Hedged && o.Hedged)
	}
	return relate(&q, &o) == relEqual
}

// Conflicts reports whether q and o are in the same slot with values that
// differ: exactly q.SameSlot(*o) && !q.Compatible(*o). A conflict scan
// calls it for many pairs, mostly of Years and Dates, so it takes pointers
// (a Quantity is 80 bytes) and settles the calendar family first.
func Conflicts(q, o *Quantity) bool {
	f := q.Kind.family()
	if f != o.Kind.family() || f == 0 {
		return false
	}
	if f == Date {
		// Both Date or Year: always the same slot, compatible iff the
		// dates agree.
		return !datesAgree(q, o)
	}
	// Outside the calendar family a kind is its own family, so q and o
	// have one kind, and Compatible's Year-and-Number case cannot apply.
	if q.Unit == o.Unit {
		return !near(q.Value, o.Value, q.Hedged && o.Hedged)
	}
	if f == Time {
		// Every pair of Times is the same slot; relate knows no Time.
		return true
	}
	return relate(q, o) == relDiffer
}

// Approx reports whether q and o state approximately, but not exactly, the
// same amount in two units of one dimension, so that o neither supports nor
// contradicts q: the values in the base unit are within 10% of each other,
// yet the pair is not Compatible. Typical cases are a calendar period
// against a fixed one ("a month" and "30 days" or "4 weeks", "a year" and
// "365 days"), a conversion off by more than rounding ("3 miles" and "5 km",
// "half" and "48%") and temperatures 0.5–2 °C apart. Two quantities in the
// same unit are never Approx ("20 hours" and "21 hours" are a mismatch),
// and SameSlot is false for an Approx pair. Approx is symmetric.
func (q Quantity) Approx(o Quantity) bool {
	if q.Kind != o.Kind || q.Unit == o.Unit {
		return false
	}
	return relate(&q, &o) == relNear
}

// relation is how two Measures or two Percents in different units relate.
type relation uint8

const (
	relNone   relation = iota // not comparable: other dimensions, or not Measure/Percent
	relEqual                  // the same amount: Compatible
	relNear                   // approximately the same amount: Approx
	relDiffer                 // the same dimension, another amount: a mismatch
)

// dimension is a physical dimension of units that convert into each other.
type dimension uint8

const (
	dimNone dimension = iota
	dimTime
	dimLength
	dimArea
	dimMass
	dimVolume
	dimSpeed
	dimTemp
	dimData
	dimPower
	dimEnergy
	dimFreq
	dimVoltage
	dimCurrent
	dimShare // percent and proportions
)

// unitScale returns the dimension of unit u and its size in the base unit
// of the dimension (second, metre, m², kg, litre, m/s, byte, watt, joule,
// hertz, volt, ampere, percent). cal marks the calendar periods (month and
// longer), whose length in seconds is only an average: 1 month = 1/12 of a
// Gregorian year of 365.2425 days. Data sizes are decimal (1 kb = 1000
// bytes; see dataPow). Temperatures are handled by tempC. The units are the
// canonical constants of words.go; any other unit is dimNone.
func unitScale(u string) (d dimension, f float64, cal bool) {
	z := unitSizes[u]
	return z.d, z.f, z.cal
}

// unitSize is a unit's dimension, size and calendar mark (see unitScale).
type unitSize struct {
	d   dimension
	f   float64
	cal bool
}

const (
	daySeconds   = 86400
	monthSeconds = 365.2425 * daySeconds / 12 // an average month: 1/12 of a Gregorian year
)

// unitSizes holds every unit unitScale knows.
var unitSizes = map[string]unitSize{
	uMs:      {dimTime, 0.001, false},
	uSecond:  {dimTime, 1, false},
	uMinute:  {dimTime, 60, false},
	uHour:    {dimTime, 3600, false},
	uDay:     {dimTime, daySeconds, false},
	uWeek:    {dimTime, 7 * daySeconds, false},
	uMonth:   {dimTime, monthSeconds, true},
	uYear:    {dimTime, 12 * monthSeconds, true},
	uDecade:  {dimTime, 120 * monthSeconds, true},
	uCentury: {dimTime, 1200 * monthSeconds, true},

	uKm:   {dimLength, 1000, false},
	uM:    {dimLength, 1, false},
	uCm:   {dimLength, 0.01, false},
	uMm:   {dimLength, 0.001, false},
	uMile: {dimLength, 1609.344, false},
	uFoot: {dimLength, 0.3048, false},
	uInch: {dimLength, 0.0254, false},
	uYard: {dimLength, 0.9144, false},

	uKm2:     {dimArea, 1e6, false},
	uM2:      {dimArea, 1, false},
	uMi2:     {dimArea, 1609.344 * 1609.344, false},
	uFt2:     {dimArea, 0.3048 * 0.3048, false},
	uAcre:    {dimArea, 4046.8564224, false},
	uHectare: {dimArea, 1e4, false},

	uKg:  {dimMass, 1, false},
	uG:   {dimMass, 1e-3, false},
	uMg:  {dimMass, 1e-6, false},
	uLb:  {dimMass, 0.45359237, false},
	uOz:  {dimMass, 0.028349523125, false},
	uTon: {dimMass, 1000, false}, // "ton" and "tonne" are one unit; a short ton is within 10%

	uLiter:  {dimVolume, 1, false},
	uMl:     {dimVolume, 1e-3, false},
	uGallon: {dimVolume, 3.785411784, false}, // US gallon

	uMps: {dimSpeed, 1, false},
	uKmh: {dimSpeed, 1 / 3.6, false},
	uMph: {dimSpeed, 0.44704, false},

	uCelsius:    {dimTemp, 1, false},
	uFahrenheit: {dimTemp, 1, false},
	uKelvin:     {dimTemp, 1, false},

	uByte: {dimData, 1, false},
	uKB:   {dimData, 1, false},
	uMB:   {dimData, 1, false},
	uGB:   {dimData, 1, false},
	uTB:   {dimData, 1, false},

	uWatt: {dimPower, 1, false},
	uKW:   {dimPower, 1e3, false},
	uMW:   {dimPower, 1e6, false},
	uGW:   {dimPower, 1e9, false},

	uWh:      {dimEnergy, 3600, false},
	uKWh:     {dimEnergy, 3.6e6, false},
	uCalorie: {dimEnergy, 4184, false}, // a food "calorie" is a kilocalorie
	uKcal:    {dimEnergy, 4184, false},

	uHz:  {dimFreq, 1, false},
	uKHz: {dimFreq, 1e3, false},
	uMHz: {dimFreq, 1e6, false},
	uGHz: {dimFreq, 1e9, false},

	uVolt: {dimVoltage, 1, false},
	uKV:   {dimVoltage, 1e3, false},

	uAmp: {dimCurrent, 1, false},

	uPercent:  {dimShare, 1, false},
	uFraction: {dimShare, 1, false},
}

// Tolerances of relate.
const (
	roundTol = 0.02 // relative: rounding of a converted amount
	shareTol = 0.5  // percentage points: rounding of a proportion to a percentage
	nearTol  = 0.10 // relative: Approx, and Compatible when both are hedged
	tempTol  = 0.5  // °C: rounding of a converted temperature
	tempNear = 2.0  // °C: Approx, and Compatible when both are hedged
)

// relate compares two quantities of one kind in different units.
func relate(q, o *Quantity) relation {
	if q.Kind != o.Kind || q.Kind != Measure && q.Kind != Percent {
		return relNone
	}
	if q.Unit == uDegree || o.Unit == uDegree {
		// "40 degrees" may be Celsius or Fahrenheit (or an angle): the
		// same number matches, nothing else is known.
		if degreeLike(q.Unit) && degreeLike(o.Unit) && near(q.Value, o.Value, q.Hedged && o.Hedged) {
			return relEqual
		}
		return relNone
	}
	dq, fq, cq := unitScale(q.Unit)
	do, fo, co := unitScale(o.Unit)
	if dq == dimNone || dq != do {
		return relNone
	}
	hedged := q.Hedged && o.Hedged
	switch dq {
	case dimTemp:
		d := math.Abs(tempC(q.Value, q.Unit) - tempC(o.Value, o.Unit))
		switch {
		case d <= tempTol || hedged && d <= tempNear:
			return relEqual
		case d <= tempNear:
			return relNear
		}
		return relDiffer
	case dimData:
		pq, po := dataPow(q.Unit), dataPow(o.Unit)
		a := q.Value * math.Pow(1000, float64(pq))
		b := o.Value * math.Pow(1000, float64(po))
		r := relateScaled(a, b, false, hedged, false)
		if r != relEqual {
			// binary multiples: 1 GB = 1,024 MB
			a2 := q.Value * math.Pow(1024, float64(pq))
			b2 := o.Value * math.Pow(1024, float64(po))
			if r2 := relateScaled(a2, b2, false, hedged, false); r2 < r {
				r = r2
			}
		}
		return r
	}
	return relateScaled(q.Value*fq, o.Value*fo, cq != co, hedged, dq == dimShare)
}

// relateScaled relates two amounts in a base unit. inexact marks a
// conversion that is itself an average (a calendar period against a fixed
// one): the amounts are then at best near, unless both are hedged. share
// marks proportions, whose rounding tolerance is also capped at shareTol
// percentage points.
func relateScaled(a, b float64, inexact, hedged, share bool) relation {
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return relDiffer
	}
	d := math.Abs(a - b)
	// Neither is NaN, so the builtin max, which the compiler inlines, is
	// math.Max (a call on amd64).
	m := max(math.Abs(a), math.Abs(b))
	if d == 0 || hedged && d <= nearTol*m {
		return relEqual
	}
	if !inexact {
		tol := roundTol * m
		if share && tol > shareTol {
			tol = shareTol
		}
		if d <= tol {
			return relEqual
		}
	}
	if d <= nearTol*m {
		return relNear
	}
	return relDiffer
}

func degreeLike(u string) bool {
	return u == uDegree || u == uCelsius || u == uFahrenheit || u == uKelvin
}

// tempC converts a temperature to degrees Celsius.
func tempC(v float64, u string) float64 {
	switch u {
	case uFahrenheit:
		return (v - 32) * 5 / 9
	case uKelvin:
		return v - 273.15
	}
	return v
}

// dataPow returns the power of 1000 (or 1024) of a data unit.
func dataPow(u string) int {
	switch u {
	case uKB:
		return 1
	case uMB:
		return 2
	case uGB:
		return 3
	case uTB:
		return 4
	}
	return 0
}

func near(a, b float64, approx bool) bool {
	if a == b {
		return true
	}
	if math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	d := math.Abs(a - b)
	m := max(math.Abs(a), math.Abs(b)) // as in relateScaled
	if d <= 1e-9*m {
		return true
	}
	return approx && d <= 0.1*m
}

func isDecade(q *Quantity) bool {
	return q.Kind == Year && q.Hedged && q.Year%10 == 0 && q.Year > 0
}

func datesAgree(q, o *Quantity) bool {
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
