package quant

// Phrases built around fraction words and the article: "a fifth of", "two
// thirds", "half of", "half an hour", "a quarter million", "one and a half",
// "an hour and a half", "a month", "one in five", "2½".

// addFrac adds f (a fraction read after the digits or words) to the number
// before magnitude words apply: "one and a half million" is 1.5e6.
func (c *core) addFrac(f float64) {
	v := c.scaled(0) + f
	c.exact, c.fv, c.frac = false, v, 0
}

// halfOrQuarter reports a fraction word that may stand right before a unit
// ("a half-hour", "a quarter mile", "three-quarter-inch"), unlike the
// ordinal-like ones ("a third-year student", "a fifth-century church").
func halfOrQuarter(w string) bool {
	b := lower(w[0])
	return b == 'h' || b == 'q'
}

// emitShare emits the proportion f spanning s[start:end] as a Percent in
// uFraction: "a fifth" is 20.
func (sc *scanner) emitShare(start, end int, f float64) {
	sc.emit(Quantity{Kind: Percent, Value: 100 * f, Unit: uFraction, Start: start, End: end}, info{mag: 1, raw: 100 * f})
}

// isArticle reports "a" or "an".
func isArticle(w string) bool { return eqFold(w, "a") || eqFold(w, "an") }

// fracUnit returns the unit named by w when a fraction may measure it ("half
// an hour", "a quarter-mile"), or "". Single letters are refused.
func fracUnit(w string) string {
	if len(w) < 2 {
		return ""
	}
	if si := lookupSuffix(w); si.cls == sUnit {
		return si.unit
	}
	return ""
}

// fracTail reads what follows the fraction f named by s[start:e]:
//
//   - a unit, when direct (half or quarter): "a half-hour", "a quarter
//     mile", "half day" → Measure;
//   - a magnitude, when direct: "a quarter million" → Number (or a count or
//     money, through finish);
//   - "[of] a/an" and a unit, magnitude or "dozen": "half an hour", "three
//     quarters of an hour", "half a million people", "half a dozen" →
//     Measure or Number.
//
// It emits and returns the end when one of these applies; otherwise it
// reports whether "of" follows (then the caller may emit a proportion).
func (sc *scanner) fracTail(start, e int, f float64, direct bool) (end int, ok, of bool) {
	s := sc.s
	t, te := sc.nextWord(e)
	if t == "" {
		return 0, false, false
	}
	hy := hyphenWidth(s, e) > 0
	if direct {
		if u := fracUnit(t); u != "" {
			sc.emit(Quantity{Kind: Measure, Value: f, Unit: u, Start: start, End: te}, info{mag: 1, raw: f})
			return te, true, false
		}
		if si := lookupSuffix(t); si.cls == sScale && len(t) > 1 && !hy {
			c := core{start: start, end: te, fv: f, exp: int(si.exp), words: true, mul: 1}
			return sc.finish(&c), true, false
		}
	}
	if hy {
		return 0, false, false
	}
	if eqFold(t, "of") {
		of = true
		if t, te = sc.nextWord(te); t == "" {
			return 0, false, true
		}
	}
	if !isArticle(t) {
		return 0, false, of
	}
	u, ue := sc.nextWord(te)
	if u == "" {
		return 0, false, of
	}
	if un := fracUnit(u); un != "" {
		sc.emit(Quantity{Kind: Measure, Value: f, Unit: un, Start: start, End: ue}, info{mag: 1, raw: f})
		return ue, true, false
	}
	switch si := lookupSuffix(u); {
	case si.cls == sScale && len(u) > 1:
		c := core{start: start, end: ue, fv: f, exp: int(si.exp), words: true, mul: 1}
		return sc.finish(&c), true, false
	case si.cls == sDozen:
		c := core{start: start, end: ue, fv: f, words: true, mul: 12}
		return sc.finish(&c), true, false
	}
	return 0, false, of
}

// wordFollows reports a letter or digit after the spaces following e: the
// phrase ending at e goes on ("a fifth album"), it does not end a clause
// ("fell by a fifth.").
func (sc *scanner) wordFollows(e int) bool {
	if hw := hyphenWidth(sc.s, e); hw > 0 {
		return e+hw < len(sc.s) && isWordByte(sc.s[e+hw]) // "a third-year student"
	}
	p := sc.skipSpaces(e)
	return p < len(sc.s) && isWordByte(sc.s[p])
}

// clauseStart reports that only spaces and punctuation that opens or ends a
// clause come before i ("A month.", "Answer: a year").
func (sc *scanner) clauseStart(i int) bool {
	s := sc.s
	k := i
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t' || s[k-1] == '\n' || s[k-1] == '\r') {
		k--
	}
	if k == 0 {
		return true
	}
	switch s[k-1] {
	case '.', '!', '?', ';', ':', ',', '(', '"', '\'', '[':
		return true
	}
	return false
}

// prevWordAt returns the plain word that ends right before i (spaces
// between), or "".
func (sc *scanner) prevWordAt(i int) string {
	if sc.prevStart == sc.prevEnd || sc.skipSpaces(sc.prevEnd) != i {
		return ""
	}
	return sc.s[sc.prevStart:sc.prevEnd]
}

// wordBefore returns the ASCII word that ends, after ASCII spaces, right
// before i, and where it starts; "" when punctuation or nothing comes first.
func (sc *scanner) wordBefore(i int) (string, int) {
	s := sc.s
	k := i
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '\t' || s[k-1] == '\n') {
		k--
	}
	e := k
	for k > 0 && isLetter(s[k-1]) {
		k--
	}
	if k == e || !boundaryBefore(s, k) {
		return "", k
	}
	return s[k:e], k
}

// article handles "a"/"an" (s[i:j]) before the word s[p:e] that is not a
// magnitude: a fraction ("a fifth of the vote", "a quarter mile", "half" in
// "a half-hour") or a period ("for a month", "about a year").
func (sc *scanner) article(i, j, p, e int) (int, bool) {
	s := sc.s
	t := s[p:e]
	if d := fractionDenom(t); d > 0 {
		f := 1 / float64(d)
		r, ok, of := sc.fracTail(i, e, f, halfOrQuarter(t))
		if ok {
			return r, true
		}
		// "a fifth of the vote"; "fell by a fifth."; "a half." — but not
		// "a third album" or "a quarter past".
		if of || !sc.wordFollows(e) {
			sc.emitShare(i, e, f)
			return e, true
		}
		return 0, false
	}
	if u := periodUnit(t); u != "" {
		return sc.period(i, e, u)
	}
	return 0, false
}

// periodUnit returns the unit of a period word that may follow "a"/"an"
// ("a minute", "an hour", "a day", ..., "a century"), or "". "a second" is
// left alone ("wait a second", "a second album").
func periodUnit(w string) string {
	if len(w) < 3 || len(w) > 7 {
		return ""
	}
	switch lower(w[0]) {
	case 'm', 'h', 'd', 'w', 'y', 'c':
	default:
		return ""
	}
	var buf [7]byte
	for k := 0; k < len(w); k++ {
		buf[k] = lower(w[k])
	}
	switch string(buf[:len(w)]) {
	case "minute":
		return uMinute
	case "hour":
		return uHour
	case "day":
		return uDay
	case "week":
		return uWeek
	case "month":
		return uMonth
	case "year":
		return uYear
	case "decade":
		return uDecade
	case "century":
		return uCentury
	}
	return ""
}

// durationCue reports a word after which "a"/"an" and a period word state a
// duration ("for a month", "about a year", "took a week", "more than a
// day"), unlike a rate ("twice a year", "$5 a month", "three meals a day")
// or a time reference ("a year ago", "A day later").
func durationCue(w string) bool {
	if len(w) < 2 || len(w) > 13 {
		return false
	}
	var buf [13]byte
	for k := 0; k < len(w); k++ {
		buf[k] = lower(w[k])
	}
	switch string(buf[:len(w)]) {
	case "for", "in", "within", "about", "around", "nearly", "almost", "over", "under",
		"than", "roughly", "approximately", "only", "just", "least", "most", "after",
		"to", "from", "by", "barely", "lasted", "lasting", "lasts", "last", "took",
		"takes", "take", "taking", "spent", "spend", "spends", "spending":
		return true
	}
	return false
}

// period emits "a"/"an" (at i) and the period word ending at e as one unit
// u when a duration cue comes before, or "-long", "'s" or "and a half"
// after, or the phrase stands alone: "for a month", "an hour and a half",
// "a year-long strike", "a day's work", "A week.".
func (sc *scanner) period(i, e int, u string) (int, bool) {
	s := sc.s
	v, end := 1.0, e
	cue := false
	if f, fe := sc.andFrac(e); f > 0 {
		v, end, cue = v+f, fe, true
	} else if a := apostropheAt(s, e); a > 0 && e+a < len(s) && s[e+a] == 's' && boundaryAfter(s, e+a+1) {
		cue = true // "a year's supply", "an hour's drive"
	} else if hw := hyphenWidth(s, e); hw > 0 {
		k := e + hw
		le := letterEnd(s, k)
		cue = eqFold(s[k:le], "long") && boundaryAfter(s, le)
	}
	// A phrase standing alone ("A month.", "Answer: a year") is an answer
	// to "how long".
	if !cue && !durationCue(sc.prevWordAt(i)) && !(sc.clauseStart(i) && !sc.wordFollows(end)) {
		return 0, false
	}
	sc.emit(Quantity{Kind: Measure, Value: v, Unit: u, Start: i, End: end}, info{mag: 1, raw: v})
	return end, true
}

// andHalf extends the number c with " and a half" ("one and a half", "2
// and a half hours").
func (sc *scanner) andHalf(c *core) {
	if c.isInt() && c.cur == "" && !c.neg && !c.commas && c.ndig <= 3 {
		if f, e := sc.andFrac(c.end); f > 0 {
			c.addFrac(f)
			c.end, c.weak = e, false
		}
	}
}

// tail reads what may follow a Measure or a bare number (kind 0) after its
// unit, at pos: " and a half" after a Measure ("two years and a half"), or
// a ratio after a bare integer ("one in five"). done reports that the ratio
// was emitted and scanning resumes at r; otherwise pos is where the
// quantity now ends. other reports a trailing "+" or a magnitude.
func (sc *scanner) tail(c *core, kind Kind, pos int, other bool) (r, p int, done bool) {
	s := sc.s
	if kind == Measure {
		if andAhead(s, pos) && c.exp == 0 && c.mul == 1 && c.extra == 0 && !c.neg {
			if f, e := sc.andFrac(pos); f > 0 {
				c.addFrac(f)
				return 0, e, false
			}
		}
		return 0, pos, false
	}
	if inAhead(s, pos) && !other && c.cur == "" && c.mul == 1 && c.isInt() && !c.neg && c.mant >= 1 {
		if r, ok := sc.ratio(c, pos); ok {
			return r, pos, true
		}
	}
	return 0, pos, false
}

// andAhead is a quick test that " and" may follow pos (see andFrac): false
// for the usual ASCII space and another letter, or the end of the text.
func andAhead(s string, pos int) bool {
	if pos+5 >= len(s) {
		return false
	}
	switch b := s[pos]; {
	case b == ' ':
		return s[pos+1]|0x20 == 'a'
	case b == '\t', b == '\n', b == '\r', b >= 0x80: // other spaces: look closer
		return true
	}
	return false
}

// inAhead is a quick test that " in" or " out" may follow pos (see ratio).
func inAhead(s string, pos int) bool {
	if pos+3 >= len(s) {
		return false
	}
	if s[pos] != ' ' && s[pos] != '-' {
		return s[pos] >= 0x80 // another space character: look closer
	}
	b := s[pos+1] | 0x20
	return b == 'i' || b == 'o'
}

// andFrac reads " and a half", " and a quarter" or " and three quarters"
// after pos and returns the fraction and its end, or 0.
func (sc *scanner) andFrac(pos int) (float64, int) {
	s := sc.s
	p := sc.skipSpaces(pos)
	if p == pos || p+3 >= len(s) || lower(s[p]) != 'a' || lower(s[p+1]) != 'n' || lower(s[p+2]) != 'd' || !boundaryAfter(s, p+3) {
		return 0, pos
	}
	q := sc.skipSpaces(p + 3)
	if q == p+3 {
		return 0, pos
	}
	e := letterEnd(s, q)
	if e == q || !boundaryAfter(s, e) {
		return 0, pos
	}
	num := 0.0
	switch w := s[q:e]; {
	case isArticle(w), eqFold(w, "one"):
		num = 1
	case eqFold(w, "three"):
		num = 3
	default:
		return 0, pos
	}
	r := sc.skipSpaces(e)
	if hw := hyphenWidth(s, e); hw > 0 {
		r = e + hw
	}
	if r == e {
		return 0, pos
	}
	fe := letterEnd(s, r)
	if fe == r || !boundaryAfter(s, fe) {
		return 0, pos
	}
	switch d := fractionDenom(s[r:fe]); {
	case d == 2 && num == 1:
		return 0.5, fe
	case d == 4 && halfOrQuarter(s[r:fe]):
		return num / 4, fe
	}
	return 0, pos
}

// half handles "half" (s[i:j]) in running text: "half an hour", "half a
// million", "half-hour" (through fracTail), or a proportion — "half of
// the", "half the", "half its", "about half." — unless it names a part
// ("the second half of", "the other half", "the lower half", "his half").
func (sc *scanner) half(i, j int) (int, bool) {
	r, ok, of := sc.fracTail(i, j, 0.5, true)
	if ok {
		return r, true
	}
	if !of {
		if t, _ := sc.nextWord(j); t != "" {
			if hyphenWidth(sc.s, j) > 0 || !shareDeterminer(t) {
				return 0, false
			}
		}
	}
	w1, k := sc.wordBefore(i)
	if w1 != "" {
		if partWord(w1) || lookupGeneral(w1).cls == wOrd {
			return 0, false
		}
		if !of && (eqFold(w1, "in") || eqFold(w1, "into")) {
			// "cut in half": divided in two, not a proportion ("in half of
			// the cases" is one)
			return 0, false
		}
		if w2, _ := sc.wordBefore(k); w2 != "" && determiner(w2) {
			return 0, false
		}
	}
	sc.emitShare(i, j, 0.5)
	return j, true
}

// shareDeterminer reports a word after which "half" is a proportion: "half
// the", "half its", "half them".
func shareDeterminer(w string) bool {
	if len(w) < 2 || len(w) > 5 {
		return false
	}
	var buf [5]byte
	for k := 0; k < len(w); k++ {
		buf[k] = lower(w[k])
	}
	switch string(buf[:len(w)]) {
	case "the", "its", "their", "his", "her", "our", "your", "my", "all", "these", "those", "them", "this", "that":
		return true
	}
	return false
}

// determiner reports an article, demonstrative or possessive.
func determiner(w string) bool {
	if len(w) > 5 {
		return false
	}
	if isArticle(w) {
		return true
	}
	var buf [5]byte
	for k := 0; k < len(w); k++ {
		buf[k] = lower(w[k])
	}
	switch string(buf[:len(w)]) {
	case "the", "its", "their", "his", "her", "our", "your", "my", "this", "that":
		return true
	}
	return false
}

// partWord reports a word before "half" that makes it a part, not a
// proportion: "the half", "other half", "latter half", "back half".
func partWord(w string) bool {
	if determiner(w) {
		return true
	}
	if len(w) > 8 {
		return false
	}
	var buf [8]byte
	for k := 0; k < len(w); k++ {
		buf[k] = lower(w[k])
	}
	switch string(buf[:len(w)]) {
	case "other", "latter", "former", "back", "front", "top", "bottom", "upper", "lower",
		"early", "late", "later", "last", "next", "final", "opening", "closing", "better",
		"northern", "southern", "eastern", "western", "each", "every", "one":
		return true
	}
	return false
}

// ratio reads " in [every] M" (or " out of [every] M" after 1) after the
// bare integer c ending at pos and emits the proportion c/M: "one in five"
// is 20 (uFraction). M must exceed c and must not be a year ("1 in 2010")
// or a measure ("1 in 5 days"); unless c is 1, M must be at most 10 or a
// power of ten.
func (sc *scanner) ratio(c *core, pos int) (int, bool) {
	s := sc.s
	t, e := sc.nextWord(pos)
	switch {
	case eqFold(t, "in"):
	case eqFold(t, "out") && c.mant == 1:
		t2, e2 := sc.nextWord(e)
		if !eqFold(t2, "of") {
			return 0, false
		}
		e = e2
	default:
		return 0, false
	}
	p := sc.unitGap(e)
	if p < 0 {
		p = sc.skipSpaces(e)
		if p == e || p >= len(s) || !isDigit(s[p]) {
			return 0, false
		}
	} else if le := letterEnd(s, p); eqFold(s[p:le], "every") {
		if p = sc.skipSpaces(le); p == le {
			return 0, false
		}
	}
	m, me, ok := sc.peekCount(p)
	if !ok || m <= float64(c.mant) {
		return 0, false
	}
	if c.mant != 1 && m > 10 && !powerOf10(m) {
		// "Jack scored 31 in 35": a tally, not a proportion ("three in
		// five", "5 in 100" are)
		return 0, false
	}
	if w, _ := sc.nextWord(me); w != "" {
		switch lookupSuffix(w).cls {
		case sNone, sCount, sCountOne:
		default:
			return 0, false
		}
	}
	sc.emit(Quantity{Kind: Percent, Value: 100 * float64(c.mant) / m, Unit: uFraction, Start: c.start, End: me},
		info{mag: 1, raw: 100 * float64(c.mant) / m})
	return me, true
}

// peekCount reads a whole number at p — digits with optional thousands
// separators, or words ("five", "twenty-five", "a hundred", "ten
// thousand") — without emitting it. Four-digit years and decimals are
// refused.
func (sc *scanner) peekCount(p int) (float64, int, bool) {
	s := sc.s
	if p >= len(s) {
		return 0, p, false
	}
	if isDigit(s[p]) {
		var v float64
		j, nd := p, 0
		for j < len(s) && isDigit(s[j]) {
			v = v*10 + float64(s[j]-'0')
			nd++
			j++
		}
		commas := false
		if nd <= 3 {
			for j+3 < len(s) && s[j] == ',' && isDigit(s[j+1]) && isDigit(s[j+2]) && isDigit(s[j+3]) &&
				(j+4 == len(s) || !isDigit(s[j+4])) {
				v = v*1000 + float64(s[j+1]-'0')*100 + float64(s[j+2]-'0')*10 + float64(s[j+3]-'0')
				j += 4
				commas = true
			}
		}
		if !boundaryAfterNum(s, j) || !commas && nd == 4 && v >= 1000 && v <= 2100 {
			return 0, p, false
		}
		return v, j, true
	}
	if !isLetter(s[p]) {
		return 0, p, false
	}
	e := letterEnd(s, p)
	if !boundaryAfter(s, e) {
		return 0, p, false
	}
	wi := lookupGeneral(s[p:e])
	switch {
	case wi.cls == wNum && wi.val >= 1, wi.cls == wA:
	default:
		return 0, p, false
	}
	v, end, nwords, ord, last := sc.parseSpelled(p, e, wi)
	if ord || last == lkA && nwords == 1 {
		return 0, p, false
	}
	return v, end, true
}

func powerOf10(v float64) bool {
	for p := 100.0; p <= 1e12; p *= 10 {
		if v == p {
			return true
		}
	}
	return false
}

// vulgarFrac returns the value and width of a vulgar fraction character at
// s[i] (½ ¼ ¾ ⅓ ⅔), or 0.
func vulgarFrac(s string, i int) (float64, int) {
	if i+1 >= len(s) {
		return 0, 0
	}
	switch s[i] {
	case 0xC2:
		switch s[i+1] {
		case 0xBD:
			return 0.5, 2
		case 0xBC:
			return 0.25, 2
		case 0xBE:
			return 0.75, 2
		}
	case 0xE2:
		if i+2 < len(s) && s[i+1] == 0x85 {
			switch s[i+2] {
			case 0x93:
				return 1.0 / 3, 3
			case 0x94:
				return 2.0 / 3, 3
			}
		}
	}
	return 0, 0
}
