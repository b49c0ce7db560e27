package quant

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func init() { strictPanics = true }

// want is one expected quantity; span is the matched text.
type want struct {
	kind    Kind
	value   float64
	unit    string
	y, m, d int
	approx  bool
	span    string
}

func num(v float64, span string) want { return want{kind: Number, value: v, span: span} }
func pct(v float64, span string) want {
	return want{kind: Percent, value: v, unit: "percent", span: span}
}
func money(v float64, cur, span string) want {
	return want{kind: Money, value: v, unit: cur, span: span}
}
func meas(v float64, unit, span string) want {
	return want{kind: Measure, value: v, unit: unit, span: span}
}
func date(y, m, d int, span string) want  { return want{kind: Date, y: y, m: m, d: d, span: span} }
func clock(min float64, span string) want { return want{kind: Time, value: min, span: span} }
func year(y int, span string) want        { return want{kind: Year, value: float64(y), y: y, span: span} }
func ord(v float64, span string) want     { return want{kind: Ordinal, value: v, span: span} }
func share(v float64, span string) want {
	return want{kind: Percent, value: v, unit: "fraction", span: span}
}
func (w want) ap() want { w.approx = true; return w }

func (w want) String() string {
	return fmt.Sprintf("{%v %g %q %d-%d-%d approx=%v %q}", w.kind, w.value, w.unit, w.y, w.m, w.d, w.approx, w.span)
}

func got(text string, q Quantity) want {
	span := "<bad span>"
	if q.Start >= 0 && q.Start < q.End && q.End <= len(text) {
		span = text[q.Start:q.End]
	}
	return want{kind: q.Kind, value: q.Value, unit: q.Unit, y: q.Year, m: q.Month, d: q.Day, approx: q.Hedged, span: span}
}

func same(a, b want) bool {
	if a.kind != b.kind || a.unit != b.unit || a.y != b.y || a.m != b.m || a.d != b.d || a.approx != b.approx || a.span != b.span {
		return false
	}
	if a.kind == Date {
		return true
	}
	return a.value == b.value || math.Abs(a.value-b.value) <= 1e-9*math.Max(math.Abs(a.value), math.Abs(b.value))
}

var extractCases = []struct {
	text string
	want []want
}{
	// --- the brief's tricky cases
	{"Arthur's Magazine (1844–1846) was an American literary periodical.",
		[]want{year(1844, "1844"), year(1846, "1846")}},
	{"Arthur's Magazine (1844-1846)", []want{year(1844, "1844"), year(1846, "1846")}},
	{"He was born July 16, 1966 in Chicago.", []want{date(1966, 7, 16, "July 16, 1966")}},
	{"It took 20 hours.", []want{meas(20, "hour", "20 hours")}},
	{"It took 20 days.", []want{meas(20, "day", "20 days")}},
	{"thirty", []want{num(30, "thirty")}},
	{"30", []want{num(30, "30")}},
	{"$5 million", []want{money(5e6, "usd", "$5 million")}},
	{"5,000,000 dollars", []want{money(5e6, "usd", "5,000,000 dollars")}},
	{"at 3 pm", []want{clock(900, "3 pm")}},
	{"at 15:00", []want{clock(900, "15:00")}},
	{"According to the 2010 census, the population was 403.",
		[]want{year(2010, "2010"), num(403, "403")}},
	{"No one knew.", nil},
	{"no one, someone, anyone, everyone, one of the best, the one", nil},
	{"It is one of the oldest towns.", nil},
	{"a 1.5-hour flight", []want{meas(1.5, "hour", "1.5-hour")}},
	{"a 10km run", []want{meas(10, "km", "10km")}},
	{"He is 5'11\" tall.", []want{meas(5+11.0/12, "foot", "5'11\"")}},
	{"He is 5′11″ tall.", []want{meas(5+11.0/12, "foot", "5′11″")}},
	{"He is 5 ft 11 in.", []want{meas(5+11.0/12, "foot", "5 ft 11 in")}},
	{"He is 6 feet 2 inches tall.", []want{meas(6+2.0/12, "foot", "6 feet 2 inches")}},

	// --- plain numbers
	{"1,234,567 and 3.5 and -4", []want{num(1234567, "1,234,567"), num(3.5, "3.5"), num(-4, "-4")}},
	{"It fell to −12 overnight.", []want{num(-12, "−12")}},
	{"about .5 of it", []want{num(0.5, ".5").ap()}},
	{"lists 1,2,3", []want{num(1, "1"), num(2, "2"), num(3, "3")}},
	{"population 12,345.", []want{num(12345, "12,345")}},
	{"1,500 soldiers", []want{meas(1500, "soldier", "1,500 soldiers")}},
	{"roughly 2.5k", []want{num(2500, "2.5k").ap()}},
	{"3 billion", []want{num(3e9, "3 billion")}},
	{"1.1 million", []want{num(1.1e6, "1.1 million")}},
	{"5bn", []want{num(5e9, "5bn")}},
	{"20+ years", []want{meas(20, "year", "20+ years").ap()}},
	{"v1.2.3 and 1.2.3", nil},
	{"MP3 players, H2O, B2B, 3D films, 4G networks", nil},
	{"COVID-19 and the F-16", nil},
	{"Route 66", []want{num(66, "66")}},

	// --- spelled-out numbers
	{"twenty-five", []want{num(25, "twenty-five")}},
	{"twenty five", []want{num(25, "twenty five")}},
	{"one hundred and five", []want{num(105, "one hundred and five")}},
	{"two thousand", []want{num(2000, "two thousand")}},
	{"two thousand and ten", []want{num(2010, "two thousand and ten")}},
	{"three million people", []want{meas(3e6, "people", "three million people")}},
	{"a dozen eggs", []want{num(12, "a dozen")}},
	{"two dozen", []want{num(24, "two dozen")}},
	{"a hundred years", []want{meas(100, "year", "a hundred years")}},
	{"a million", []want{num(1e6, "a million")}},
	{"Thirty-Five", []want{num(35, "Thirty-Five")}},
	{"one day", []want{meas(1, "day", "one day")}},
	{"one-day event", []want{meas(1, "day", "one-day")}},
	{"one million", []want{num(1e6, "one million")}},
	{"one two three", []want{num(2, "two"), num(3, "three")}},
	{"nineteen ninety", []want{num(19, "nineteen"), num(90, "ninety")}},
	{"zero", []want{num(0, "zero")}},
	{"hundreds of people", nil},
	{"a year ago", nil},
	{"He won ten medals.", []want{meas(10, "medal", "ten medals")}},
	{"often", nil},
	{"one-third of the vote", []want{share(100.0/3, "one-third")}},
	{"a two-thirds majority", []want{share(200.0/3, "two-thirds")}},
	{"three quarters", []want{share(75, "three quarters")}},
	{"one-half", []want{share(50, "one-half")}},

	// --- proportions (Percent in uFraction, value in percent)
	{"a fifth of the vote", []want{share(20, "a fifth")}},
	{"About a fifth.", []want{share(20, "a fifth").ap()}},
	{"a quarter of the population", []want{share(25, "a quarter")}},
	{"sales fell by a third.", []want{share(100.0/3, "a third")}},
	{"half of the students", []want{share(50, "half")}},
	{"Half the votes", []want{share(50, "Half")}},
	{"more than half of them", []want{share(50, "half").ap()}},
	{"about half.", []want{share(50, "half").ap()}},
	{"one in five adults", []want{share(20, "one in five")}},
	{"1 in 10,000", []want{share(0.01, "1 in 10,000")}},
	{"one out of every four", []want{share(25, "one out of every four")}},
	{"one-in-a-million", []want{share(1e-4, "one-in-a-million")}},
	{"a third album", []want{ord(3, "third")}},
	{"a third-year student", []want{ord(3, "third")}},
	{"a fifth consecutive title", []want{ord(5, "fifth")}},
	{"the second half of the season", []want{ord(2, "second")}},
	{"the other half of it", nil},
	{"the lower half of the table", nil},
	{"his half of the estate", nil},
	{"at half-time", nil},
	{"If it is cut in half, it dies.", nil},
	{"In half of the cases", []want{share(50, "half")}},
	{"reduced by half.", []want{share(50, "half")}},
	{"a half-brother", nil},
	{"a quarter past three", []want{num(3, "three")}},
	{"nine out of ten", []want{num(9, "nine"), num(10, "ten")}},
	{"1 in 5 days", []want{num(1, "1"), meas(5, "day", "5 days")}},
	{"1 in 2010", []want{num(1, "1"), year(2010, "2010")}},
	{"a 2-in-1 laptop", []want{num(2, "2"), num(1, "1")}},

	// --- fractions of units and magnitudes, "and a half"
	{"half an hour", []want{meas(0.5, "hour", "half an hour")}},
	{"a half-hour show", []want{meas(0.5, "hour", "a half-hour")}},
	{"a quarter mile", []want{meas(0.25, "mile", "a quarter mile")}},
	{"three quarters of an hour", []want{meas(0.75, "hour", "three quarters of an hour")}},
	{"half a century", []want{meas(0.5, "century", "half a century")}},
	{"half a million people", []want{meas(5e5, "people", "half a million people")}},
	{"a quarter of a million", []want{num(2.5e5, "a quarter of a million")}},
	{"half a dozen", []want{num(6, "half a dozen")}},
	{"one and a half", []want{num(1.5, "one and a half")}},
	{"one and a half hours", []want{meas(1.5, "hour", "one and a half hours")}},
	{"two and a half years", []want{meas(2.5, "year", "two and a half years")}},
	{"2 and a half hours", []want{meas(2.5, "hour", "2 and a half hours")}},
	{"an hour and a half", []want{meas(1.5, "hour", "an hour and a half")}},
	{"2½ years", []want{meas(2.5, "year", "2½ years")}},
	{"1¾ miles", []want{meas(1.75, "mile", "1¾ miles")}},

	// --- "a"/"an" and a period: only as a duration
	{"It lasted for a month.", []want{meas(1, "month", "a month")}},
	{"about a year", []want{meas(1, "year", "a year").ap()}},
	{"within a week", []want{meas(1, "week", "a week")}},
	{"more than a decade", []want{meas(1, "decade", "a decade").ap()}},
	{"a month-long strike", []want{meas(1, "month", "a month")}},
	{"A week.", []want{meas(1, "week", "A week")}},
	{"twice a year", nil},
	{"three meals a day", []want{num(3, "three")}},
	{"$5 a month", []want{money(5, "usd", "$5")}},
	{"a year's supply", []want{meas(1, "year", "a year")}},
	{"an hour’s drive", []want{meas(1, "hour", "an hour")}},
	{"A year later, he left.", nil},
	{"wait a minute", nil},

	// --- ordinals
	{"the third", []want{ord(3, "third")}},
	{"3rd", []want{ord(3, "3rd")}},
	{"the 21st century", []want{ord(21, "21st")}},
	{"twenty-first", []want{ord(21, "twenty-first")}},
	{"the 100th anniversary", []want{ord(100, "100th")}},
	{"his second album", []want{ord(2, "second")}},
	{"wait a second", nil},
	{"per second", nil},
	{"At first it failed.", nil},
	{"the first time", []want{ord(1, "first")}},
	{"one hundredth", []want{ord(100, "one hundredth")}},

	// --- percent
	{"20%", []want{pct(20, "20%")}},
	{"20 %", []want{pct(20, "20 %")}},
	{"20 percent", []want{pct(20, "20 percent")}},
	{"20 per cent", []want{pct(20, "20 per cent")}},
	{"twenty percent", []want{pct(20, "twenty percent")}},
	{"about 35%", []want{pct(35, "35%").ap()}},
	{"5 percentage points", []want{{kind: Percent, value: 5, unit: "percentage point", span: "5 percentage points"}}},
	{"10–20%", []want{pct(10, "10"), pct(20, "20%")}},

	// --- money
	{"$5", []want{money(5, "usd", "$5")}},
	{"$ 5.99", []want{money(5.99, "usd", "$ 5.99")}},
	{"US$5 million", []want{money(5e6, "usd", "US$5 million")}},
	{"USD 300", []want{money(300, "usd", "USD 300")}},
	{"€3bn", []want{money(3e9, "eur", "€3bn")}},
	{"£20m", []want{money(2e7, "gbp", "£20m")}},
	{"¥1,000", []want{money(1000, "jpy", "¥1,000")}},
	{"₹500", []want{money(500, "inr", "₹500")}},
	{"Rs. 500", []want{money(500, "inr", "Rs. 500")}},
	{"$2B", []want{money(2e9, "usd", "$2B")}},
	{"5 euros", []want{money(5, "eur", "5 euros")}},
	{"5 €", []want{money(5, "eur", "5 €")}},
	{"50 cents", []want{money(0.5, "usd", "50 cents")}},
	{"5 million dollars", []want{money(5e6, "usd", "5 million dollars")}},
	{"5 US dollars", []want{money(5, "usd", "5 US dollars")}},
	{"a five-million-dollar budget", []want{money(5e6, "usd", "five-million-dollar")}},
	{"two thousand dollars", []want{money(2000, "usd", "two thousand dollars")}},
	{"1000 rupees", []want{money(1000, "inr", "1000 rupees")}},
	{"It sold for 5 pounds.", []want{money(5, "gbp", "5 pounds")}},
	{"50 pounds sterling", []want{money(50, "gbp", "50 pounds sterling")}},
	{"The dog weighs 50 pounds.", []want{meas(50, "lb", "50 pounds")}},
	{"a weight of 50 pounds", []want{meas(50, "lb", "50 pounds")}},
	{"50 lbs", []want{meas(50, "lb", "50 lbs")}},
	{"$10–20 million", []want{money(1e7, "usd", "$10"), money(2e7, "usd", "20 million")}},
	{"$10 to $20", []want{money(10, "usd", "$10"), money(20, "usd", "$20")}},
	{"costs $5.", []want{money(5, "usd", "$5")}},
	{"$", nil},

	// --- measures
	{"10 km", []want{meas(10, "km", "10 km")}},
	{"10 kilometres", []want{meas(10, "km", "10 kilometres")}},
	{"10 kilometers", []want{meas(10, "km", "10 kilometers")}},
	{"3 miles", []want{meas(3, "mile", "3 miles")}},
	{"3 mi", []want{meas(3, "mile", "3 mi")}},
	{"5 hrs", []want{meas(5, "hour", "5 hrs")}},
	{"5 h", []want{meas(5, "hour", "5 h")}},
	{"45 minutes", []want{meas(45, "minute", "45 minutes")}},
	{"a 20-year-old man", []want{meas(20, "year", "20-year")}},
	{"a twenty-year-old man", []want{meas(20, "year", "twenty-year")}},
	{"100m sprint", []want{meas(100, "m", "100m")}},
	{"5m people", []want{meas(5e6, "people", "5m people")}},
	{"5M users", []want{meas(5e6, "user", "5M users")}},
	{"2 kg", []want{meas(2, "kg", "2 kg")}},
	{"500g", []want{meas(500, "g", "500g")}},
	{"3 tonnes", []want{meas(3, "ton", "3 tonnes")}},
	{"2 litres", []want{meas(2, "liter", "2 litres")}},
	{"2L", []want{meas(2, "liter", "2L")}},
	{"60 mph", []want{meas(60, "mph", "60 mph")}},
	{"100 km/h", []want{meas(100, "kmh", "100 km/h")}},
	{"60 miles per hour", []want{meas(60, "mph", "60 miles per hour")}},
	{"9.8 m/s", []want{meas(9.8, "m/s", "9.8 m/s")}},
	{"-4 °C", []want{meas(-4, "celsius", "-4 °C")}},
	{"98.6°F", []want{meas(98.6, "fahrenheit", "98.6°F")}},
	{"30 ℃", []want{meas(30, "celsius", "30 ℃")}},
	{"20 degrees Celsius", []want{meas(20, "celsius", "20 degrees Celsius")}},
	{"90 degrees", []want{meas(90, "degree", "90 degrees")}},
	{"5 sq km", []want{meas(5, "km2", "5 sq km")}},
	{"5 km2", []want{meas(5, "km2", "5 km2")}},
	{"5 km²", []want{meas(5, "km2", "5 km²")}},
	{"5 square miles", []want{meas(5, "mi2", "5 square miles")}},
	{"200 acres", []want{meas(200, "acre", "200 acres")}},
	{"16 GB", []want{meas(16, "gb", "16 GB")}},
	{"a 65-watt charger", []want{meas(65, "watt", "65-watt")}},
	{"65 W", []want{meas(65, "watt", "65 W")}},
	{"65W", []want{meas(65, "watt", "65W")}},
	{"12V and 5 A", []want{meas(12, "volt", "12V"), meas(5, "amp", "5 A")}},
	{"12 V, 5 A", []want{meas(12, "volt", "12 V"), meas(5, "amp", "5 A")}},
	{"12V/3A", []want{meas(12, "volt", "12V")}},
	{"at 525 W Main St", []want{num(525, "525")}},
	{"Star 242 A Java library", []want{num(242, "242")}},
	{"a current of 5 A.", []want{meas(5, "amp", "5 A")}},
	{"5 amps", []want{meas(5, "amp", "5 amps")}},
	{"3000 mAh", []want{meas(3000, "mah", "3000 mAh")}},
	{"20 C", []want{meas(20, "celsius", "20 C")}},
	{"77 F", []want{meas(77, "fahrenheit", "77 F")}},
	{"77F", nil},
	{"11 kV", []want{meas(11, "kv", "11 kV")}},
	{"2.4 gigahertz", []want{meas(2.4, "ghz", "2.4 gigahertz")}},
	{"The charger gives 65 W.", []want{meas(65, "watt", "65 W")}},
	{"a 5 A fuse", []want{num(5, "5")}},
	{"a 5 V supply", []want{meas(5, "volt", "5 V")}},
	{"20 C. in the shade", []want{meas(20, "celsius", "20 C")}},
	{"166 C.E.", []want{num(166, "166")}},
	{"37 C.F.R. 1.130", []want{num(37, "37"), num(1.13, "1.130")}},
	{"229 F. Supp. 2d", []want{num(229, "229")}},
	{"at 525 W. Ottawa St.", []want{num(525, "525")}},
	{"a Type 35C and a 37A", nil},
	{"carbon-13 (13C) NMR", []want{num(13, "13")}},
	{"Jack 31 in 35", []want{num(31, "31"), num(35, "35")}},
	{"three in five adults", []want{share(60, "three in five")}},
	{"5 in 100", []want{share(5, "5 in 100")}},
	{"the population was 403 people", []want{meas(403, "people", "403 people")}},
	{"10–20 hours", []want{meas(10, "hour", "10"), meas(20, "hour", "20 hours")}},
	{"10 to 20 million people", []want{meas(1e7, "people", "10"), meas(2e7, "people", "20 million people")}},
	{"over 20 years", []want{meas(20, "year", "20 years").ap()}},
	{"more than 400 employees", []want{meas(400, "employee", "400 employees").ap()}},
	{"at least 5 km", []want{meas(5, "km", "5 km").ap()}},
	{"up to 30 days", []want{meas(30, "day", "30 days").ap()}},
	{"~20 min", []want{meas(20, "minute", "20 min").ap()}},
	{"about 20 hours", []want{meas(20, "hour", "20 hours").ap()}},
	{"about the 20 hours", []want{meas(20, "hour", "20 hours")}},
	{"20\u00a0hours", []want{meas(20, "hour", "20\u00a0hours")}},
	{"1500 people", []want{meas(1500, "people", "1500 people")}},
	{"the 2019 season", []want{year(2019, "2019")}},
	{"the 2019–20 season", []want{year(2019, "2019"), year(2020, "20")}},
	{"5 seasons", []want{meas(5, "season", "5 seasons")}},
	{"a 20-page report", []want{meas(20, "page", "20-page")}},

	// --- dates
	{"June 17, 1935", []want{date(1935, 6, 17, "June 17, 1935")}},
	{"17 June 1935", []want{date(1935, 6, 17, "17 June 1935")}},
	{"17th June 1935", []want{date(1935, 6, 17, "17th June 1935")}},
	{"the 17th of June, 1935", []want{date(1935, 6, 17, "17th of June, 1935")}},
	{"June 17th, 1935", []want{date(1935, 6, 17, "June 17th, 1935")}},
	{"1935-06-17", []want{date(1935, 6, 17, "1935-06-17")}},
	{"1935/6/17", []want{date(1935, 6, 17, "1935/6/17")}},
	{"06/17/1935", []want{date(1935, 6, 17, "06/17/1935")}},
	{"03/04/1935", []want{date(1935, 3, 4, "03/04/1935")}},
	{"17/06/1935", []want{date(1935, 6, 17, "17/06/1935")}},
	{"17.06.1935", []want{date(1935, 6, 17, "17.06.1935")}},
	{"June 1935", []want{date(1935, 6, 0, "June 1935")}},
	{"in June of 1935", []want{date(1935, 6, 0, "June of 1935")}},
	{"June 17", []want{date(0, 6, 17, "June 17")}},
	{"Sept. 5, 2001", []want{date(2001, 9, 5, "Sept. 5, 2001")}},
	{"on 4 Jul 1776", []want{date(1776, 7, 4, "4 Jul 1776")}},
	{"May 5, 1945", []want{date(1945, 5, 5, "May 5, 1945")}},
	{"you may 5 times", []want{num(5, "5")}},
	{"5 may be", []want{num(5, "5")}},
	{"in June", nil},
	{"June 40 people", []want{meas(40, "people", "40 people")}},
	{"June 17–18, 1935", []want{date(1935, 6, 17, "June 17"), date(1935, 6, 18, "18, 1935")}},
	{"17–18 June 1935", []want{date(1935, 6, 17, "17"), date(1935, 6, 18, "18 June 1935")}},
	{"2020-01-02T15:04", []want{date(2020, 1, 2, "2020-01-02"), clock(15*60+4, "15:04")}},

	// --- years
	{"1935", []want{year(1935, "1935")}},
	{"in 1990", []want{year(1990, "in 1990"[3:])}},
	{"in 800.", []want{year(800, "800")}},
	{"in 800 cases", []want{meas(800, "case", "800 cases")}},
	{"in 2150.", []want{year(2150, "2150")}},
	{"2150", []want{num(2150, "2150")}},
	{"the 1990s", []want{year(1990, "1990s").ap()}},
	{"the 1990's", []want{year(1990, "1990's").ap()}},
	{"the mid-1990s", []want{year(1990, "1990s").ap()}},
	{"the 90s", nil},
	{"500 BC", []want{year(-500, "500 BC")}},
	{"1066 AD", []want{year(1066, "1066 AD")}},
	{"around 1850", []want{year(1850, "1850").ap()}},
	{"c. 1850", []want{year(1850, "1850").ap()}},
	{"2010–11", []want{year(2010, "2010"), year(2011, "11")}},

	// --- times
	{"3pm", []want{clock(900, "3pm")}},
	{"3 p.m.", []want{clock(900, "3 p.m.")}},
	{"3:30 p.m.", []want{clock(930, "3:30 p.m.")}},
	{"3:30pm", []want{clock(930, "3:30pm")}},
	{"3.30 pm", []want{clock(930, "3.30 pm")}},
	{"12 am", []want{clock(0, "12 am")}},
	{"12 PM", []want{clock(720, "12 PM")}},
	{"at noon", []want{clock(720, "noon")}},
	{"midnight", []want{clock(0, "midnight")}},
	{"12 noon", []want{clock(720, "12 noon")}},
	{"10:45:30", []want{clock(645, "10:45:30")}},
	{"3 o'clock", []want{clock(180, "3 o'clock")}},
	{"three pm", []want{clock(900, "three pm")}},
	{"3–5 pm", []want{clock(900, "3"), clock(1020, "5 pm")}},
	{"a 3:1 ratio", []want{num(3, "3"), num(1, "1")}},

	// --- robustness
	{"", nil},
	{"\xff\xfe1\xff", []want{num(1, "1")}},
	{"\xe2\x80", nil},
	{"9", []want{num(9, "9")}},
	{"-", nil},
	{"5-", []want{num(5, "5")}},
	{"$5-", []want{money(5, "usd", "$5")}},
	{"1e10", nil},
	{"12345678901234567890123", []want{num(12345678901234567890123, "12345678901234567890123")}},
}

func TestExtract(t *testing.T) {
	for _, tc := range extractCases {
		qs := Extract(nil, tc.text)
		var gs []want
		for _, q := range qs {
			gs = append(gs, got(tc.text, q))
		}
		ok := len(gs) == len(tc.want)
		for i := 0; ok && i < len(gs); i++ {
			ok = same(gs[i], tc.want[i])
		}
		if !ok {
			t.Errorf("Extract(%q)\n got: %v\nwant: %v", tc.text, gs, tc.want)
		}
		checkSpans(t, tc.text, qs)
	}
}

func checkSpans(t *testing.T, text string, qs []Quantity) {
	t.Helper()
	prev := 0
	for _, q := range qs {
		if q.Start < prev || q.Start >= q.End || q.End > len(text) {
			t.Fatalf("Extract(%q): bad span %d-%d (prev end %d)", text, q.Start, q.End, prev)
		}
		if q.Kind < Number || q.Kind > Ordinal {
			t.Fatalf("Extract(%q): bad kind %d", text, q.Kind)
		}
		prev = q.End
	}
}

func TestExtractAppends(t *testing.T) {
	dst := []Quantity{{Kind: Number, Value: 1, Start: 0, End: 1}}
	out := Extract(dst, "20 hours and 30 days")
	if len(out) != 3 || out[0].Value != 1 || out[1].Unit != "hour" || out[2].Unit != "day" {
		t.Fatalf("Extract did not append: %+v", out)
	}
}

func first(t *testing.T, text string) Quantity {
	t.Helper()
	qs := Extract(nil, text)
	if len(qs) != 1 {
		t.Fatalf("Extract(%q) = %d quantities, want 1: %+v", text, len(qs), qs)
	}
	return qs[0]
}

func TestCompatible(t *testing.T) {
	cases := []struct {
		a, b       string
		compatible bool
		sameSlot   bool
	}{
		{"20 hours", "20 days", false, true},
		{"20 hours", "20 hrs", true, true},
		{"20 hours", "twenty hours", true, true},
		{"20 hours", "21 hours", false, true},
		{"thirty", "30", true, true},
		{"thirty", "31", false, true},
		{"$5 million", "5,000,000 dollars", true, true},
		{"$5 million", "$5.5 million", false, true},
		{"$5 million", "€5 million", false, false},
		{"3 pm", "15:00", true, true},
		{"3 pm", "3 am", false, true},
		{"June 17, 1935", "1935", true, true},
		{"June 17, 1935", "1936", false, true},
		{"June 17, 1935", "17 June 1935", true, true},
		{"June 17, 1935", "1935-06-17", true, true},
		{"June 17, 1935", "June 18, 1935", false, true},
		{"June 17", "June 17, 1935", true, true},
		{"June 17", "June 17, 1990", true, true},
		{"June 17", "July 17", false, true},
		{"June 17", "1935", false, true},
		{"June 1935", "June 17, 1935", true, true},
		{"the 1990s", "1995", true, true},
		{"the 1990s", "2001", false, true},
		{"20%", "20 percent", true, true},
		{"20%", "20", false, false},
		{"20%", "5 percentage points", false, false},
		{"10km", "10 kilometres", true, true},
		{"10km", "10 miles", false, true},
		{"about 100 people", "around 95 people", true, true},
		{"about 100 people", "95 people", false, true},
		{"1500", "1,500", true, false},
		{"third", "3rd", true, true},
		{"third", "3", false, false},
		{"2.5k", "2,500", true, true},
		{"1.1 million", "1,100,000", true, true},
		{"noon", "12:00", true, true},
		{"5'11\"", "5 feet 11 inches", true, true},
		{"180 pounds", "180 pounds sterling", true, true},
	}
	for _, tc := range cases {
		a, b := first(t, tc.a), first(t, tc.b)
		if g := a.Compatible(b); g != tc.compatible {
			t.Errorf("%q.Compatible(%q) = %v, want %v (%+v / %+v)", tc.a, tc.b, g, tc.compatible, a, b)
		}
		if g := b.Compatible(a); g != tc.compatible {
			t.Errorf("%q.Compatible(%q) = %v, want %v (symmetry)", tc.b, tc.a, g, tc.compatible)
		}
		if g := a.SameSlot(b); g != tc.sameSlot {
			t.Errorf("%q.SameSlot(%q) = %v, want %v", tc.a, tc.b, g, tc.sameSlot)
		}
	}
}

func TestKindString(t *testing.T) {
	want := []string{"Kind(0)", "number", "percent", "money", "measure", "date", "time", "year", "ordinal", "Kind(9)"}
	for k, w := range want {
		if g := Kind(k).String(); g != w {
			t.Errorf("Kind(%d).String() = %q, want %q", k, g, w)
		}
	}
}

// benchText is ~120 words of realistic answer/context prose.
const benchText = `Arthur's Magazine (1844–1846) was an American literary periodical published in Philadelphia
in the 19th century. Edited by T.S. Arthur, it featured work by Edgar A. Poe and others. In May 1846 it was merged
into Godey's Lady's Book. According to the 2010 census, the town had a population of 4,031, up about 12% from
the year 2000, and covers 5.2 square miles. The annual festival, held on June 17, draws more than twenty thousand
visitors and costs roughly $1.5 million; the 10km race starts at 9:30 a.m. and most runners finish within two
hours. No one expected that one of the oldest bridges, built in 1935 for 250,000 dollars, would close for 18 months.`

func TestNoAllocs(t *testing.T) {
	dst := make([]Quantity, 0, 64)
	n := testing.AllocsPerRun(100, func() { dst = Extract(dst[:0], benchText) })
	if n != 0 {
		t.Errorf("Extract allocates %v times per run with a large enough dst", n)
	}
	if len(dst) < 10 {
		t.Errorf("benchText yields only %d quantities", len(dst))
	}
}

// TestBenchTextQuantities holds Extract to every quantity of benchText, the
// prose BenchmarkExtract measures, read off the text by hand: kind, value,
// unit, date parts, hedge and span. A benchmark of text that stopped
// yielding these would measure something else.
func TestBenchTextQuantities(t *testing.T) {
	want := []Quantity{
		{Kind: Year, Value: 1844, Year: 1844},
		{Kind: Year, Value: 1846, Year: 1846},
		{Kind: Ordinal, Value: 19},
		{Kind: Date, Year: 1846, Month: 5},
		{Kind: Year, Value: 2010, Year: 2010},
		{Kind: Number, Value: 4031},
		{Kind: Percent, Value: 12, Unit: "percent", Hedged: true}, // "up about 12%"
		{Kind: Year, Value: 2000, Year: 2000},
		{Kind: Measure, Value: 5.2, Unit: "mi2"},
		{Kind: Date, Month: 6, Day: 17},
		{Kind: Number, Value: 20000, Hedged: true},             // "more than twenty thousand"
		{Kind: Money, Value: 1.5e6, Unit: "usd", Hedged: true}, // "roughly $1.5 million"
		{Kind: Measure, Value: 10, Unit: "km"},
		{Kind: Time, Value: 9*60 + 30},
		{Kind: Measure, Value: 2, Unit: "hour"},
		{Kind: Year, Value: 1935, Year: 1935},
		{Kind: Money, Value: 250000, Unit: "usd"},
		{Kind: Measure, Value: 18, Unit: "month"},
	}
	spans := []string{"1844", "1846", "19th", "May 1846", "2010", "4,031", "12%", "2000", "5.2 square miles",
		"June 17", "twenty thousand", "$1.5 million", "10km", "9:30 a.m.", "two\nhours", "1935", "250,000 dollars", "18 months"}
	qs := Extract(nil, benchText)
	checkSpans(t, benchText, qs)
	if len(qs) != len(want) {
		t.Errorf("Extract(benchText) found %d quantities; want %d", len(qs), len(want))
	}
	for i := range min(len(qs), len(want)) {
		q := qs[i]
		span := benchText[q.Start:q.End]
		q.Start, q.End = 0, 0
		if q != want[i] || span != spans[i] {
			t.Errorf("quantity %d: %q %+v; want %q %+v", i, span, q, spans[i], want[i])
		}
	}
}

func BenchmarkExtract(b *testing.B) {
	dst := make([]Quantity, 0, 64)
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		dst = Extract(dst[:0], benchText)
	}
}

func FuzzExtract(f *testing.F) {
	for _, tc := range extractCases {
		f.Add(tc.text)
	}
	f.Add(benchText)
	f.Fuzz(func(t *testing.T, text string) {
		qs := Extract(nil, text)
		prev := 0
		for i, q := range qs {
			if q.Start < prev || q.Start >= q.End || q.End > len(text) {
				t.Fatalf("quantity %d: bad span %d-%d (prev end %d, len %d)", i, q.Start, q.End, prev, len(text))
			}
			if q.Kind < Number || q.Kind > Ordinal {
				t.Fatalf("quantity %d: bad kind %d", i, q.Kind)
			}
			_ = text[q.Start:q.End]
			prev = q.End
			if !q.Compatible(q) && q.Kind.family() != Date && q.Value == q.Value {
				t.Fatalf("quantity %d is not compatible with itself: %+v", i, q)
			}
			_ = q.SameSlot(q)
			if q.Approx(q) {
				t.Fatalf("quantity %d is Approx itself: %+v", i, q)
			}
			if i > 0 {
				a, b := qs[i-1], q
				if a.Compatible(b) != b.Compatible(a) || a.SameSlot(b) != b.SameSlot(a) || a.Approx(b) != b.Approx(a) {
					t.Fatalf("asymmetric comparison of %+v and %+v", a, b)
				}
				if a.Approx(b) && (a.Compatible(b) || a.SameSlot(b)) {
					t.Fatalf("%+v and %+v are Approx and also Compatible or SameSlot", a, b)
				}
			}
		}
		// tableWord's fast ways must find what its slow way finds.
		slowWords = true
		slow := Extract(nil, text)
		slowWords = false
		if len(slow) != len(qs) {
			t.Fatalf("%d quantities; %d with slowWords", len(qs), len(slow))
		}
		for i := range qs {
			if !identical(qs[i], slow[i]) {
				t.Fatalf("quantity %d is %+v; %+v with slowWords", i, qs[i], slow[i])
			}
		}
		// appending to a non-empty dst must keep the prefix
		pre := []Quantity{{Kind: Number, Value: 7, Start: 0, End: 1}}
		qs2 := Extract(pre, text)
		if len(qs2) != len(qs)+1 || qs2[0].Value != 7 {
			t.Fatalf("append changed the prefix or count: %d vs %d", len(qs2), len(qs)+1)
		}
	})
}

// TestLookupGeneralMatchesMap holds the open-addressing table behind
// lookupGeneral (and probeGeneral, which skips its quick rejections) to
// the generalWords map it is built from, for every key in several casings
// and for words that are not keys.
func TestLookupGeneralMatchesMap(t *testing.T) {
	ref := func(w string) wordInfo {
		var b []byte
		for i := 0; i < len(w); i++ {
			b = append(b, lower(w[i]))
		}
		return generalWords[string(b)]
	}
	var words []string
	for w := range generalWords {
		words = append(words, w, strings.ToUpper(w), strings.ToUpper(w[:1])+w[1:], w+"s", "x"+w, w[:len(w)-1])
	}
	words = append(words, "the", "The", "Rhine", "kilometres", "JUNE", "Noon", "aBoUt", "zzzzzzzzzzzzzz", "q")
	for _, w := range words {
		if w == "" {
			continue
		}
		if got, want := lookupGeneral(w), ref(w); got != want {
			t.Errorf("lookupGeneral(%q) = %+v; the map says %+v", w, got, want)
		}
		if got, want := probeGeneral(w), ref(w); got != want {
			t.Errorf("probeGeneral(%q) = %+v; the map says %+v", w, got, want)
		}
	}
}
