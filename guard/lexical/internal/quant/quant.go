package quant

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the kind of an extracted quantity.
type Kind uint8

// Kinds of quantities.
const (
	Number  Kind = iota + 1 // a bare number: "403", "thirty", "1,500"
	Percent                 // "20%", "20 percent", "5 percentage points"
	Money                   // "$5 million", "5,000,000 dollars", "€3"
	Measure                 // a number with a unit: "20 hours", "10km", "500 people"
	Date                    // "June 17, 1935", "1935-06-17", "June 1935", "June 17"
	Time                    // time of day: "3 pm", "15:00", "noon"
	Year                    // a year standing alone: "1935", "in 1990", "1990s", "500 BC"
	Ordinal                 // "third", "3rd", "twenty-first"
)

// String returns the lower-case name of the kind.
func (k Kind) String() string {
	switch k {
	case Number:
		return "number"
	case Percent:
		return "percent"
	case Money:
		return "money"
	case Measure:
		return "measure"
	case Date:
		return "date"
	case Time:
		return "time"
	case Year:
		return "year"
	case Ordinal:
		return "ordinal"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Quantity is one quantity found in a text.
type Quantity struct {
	Kind Kind
	// Value is the numeric value after magnitude words ("5 million" → 5e6).
	// Percent: the percentage (20 for "20%"). Time: minutes after midnight.
	// Ordinal: the rank. Year: the year (negative for BC). Date: 0.
	Value float64
	// Unit is the canonical unit: a currency code for Money, "percent" or
	// "percentage point" for Percent, a unit for Measure, "" otherwise.
	Unit string
	// Year, Month and Day are set for Date and Year; 0 means not stated.
	Year, Month, Day int
	// Start and End are the byte offsets of the match in the input. The span
	// covers a currency symbol, sign, number and unit, but not a preceding
	// approximation cue such as "about".
	Start, End int
	// Hedged reports a preceding approximation cue ("about", "over", "more
	// than", "~", ...), a trailing "+", a decade ("1990s") or a range member
	// whose partner was approximate. (The method Approx compares two
	// quantities; this field was called Approx before that method existed.)
	Hedged bool
}

// strictPanics makes Extract re-panic instead of recovering; tests set it.
var strictPanics = false

// Extract appends the quantities found in text to dst and returns the
// extended slice; it does not reset dst. Quantities are appended in text
// order with non-overlapping spans. Extract never panics and allocates only
// when dst needs to grow.
func Extract(dst []Quantity, text string) (out []Quantity) {
	sc := scanner{
		s:         text,
		dst:       dst,
		approxEnd: -1,
		prepEnd:   -1,
		rangeIdx:  -1,
	}
	n0 := len(dst)
	defer func() {
		if r := recover(); r != nil {
			if strictPanics {
				panic(r)
			}
			// A bug must not take the caller down: return what was found.
			out = sc.dst
			if len(out) < n0 {
				out = dst
			}
		}
	}()
	sc.run()
	return sc.dst
}

// scanner holds the state of one left-to-right pass.
type scanner struct {
	s         string
	dst       []Quantity
	approxEnd int  // where a token right after the last approximation cue starts, -1 if none
	prepEnd   int  // where the last year preposition ends, -1 if none (see isYear)
	prevStart int  // s[prevStart:prevEnd] is the last plain word seen, empty if the
	prevEnd   int  // last token was none (ints, not a string: no write barrier per word)
	rangeIdx  int  // index in dst of a quantity followed by a range connector
	rangeAt   int  // offset where the second member of that range must start
	rangeInf  info // details of dst[rangeIdx]
}

// info carries what range joining needs to know about an emitted quantity.
type info struct {
	plain bool    // bare number: no unit, currency or magnitude
	raw   float64 // value before magnitude words
	mag   float64 // multiplier applied by magnitude words
	ndig  int     // integer digits written
	mer   int8    // Time: 1 am, 2 pm, 0 none
}

// core is a number being parsed, before its suffixes are known.
type core struct {
	start  int // start of the match (sign, currency symbol or first word)
	end    int // end of the numeric part
	mant   uint64
	fv     float64 // the digits when they do not fit mant
	exact  bool    // mant holds the digits
	frac   int     // digits after the decimal point
	ndig   int     // digits before the decimal point
	commas bool    // thousands separators were used
	neg    bool
	words  bool   // spelled out
	weak   bool   // a lone "one": kept only with a unit
	cur    string // currency from a prefix symbol or code
	exp    int    // decimal exponent from magnitude words
	mul    float64
	extra  float64 // added after scaling (feet and inches)
}

func (c *core) isInt() bool { return c.exact && c.frac == 0 }

// small returns the integer value when it is an exact integer below 1e9.
func (c *core) small() (int, bool) {
	if !c.isInt() || c.mant >= 1e9 {
		return 0, false
	}
	return int(c.mant), true
}

func (c *core) scaled(exp int) float64 {
	m := float64(c.mant)
	if !c.exact {
		m = c.fv
	}
	e := exp - c.frac
	var v float64
	if e >= 0 {
		v = m * pow10(e)
	} else {
		v = m / pow10(-e)
	}
	return v
}

func (c *core) value() float64 {
	v := c.scaled(c.exp)
	if c.mul != 1 {
		v *= c.mul
	}
	v += c.extra
	if c.neg {
		v = -v
	}
	return v
}

func (c *core) raw() float64 {
	v := c.scaled(0)
	if c.neg {
		v = -v
	}
	return v
}

func (c *core) addDigit(b byte) {
	d := uint64(b - '0')
	if c.exact {
		if c.mant < 1e17 {
			c.mant = c.mant*10 + d
			return
		}
		c.exact = false
		c.fv = float64(c.mant)
	}
	c.fv = c.fv*10 + float64(d)
}

var pow10tab = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

func pow10(n int) float64 {
	if n >= 0 && n < len(pow10tab) {
		return pow10tab[n]
	}
	return math.Pow10(n)
}

// ---- byte classes -------------------------------------------------------

func isDigit(b byte) bool  { return b-'0' < 10 }
func isLetter(b byte) bool { return (b|0x20)-'a' < 26 }
func isUpper(b byte) bool  { return b-'A' < 26 }

func hasUpper(w string) bool {
	for i := 0; i < len(w); i++ {
		if isUpper(w[i]) {
			return true
		}
	}
	return false
}

func lower(b byte) byte {
	if isUpper(b) {
		return b + 32
	}
	return b
}

// eqFold reports whether w equals the lower-case ASCII word t, ignoring case.
func eqFold(w, t string) bool {
	if len(w) != len(t) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if lower(w[i]) != t[i] {
			return false
		}
	}
	return true
}

// letterEnd returns the end of the run of ASCII letters that starts at i.
// It runs for every word of every text, so it tests eight bytes at a time.
func letterEnd(s string, i int) int {
	for i+8 <= len(s) {
		if m := nonLetters(load64(s, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(s) && isLetter(s[i]) {
		i++
	}
	return i
}

// load64 reads the eight bytes at s[i:] as a little-endian word (the
// compiler turns it into one load).
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// nonLetters marks the first byte of x (in little-endian order) that is
// not an ASCII letter with its high bit, isLetter on eight bytes at once:
// x has no such byte iff the result is 0, and otherwise the lowest set bit
// of the result is the high bit of the first such byte. With y a byte
// folded to lower case (or 0x20), y is a letter iff adding 0x1f sets bit 7
// ('a' and up) and adding 0x05 leaves it clear (up to 'z'). A byte from
// 0x80 up fails one of the two: adding 0x05 keeps bit 7 unless the sum
// wraps (0xFB and up), and then adding 0x1f wraps to below 0x80. A sum
// carries into the next byte only from a byte of 0xE1 or more, no letter,
// so the bytes up to the first non-letter are exact; the ones after it
// may be marked wrongly.
func nonLetters(x uint64) uint64 {
	const (
		ones = 0x0101010101010101
		high = 0x80 * ones
	)
	y := x | 0x20*ones
	return (^(y + 0x1f*ones) | (y + 0x05*ones)) & high
}

// isWordByte reports ASCII letters, digits and '_'.
func isWordByte(b byte) bool { return isLetter(b) || isDigit(b) || b == '_' }

// boundaryAfter reports whether a word or number ending at e is not glued to
// a following letter or digit (ASCII or not).
func boundaryAfter(s string, e int) bool {
	if e >= len(s) {
		return true
	}
	b := s[e]
	if b < utf8.RuneSelf {
		return !isWordByte(b)
	}
	return runeBoundaryAfter(s, e)
}

// runeBoundaryAfter is boundaryAfter for a non-ASCII byte at e, kept apart
// so that boundaryAfter inlines.
func runeBoundaryAfter(s string, e int) bool {
	r, _ := utf8.DecodeRuneInString(s[e:])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// boundaryBefore reports whether a token starting at i is not glued to a
// preceding letter or digit.
func boundaryBefore(s string, i int) bool {
	if i <= 0 {
		return true
	}
	if i > len(s) {
		return false
	}
	b := s[i-1]
	if b < utf8.RuneSelf {
		return !isWordByte(b)
	}
	return runeBoundaryBefore(s, i)
}

// runeBoundaryBefore is boundaryBefore for a non-ASCII byte at i-1, kept
// apart so that boundaryBefore inlines.
func runeBoundaryBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// boundaryAfterNum is boundaryAfter that also refuses a following ",5",
// ".5" or ":5" (the number goes on).
func boundaryAfterNum(s string, k int) bool {
	if k >= len(s) {
		return true
	}
	b := s[k]
	if (b == ',' || b == '.' || b == ':') && k+1 < len(s) && isDigit(s[k+1]) {
		return false
	}
	return boundaryAfter(s, k)
}

// spaceWidth returns the byte width of a whitespace character at s[i]
// (ASCII space, tab, newline, no-break and thin spaces), 0 if none.
func spaceWidth(s string, i int) int {
	switch s[i] {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return 1
	case 0xC2: // U+00A0 no-break space
		if i+1 < len(s) && s[i+1] == 0xA0 {
			return 2
		}
	case 0xE2: // U+2000–U+200A, U+202F, U+205F
		if i+2 < len(s) {
			b1, b2 := s[i+1], s[i+2]
			if b1 == 0x80 && (b2 >= 0x80 && b2 <= 0x8A || b2 == 0xAF) || b1 == 0x81 && b2 == 0x9F {
				return 3
			}
		}
	case 0xE3: // U+3000 ideographic space
		if i+2 < len(s) && s[i+1] == 0x80 && s[i+2] == 0x80 {
			return 3
		}
	}
	return 0
}

// opensSpace marks the bytes at which spaceWidth may find a space, so
// that skipSpaces calls it only there.
var opensSpace = func() (t [256]bool) {
	for _, b := range []byte{' ', '\t', '\n', '\r', '\v', '\f', 0xC2, 0xE2, 0xE3} {
		t[b] = true
	}
	return t
}()

func (sc *scanner) skipSpaces(i int) int {
	s := sc.s
	for i < len(s) && opensSpace[s[i]] {
		if s[i] == ' ' {
			i++
			continue
		}
		w := spaceWidth(s, i)
		if w == 0 {
			break
		}
		i += w
	}
	return i
}

// dashWidth returns the width of a hyphen, dash or minus sign at s[i].
func dashWidth(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	if s[i] == '-' {
		return 1
	}
	if s[i] == 0xE2 && i+2 < len(s) {
		if s[i+1] == 0x80 && s[i+2] >= 0x90 && s[i+2] <= 0x95 { // U+2010–U+2015
			return 3
		}
		if s[i+1] == 0x88 && s[i+2] == 0x92 { // U+2212 minus
			return 3
		}
	}
	return 0
}

// hyphenWidth returns the width of a word-joining hyphen at s[i]: '-',
// U+2010 or U+2011 (non-breaking hyphen).
func hyphenWidth(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	if s[i] == '-' {
		return 1
	}
	if s[i] == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0x90 || s[i+2] == 0x91) {
		return 3
	}
	return 0
}

// smallNum reads 1..max ASCII digits at i that are not followed by another
// digit.
func smallNum(s string, i, max int) (v, end int, ok bool) {
	j := i
	for j < len(s) && isDigit(s[j]) {
		if j-i == max {
			return 0, i, false
		}
		v = v*10 + int(s[j]-'0')
		j++
	}
	return v, j, j > i
}

// skipToken skips a run of letters, digits and inner separators.
func skipToken(s string, i int) int {
	j := i
	for j < len(s) {
		b := s[j]
		if isWordByte(b) {
			j++
			continue
		}
		if (b == '.' || b == ',') && j+1 < len(s) && isWordByte(s[j+1]) && j > i {
			j++
			continue
		}
		break
	}
	if j == i {
		j++
	}
	return j
}

// ---- main loop ----------------------------------------------------------

func (sc *scanner) run() {
	s := sc.s
	for i := 0; i < len(s); {
		b := s[i]
		if isLetter(b) {
			i = sc.letters(i)
			continue
		}
		if inert[b] {
			i++
			continue
		}
		switch {
		case isDigit(b):
			if !sc.numberStartOK(i) {
				i = skipToken(s, i)
				continue
			}
			i = sc.number(i, i, "", false)
		case b == '$':
			i = sc.symbol(i, 1, uUSD)
		case b == '-':
			i = sc.minus(i, 1)
		case b == '.':
			if i+1 < len(s) && isDigit(s[i+1]) && boundaryBefore(s, i) {
				i = sc.number(i, i, "", false)
				continue
			}
			i++
		case b == '~':
			sc.approxEnd = sc.skipSpaces(i + 1)
			i++
		case b < utf8.RuneSelf:
			i++
		default:
			i = sc.nonASCII(i)
		}
	}
}

// inert marks the ASCII bytes that run steps over without a look: all but
// letters, digits and '$', '-', '.', '~'. (Bytes from 0x80 up open a
// rune that nonASCII reads.)
var inert = func() (t [256]bool) {
	for b := range utf8.RuneSelf {
		t[b] = !isLetter(byte(b)) && !isDigit(byte(b)) && !strings.ContainsRune("$-.~", rune(b))
	}
	return t
}()

// stepsOver marks the bytes that run steps over without a look right
// after a word: the inert ones, and '.', which opens a number only after
// a boundary (".5"), never right after a letter.
var stepsOver = func() (t [256]bool) {
	t = inert
	t['.'] = true
	return t
}()

// letters reads the word at i and returns where scanning resumes. Most
// words of running text are no number word, currency code or marker: it
// settles those here, and goes on to the next word after a single space,
// or a punctuation mark that run would step over, without a trip through
// run; the other words go to word (or tableWord).
func (sc *scanner) letters(i int) int {
	s := sc.s
	if i > 0 {
		// boundaryBefore, with its ASCII case inline.
		if b := s[i-1]; b < utf8.RuneSelf {
			if isWordByte(b) {
				return letterEnd(s, i)
			}
		} else if !runeBoundaryBefore(s, i) {
			return letterEnd(s, i)
		}
	}
	if slowWords {
		return sc.word(i, letterEnd(s, i))
	}
	for {
		// letterEnd, inline, from the word's first byte: s[i] is a letter
		// on the first pass, but after a space it may not be, and the
		// first load tells (bit 7 of m) without a load of its own.
		// The first load also gives the first letter, for maybeTable,
		// and the word itself, for tableWord, if it is short.
		j := i
		var first byte
		var x uint64 // s[i:i+8], if there are eight bytes; else 0
		if j+8 <= len(s) {
			w := s[j : j+8]
			x = load64(w, 0)
			first = byte(x)
			if m := nonLetters(x); m != 0 {
				// n < 8 as m != 0; the mask tells the compiler so.
				n := bits.TrailingZeros64(m) >> 3 & 7
				j += n
				if n != 0 && w[n] == ' ' && j+1 < len(s) {
					// The common case: a word of fewer than eight
					// letters, a space and a byte after it, settled here
					// as below, with w[n] and w[n-1] read from w (no
					// bounds checks).
					if maybeTable(first, w[(n-1)&7], n) {
						r, done := sc.tableWord(i, j, x)
						if done {
							return r
						}
						i = r + 1
						continue
					}
					sc.prevStart, sc.prevEnd = i, j
					i = j + 1
					continue
				}
				goto end
			}
			j += 8
			for j+8 <= len(s) {
				if m := nonLetters(load64(s, j)); m != 0 {
					j += bits.TrailingZeros64(m) >> 3
					goto end
				}
				j += 8
			}
		} else if j < len(s) {
			first = s[j]
		}
		for j < len(s) && isLetter(s[j]) {
			j++
		}
	end:
		if j == i {
			// No word after the space: run would step over the space
			// and find the same byte here.
			return i
		}
		if j+1 >= len(s) || s[j] != ' ' {
			if j < len(s) && wordNeedsLook[s[j]] {
				return sc.word(i, j)
			}
			if maybeTable(first, s[j-1], j-i) {
				r, done := sc.tableWord(i, j, x)
				if done {
					return r
				}
			} else {
				sc.prevStart, sc.prevEnd = i, j
			}
			if j+1 < len(s) && stepsOver[s[j]] {
				// A punctuation mark, and a space if one follows, which
				// run would step over: on to the byte after them.
				i = j + 1
				if s[i] == ' ' && i+1 < len(s) {
					i++
				}
				continue
			}
			return j
		}
		// A space follows with a byte after it: on to that byte, which
		// has a boundary before it if it starts a word.
		if maybeTable(first, s[j-1], j-i) {
			r, done := sc.tableWord(i, j, x)
			if done {
				return r
			}
			i = r + 1
			continue
		}
		// What classedWord does with a plain word.
		sc.prevStart, sc.prevEnd = i, j
		i = j + 1
	}
}

// tableWord handles for letters the word s[i:j] that maybeTable lets
// through, and reports whether it is done with it: if not, it has taken
// the word as a plain word (as it does maybeTable's false positives), and
// letters goes on after j. x holds the eight bytes at i, or is 0 if the
// text ends before them. It returns where scanning resumes, j when it is
// not done (so that letters need not keep i and j across the call).
func (sc *scanner) tableWord(i, j int, x uint64) (int, bool) {
	var wi wordInfo
	short := x != 0 && j-i <= 8
	if short {
		e := probeShort(loadedKey(x, j-i))
		wi = wordInfo{e.cls, e.val}
	} else {
		wi = probeGeneral(sc.s[i:j])
	}
	switch wi.cls {
	case wAnd, wHundred, wScale, wDozen, wPer:
		// Nothing to do on their own: as a plain word.
	case wYearPrep:
		sc.prepEnd = j
	case wNone:
		if maybeCode(sc.s[i:j]) {
			return sc.classedWord(i, j, wi), true
		}
	case wA:
		if !short || !sc.plainArticle(j) {
			return sc.classedWord(i, j, wi), true
		}
	default:
		return sc.classedWord(i, j, wi), true
	}
	// What classedWord does with a plain word.
	sc.prevStart, sc.prevEnd = i, j
	return j, false
}

// slowWords makes letters hand every word to word, which reads it with
// lookupGeneral and classedWord: the way that the shortcuts of letters
// and tableWord (the plain words it settles, shortTable, plainArticle)
// must agree with. Tests set it.
var slowWords = false

// plainArticle reports whether the "a" or "an" that ends at j is a plain
// word for numberWord, as it is before most words: when a space and a word
// follow that is no magnitude, fraction or period word (a tail in
// shortTable). It reports false when it cannot tell cheaply, and then
// numberWord decides.
func (sc *scanner) plainArticle(j int) bool {
	s := sc.s
	p := j + 1
	if p+8 > len(s) || s[j] != ' ' {
		return false
	}
	x := load64(s, p)
	m := nonLetters(x)
	if m&0x80 != 0 {
		// No letter right after the space.
		return false
	}
	n := 8
	if m != 0 {
		n = bits.TrailingZeros64(m) >> 3
	} else if p+8 < len(s) && isLetter(s[p+8]) {
		// Nine letters or more: no tail is that long.
		return true
	}
	return !probeShort(loadedKey(x, n)).tail
}

// wordNeedsLook marks the bytes after a word that letters leaves to word:
// a letter or digit glued on (ASCII or not), and the '$' of "US$".
var wordNeedsLook = func() (t [256]bool) {
	for b := range t {
		t[b] = b >= utf8.RuneSelf || isWordByte(byte(b)) || b == '$'
	}
	return t
}()

func (sc *scanner) nonASCII(i int) int {
	s := sc.s
	r, w := utf8.DecodeRuneInString(s[i:])
	switch r {
	case '€':
		return sc.symbol(i, w, uEUR)
	case '£':
		return sc.symbol(i, w, uGBP)
	case '¥', '￥':
		return sc.symbol(i, w, uJPY)
	case '₹':
		return sc.symbol(i, w, uINR)
	case '−': // U+2212 minus sign
		return sc.minus(i, w)
	case '≈', '∼', '～':
		sc.approxEnd = sc.skipSpaces(i + w)
	}
	return i + w
}

// numberStartOK refuses digits glued to a preceding letter ("MP3", "H2O")
// and identifiers such as "COVID-19" or "F-16" (upper-case letters and a
// hyphen). Lower-case prefixes ("mid-1990s") are kept.
func (sc *scanner) numberStartOK(i int) bool {
	s := sc.s
	if !boundaryBefore(s, i) {
		// ISO 8601 "2020-01-02T15:04"
		return i >= 2 && s[i-1] == 'T' && isDigit(s[i-2])
	}
	if i >= 2 && s[i-1] == '-' && isUpper(s[i-2]) {
		for k := i - 2; k >= 0 && isLetter(s[k]); k-- {
			if !isUpper(s[k]) {
				return true
			}
		}
		return false
	}
	return true
}

// moneyDigits returns where the number after a currency sign starts, or -1.
func (sc *scanner) moneyDigits(k int) int {
	s := sc.s
	p := sc.skipSpaces(k)
	if p < len(s) && (isDigit(s[p]) || s[p] == '.' && p+1 < len(s) && isDigit(s[p+1])) {
		return p
	}
	return -1
}

func (sc *scanner) symbol(i, w int, cur string) int {
	if k := sc.moneyDigits(i + w); k >= 0 {
		return sc.number(i, k, cur, false)
	}
	return i + w
}

func (sc *scanner) minus(i, w int) int {
	s := sc.s
	if i+w < len(s) && isDigit(s[i+w]) && boundaryBefore(s, i) {
		return sc.number(i, i+w, "", true)
	}
	return i + w
}

// number parses the digits at i; start is the start of the match.
func (sc *scanner) number(start, i int, cur string, neg bool) int {
	s := sc.s
	c := core{start: start, cur: cur, neg: neg, mul: 1, exact: true}
	j := i
	for j < len(s) && isDigit(s[j]) {
		c.addDigit(s[j])
		c.ndig++
		j++
	}
	if c.ndig >= 1 && c.ndig <= 3 {
		for j+3 < len(s) && s[j] == ',' && isDigit(s[j+1]) && isDigit(s[j+2]) && isDigit(s[j+3]) &&
			(j+4 == len(s) || !isDigit(s[j+4])) {
			c.addDigit(s[j+1])
			c.addDigit(s[j+2])
			c.addDigit(s[j+3])
			c.ndig += 3
			c.commas = true
			j += 4
		}
	}
	if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
		j++
		for j < len(s) && isDigit(s[j]) {
			c.addDigit(s[j])
			c.frac++
			j++
		}
	}
	if j == i {
		return i + 1
	}
	if c.frac == 0 && j < len(s) && s[j] >= 0xC2 {
		// "2½ years"
		if f, w := vulgarFrac(s, j); w > 0 {
			c.addFrac(f)
			j += w
		}
	}
	c.end = j
	if andAhead(s, j) {
		sc.andHalf(&c)
	}
	return sc.finish(&c)
}

// ---- words --------------------------------------------------------------

func (sc *scanner) word(i, j int) int {
	s := sc.s
	w := s[i:j]
	if !boundaryAfter(s, j) {
		// Glued to digits or non-ASCII letters: not a word we know.
		sc.prevStart, sc.prevEnd = 0, 0
		return skipToken(s, i)
	}
	if j < len(s) && s[j] == '$' {
		if cur := dollarPrefix(w); cur != "" {
			if k := sc.moneyDigits(j + 1); k >= 0 {
				return sc.number(i, k, cur, false)
			}
		}
	}
	return sc.classedWord(i, j, lookupGeneral(w))
}

// classedWord acts on the word s[i:j] of class wi, which is not glued to
// what follows and not before a '$', and returns where scanning resumes.
func (sc *scanner) classedWord(i, j int, wi wordInfo) int {
	w := sc.s[i:j]
	switch wi.cls {
	case wNone:
		if len(w) >= 2 && len(w) <= 3 && isUpper(w[0]) {
			if r, ok := sc.codeMoney(i, j, w); ok {
				return r
			}
		}
	case wNum, wOrd, wA, wHalf, wMonth:
		if r, ok := sc.numberWord(i, j, wi); ok {
			sc.prevStart, sc.prevEnd = 0, 0
			return r
		}
	case wYearPrep:
		sc.prepEnd = j
	case wNoon, wMidnight, wApprox, wApproxLead:
		sc.markerWord(i, j, w, wi)
	}
	sc.prevStart, sc.prevEnd = i, j
	return j
}

// codeMoney reads an amount after a currency code, the word s[i:j] of two
// or three letters ("USD 5", "EUR. 20"), and returns where it ends.
func (sc *scanner) codeMoney(i, j int, w string) (int, bool) {
	s := sc.s
	k := j
	if k < len(s) && s[k] == '.' {
		k++
	}
	if cur := codePrefix(w); cur != "" {
		if p := sc.moneyDigits(k); p > j {
			return sc.number(i, p, cur, false), true
		}
	}
	return 0, false
}

// numberWord reads the quantity the word s[i:j] opens: a spelled-out
// number ("twenty-one", "a hundred"), an article that counts ("a week"),
// a half, or a date that starts with a month. It returns where the
// quantity ends.
func (sc *scanner) numberWord(i, j int, wi wordInfo) (int, bool) {
	s := sc.s
	switch wi.cls {
	case wNum, wOrd:
		return sc.spelled(i, j, wi), true
	case wA:
		p := sc.skipSpaces(j)
		if p > j && p < len(s) && isLetter(s[p]) {
			e := letterEnd(s, p)
			if boundaryAfter(s, e) {
				switch lookupGeneral(s[p:e]).cls {
				case wHundred, wScale, wDozen:
					return sc.spelled(i, j, wi), true
				}
				return sc.article(i, j, p, e)
			}
		}
	case wHalf:
		return sc.half(i, j)
	case wMonth:
		return sc.monthDate(i, j, int(wi.val))
	}
	return 0, false
}

// markerWord handles a word that is no number but marks one: noon and
// midnight (emitted as times), and the words after which a number is
// approximate ("about", "c.", "more than").
func (sc *scanner) markerWord(i, j int, w string, wi wordInfo) {
	s := sc.s
	switch wi.cls {
	case wNoon:
		sc.emit(Quantity{Kind: Time, Value: 720, Start: i, End: j}, info{mag: 1})
	case wMidnight:
		sc.emit(Quantity{Kind: Time, Value: 0, Start: i, End: j}, info{mag: 1})
	case wApprox:
		switch {
		case wi.val == 1: // "c." / "ca." need their period
			if j < len(s) && s[j] == '.' {
				sc.approxEnd = sc.skipSpaces(j + 1)
			}
		case j < len(s) && s[j] == '.' && eqFold(w, "approx"):
			sc.approxEnd = sc.skipSpaces(j + 1)
		default:
			sc.approxEnd = sc.skipSpaces(j)
		}
	case wApproxLead:
		p := sc.skipSpaces(j)
		if p > j {
			e := letterEnd(s, p)
			t := s[p:e]
			if eqFold(t, "than") || eqFold(t, "least") || eqFold(t, "most") ||
				eqFold(t, "to") || eqFold(t, "of") {
				sc.approxEnd = sc.skipSpaces(e)
			}
		}
	}
}

// prevClass returns the class of the word just before i (separated from it
// by spaces only), or wNone.
func (sc *scanner) prevClass(i int) wclass {
	return lookupGeneral(sc.prevWordAt(i)).cls
}

const (
	lkUnit = iota + 1
	lkTeen
	lkTens
	lkHundred
	lkScale
	lkA
	lkDozen
)

func numClass(v int32) int {
	switch {
	case v < 10:
		return lkUnit
	case v < 20:
		return lkTeen
	}
	return lkTens
}

// parseSpelled reads a spelled-out number whose first word s[i:j] is
// first, without emitting anything. It returns the value, where the number
// ends, how many words it took, whether it is an ordinal and the class of
// its last word (lkA for a lone "a").
func (sc *scanner) parseSpelled(i, j int, first wordInfo) (value float64, end, nwords int, ord bool, last int) {
	n := spelledSum{lastScale: 100}
	switch first.cls {
	case wNum:
		n.cur = float64(first.val)
		n.last = numClass(first.val)
	case wOrd:
		n.cur = float64(first.val)
		ord = true
	default: // "a" before hundred/thousand/dozen
		n.cur = 1
		n.last = lkA
	}
	end, nwords = j, 1
	for !ord && n.last != lkDozen {
		wi, e, ok := sc.nextNumberWord(end, n.last)
		if !ok || !n.add(wi) {
			break
		}
		if wi.cls == wOrd {
			ord = true
		}
		end = e
		nwords++
	}
	return n.total + n.cur, end, nwords, ord, n.last
}

// nextNumberWord reads the word after a spelled-out number that ends at
// end (after a space or a hyphen), its last word of class last. An "and"
// is read through to the number below 100 that follows it ("two hundred
// and five"), after a hundred or a scale word only. It returns the word
// and where it ends.
func (sc *scanner) nextNumberWord(end, last int) (wordInfo, int, bool) {
	s := sc.s
	p := end
	hy := false
	if hw := hyphenWidth(s, end); hw > 0 {
		p += hw
		hy = true
	} else if p = sc.skipSpaces(end); p == end {
		return wordInfo{}, 0, false
	}
	if p >= len(s) || !isLetter(s[p]) {
		return wordInfo{}, 0, false
	}
	e := letterEnd(s, p)
	if !boundaryAfter(s, e) {
		return wordInfo{}, 0, false
	}
	wi := lookupGeneral(s[p:e])
	if wi.cls != wAnd || hy {
		return wi, e, true
	}
	if last != lkHundred && last != lkScale {
		return wordInfo{}, 0, false
	}
	p2 := sc.skipSpaces(e)
	if p2 == e || p2 >= len(s) || !isLetter(s[p2]) {
		return wordInfo{}, 0, false
	}
	e2 := letterEnd(s, p2)
	if !boundaryAfter(s, e2) {
		return wordInfo{}, 0, false
	}
	wi2 := lookupGeneral(s[p2:e2])
	if (wi2.cls != wNum && wi2.cls != wOrd) || wi2.val < 1 || wi2.val >= 100 {
		return wordInfo{}, 0, false
	}
	return wi2, e2, true
}

// spelledSum is the value of a spelled-out number as its words are read:
// the total of its completed scale groups, the current group, the class of
// its last word, and the last scale (a scale must be smaller than the one
// before: "two million three thousand").
type spelledSum struct {
	total, cur float64
	last       int
	lastScale  int
}

// add reads one more word into n, or reports that it does not continue
// the number.
func (n *spelledSum) add(wi wordInfo) bool {
	v := float64(wi.val)
	switch wi.cls {
	case wNum, wOrd:
		if wi.val >= 100 { // hundredth, thousandth, millionth
			if n.last != lkUnit && n.last != lkTeen && n.last != lkTens && n.last != lkA {
				return false
			}
			if wi.val == 100 {
				n.cur *= 100
			} else {
				n.total = (n.total + n.cur) * v
				n.cur = 0
			}
			return true
		}
		if wi.val == 0 {
			return false
		}
		k := numClass(wi.val)
		ok := n.last == lkHundred || n.last == lkScale
		if k == lkUnit {
			ok = ok || n.last == lkTens
		}
		if ok {
			n.cur += v
			n.last = k
		}
		return ok
	case wHundred:
		if (n.last == lkUnit || n.last == lkTeen || n.last == lkA) && n.cur < 20 {
			n.cur *= 100
			n.last = lkHundred
			return true
		}
	case wScale:
		if n.last != lkScale && n.cur > 0 && int(wi.val) < n.lastScale {
			n.total += n.cur * pow10(int(wi.val))
			n.cur = 0
			n.last = lkScale
			n.lastScale = int(wi.val)
			return true
		}
	case wDozen:
		if (n.last == lkUnit || n.last == lkTeen || n.last == lkA) && n.cur < 20 {
			n.cur *= 12
			n.last = lkDozen
			return true
		}
	}
	return false
}

// spelled parses a spelled-out number whose first word s[i:j] is first.
func (sc *scanner) spelled(i, j int, first wordInfo) int {
	s := sc.s
	value, end, nwords, ord, last := sc.parseSpelled(i, j, first)
	if last == lkA && nwords == 1 {
		return j
	}
	if !ord && nwords == 1 && first.cls == wNum && first.val >= 1 && first.val < 20 {
		// "one-third", "two thirds", "three-quarters", "three quarters of
		// an hour"
		if t, e := sc.nextWord(end); t != "" {
			if d := fractionDenom(t); d > 0 && (d > 2 || first.val == 1 && hyphenWidth(s, end) > 0) {
				f := value / float64(d)
				if r, ok, _ := sc.fracTail(i, e, f, halfOrQuarter(t)); ok {
					return r
				}
				sc.emitShare(i, e, f)
				return e
			}
		}
	}
	if ord {
		if nwords == 1 {
			pc := sc.prevClass(i)
			// "a second", "per second" are durations; "at first" is an idiom.
			if first.val == 2 && (pc == wA || pc == wPer) ||
				first.val == 1 && eqFold(sc.s[sc.prevStart:sc.prevEnd], "at") && pc != wNone {
				return end
			}
			// "seconds" etc. are not ordinals; "second" before a number
			// ("the second 10 km") is still one.
		}
		sc.emit(Quantity{Kind: Ordinal, Value: value, Start: i, End: end}, info{mag: 1})
		return end
	}
	c := core{start: i, end: end, exact: true, words: true, mul: 1,
		weak: nwords == 1 && first.cls == wNum && first.val == 1}
	if value < 1e17 {
		c.mant = uint64(value)
	} else {
		c.exact = false
		c.fv = value
	}
	if andAhead(s, end) {
		sc.andHalf(&c)
	}
	return sc.finish(&c)
}

// monthCaseOK refuses lower-case "may", "mar" and "march", which are
// usually verbs.
func monthCaseOK(s string, i, j int) bool {
	if isUpper(s[i]) {
		return true
	}
	w := s[i:j]
	return !(eqFold(w, "may") || eqFold(w, "mar") || eqFold(w, "march"))
}

// monthAt returns the month named by the word at p and the end of the word
// (including an abbreviation's period), or 0.
func (sc *scanner) monthAt(p int) (int, int) {
	s := sc.s
	if p >= len(s) || !isLetter(s[p]) || !boundaryBefore(s, p) {
		return 0, p
	}
	e := letterEnd(s, p)
	if !boundaryAfter(s, e) {
		return 0, p
	}
	wi := lookupGeneral(s[p:e])
	if wi.cls != wMonth || !monthCaseOK(s, p, e) {
		return 0, p
	}
	if e < len(s) && s[e] == '.' && e-p <= 4 {
		e++
	}
	return int(wi.val), e
}

// yearAfter reads an optional ", 1935" / " 1935" after a day and month.
func (sc *scanner) yearAfter(end int) (int, int) {
	s := sc.s
	q := end
	if q < len(s) && s[q] == ',' {
		q++
	}
	q2 := sc.skipSpaces(q)
	if q2 == end || q2 >= len(s) || !isDigit(s[q2]) {
		return 0, end
	}
	y, k, ok := smallNum(s, q2, 4)
	if !ok || k-q2 != 4 || !boundaryAfterNum(s, k) {
		return 0, end
	}
	return y, k
}

// monthDate parses "June 17", "June 17th, 1935", "June 1935", "June of 1935"
// after the month word s[i:j].
func (sc *scanner) monthDate(i, j, mo int) (int, bool) {
	s := sc.s
	if !monthCaseOK(s, i, j) {
		return 0, false
	}
	e := j
	if e < len(s) && s[e] == '.' && j-i <= 4 {
		e++
	}
	p := sc.skipSpaces(e)
	if p == e || p >= len(s) {
		return 0, false
	}
	if isLetter(s[p]) {
		e2 := letterEnd(s, p)
		if !eqFold(s[p:e2], "of") {
			return 0, false
		}
		p2 := sc.skipSpaces(e2)
		y, k, ok := smallNum(s, p2, 4)
		if p2 == e2 || !ok || k-p2 != 4 || !boundaryAfterNum(s, k) {
			return 0, false
		}
		sc.emit(Quantity{Kind: Date, Year: y, Month: mo, Start: i, End: k}, info{mag: 1})
		return k, true
	}
	if !isDigit(s[p]) {
		return 0, false
	}
	v, k, ok := smallNum(s, p, 4)
	if !ok {
		return 0, false
	}
	switch nd := k - p; {
	case nd <= 2 && v >= 1 && v <= 31:
		end := k
		if k+1 < len(s) && isOrdSuffix(s[k], s[k+1]) && boundaryAfter(s, k+2) {
			end = k + 2
		} else if !boundaryAfterNum(s, k) {
			return 0, false
		}
		// "June 17–18, 1935": both days share the month and the year.
		if dw := dashWidth(s, end); dw > 0 {
			if d2, k2, ok := smallNum(s, end+dw, 2); ok && d2 >= 1 && d2 <= 31 && boundaryAfterNum(s, k2) {
				y, yend := sc.yearAfter(k2)
				sc.emit(Quantity{Kind: Date, Year: y, Month: mo, Day: v, Start: i, End: end}, info{mag: 1})
				sc.emit(Quantity{Kind: Date, Year: y, Month: mo, Day: d2, Start: end + dw, End: yend}, info{mag: 1})
				return yend, true
			}
		}
		y, end := sc.yearAfter(end)
		sc.emit(Quantity{Kind: Date, Year: y, Month: mo, Day: v, Start: i, End: end}, info{mag: 1})
		return end, true
	case nd == 4 && boundaryAfterNum(s, k):
		sc.emit(Quantity{Kind: Date, Year: v, Month: mo, Start: i, End: k}, info{mag: 1})
		return k, true
	}
	return 0, false
}

// dayMonth parses " June [1935]" or " of June [1935]" after a day number
// that ends at k.
func (sc *scanner) dayMonth(start, day, k int) (int, bool) {
	s := sc.s
	p := sc.skipSpaces(k)
	if p == k || p >= len(s) || !isLetter(s[p]) {
		return 0, false
	}
	e := letterEnd(s, p)
	if eqFold(s[p:e], "of") {
		p = sc.skipSpaces(e)
		if p == e {
			return 0, false
		}
	}
	mo, end := sc.monthAt(p)
	if mo == 0 {
		return 0, false
	}
	y, end := sc.yearAfter(end)
	sc.emit(Quantity{Kind: Date, Year: y, Month: mo, Day: day, Start: start, End: end}, info{mag: 1})
	return end, true
}

func isOrdSuffix(a, b byte) bool {
	a, b = lower(a), lower(b)
	return a == 's' && b == 't' || a == 'n' && b == 'd' || a == 'r' && b == 'd' || a == 't' && b == 'h'
}

// meridian reads "am", "pm", "a.m.", "p.m." at k or after spaces.
func (sc *scanner) meridian(k int) (int8, int) {
	s := sc.s
	p := sc.skipSpaces(k)
	if p+1 >= len(s) || !boundaryBefore(s, p) && p != k {
		return 0, k
	}
	a := lower(s[p])
	var m int8
	switch a {
	case 'a':
		m = 1
	case 'p':
		m = 2
	default:
		return 0, k
	}
	if lower(s[p+1]) == 'm' && boundaryAfter(s, p+2) {
		return m, p + 2
	}
	if s[p+1] == '.' && p+2 < len(s) && lower(s[p+2]) == 'm' && (p+3 >= len(s) || !isWordByte(s[p+3])) {
		e := p + 3
		if e < len(s) && s[e] == '.' {
			e++
		}
		return m, e
	}
	return 0, k
}

// ---- suffixes -----------------------------------------------------------

// digitForms handles the shapes that only written digits take: numeric
// dates, clock times, version numbers, feet and inches, decades and ordinal
// suffixes. It reports false when none applies.
func (sc *scanner) digitForms(c *core) (int, bool) {
	s := sc.s
	j := c.end
	if j >= len(s) {
		return 0, false
	}
	// Dotted runs: "17.06.1935" or a version number "1.2.3".
	if c.frac > 0 && s[j] == '.' && j+1 < len(s) && isDigit(s[j+1]) {
		return sc.dottedRun(c), true
	}
	simple := c.exact && !c.commas && !c.neg && c.cur == ""
	if !simple {
		if c.isInt() && !c.neg && c.cur == "" && j+1 < len(s) && isOrdSuffix(s[j], s[j+1]) && boundaryAfter(s, j+2) {
			sc.emit(Quantity{Kind: Ordinal, Value: c.value(), Start: c.start, End: j + 2}, info{mag: 1})
			return j + 2, true
		}
		return 0, false
	}
	if c.frac == 2 && c.ndig >= 1 && c.ndig <= 2 {
		if r, ok := sc.decimalClock(c); ok {
			return r, true
		}
	}
	if c.frac != 0 || c.ndig > 4 {
		return 0, false
	}
	v := int(c.mant)
	switch b := s[j]; {
	case b == '-' || b == '/':
		if r, ok := sc.numericDate(c, v, b); ok {
			return r, true
		}
	case b == ':':
		if r, ok := sc.clock(c, v); ok {
			return r, true
		}
	case b == 's' || b == '\'' || b == 0xE2:
		if r, ok := sc.decade(c, v); ok {
			return r, true
		}
	}
	// feet and inches: 5'11", 5′11″
	if c.ndig == 1 {
		if r, ok := sc.feetInches(c, v); ok {
			return r, true
		}
	}
	// ordinal suffix: 1st, 22nd, 17th (and "17th June")
	if j+1 < len(s) && isOrdSuffix(s[j], s[j+1]) && boundaryAfter(s, j+2) {
		return sc.ordinalSuffix(c, v), true
	}
	return 0, false
}

// dottedRun reads a run of digits and dots after c: a date "17.06.1935",
// which it emits, or a version number "1.2.3", which it skips. It returns
// where the run ends.
func (sc *scanner) dottedRun(c *core) int {
	s := sc.s
	j := c.end
	if c.exact && c.frac <= 2 && c.ndig >= 1 && c.ndig <= 2 && !c.commas && !c.neg && c.cur == "" {
		p := pow10tab[c.frac]
		day, mo := int(float64(c.mant)/p), int(c.mant%uint64(p))
		y, k, ok := smallNum(s, j+1, 4)
		if ok && k-(j+1) == 4 && mo >= 1 && mo <= 12 && day >= 1 && day <= 31 && boundaryAfterNum(s, k) {
			sc.emit(Quantity{Kind: Date, Year: y, Month: mo, Day: day, Start: c.start, End: k}, info{mag: 1})
			return k
		}
	}
	k := j
	for k < len(s) && (isDigit(s[k]) || s[k] == '.' && k+1 < len(s) && isDigit(s[k+1])) {
		k++
	}
	return k
}

// decimalClock reads a time written with a decimal point and am or pm
// ("3.30 pm"), c being a number of one or two digits and two decimals, and
// emits it.
func (sc *scanner) decimalClock(c *core) (int, bool) {
	h, mm := int(c.mant/100), int(c.mant%100)
	m, e := sc.meridian(c.end)
	if m == 0 || h < 1 || h > 12 || mm >= 60 {
		return 0, false
	}
	h %= 12
	if m == 2 {
		h += 12
	}
	sc.emit(Quantity{Kind: Time, Value: float64(h*60 + mm), Start: c.start, End: e}, info{mag: 1, mer: m})
	return e, true
}

// decade reads a decade ("1990s", "1990's", "1990’s") after the integer v
// of c and emits it as a hedged year. A plural that names no decade ("90s",
// "747s") is skipped.
func (sc *scanner) decade(c *core, v int) (int, bool) {
	s := sc.s
	j := c.end
	b := s[j]
	e := 0
	if b == 's' && boundaryAfter(s, j+1) {
		e = j + 1
	} else if b == '\'' && j+1 < len(s) && s[j+1] == 's' && boundaryAfter(s, j+2) {
		e = j + 2
	} else if b == 0xE2 && j+3 < len(s) && s[j+1] == 0x80 && s[j+2] == 0x99 && s[j+3] == 's' && boundaryAfter(s, j+4) {
		e = j + 4
	}
	if e > 0 && c.ndig == 4 && v%10 == 0 && v >= 1000 && v <= 2100 {
		sc.emit(Quantity{Kind: Year, Value: float64(v), Year: v, Start: c.start, End: e, Hedged: true}, info{mag: 1})
		return e, true
	}
	if b == 's' && e > 0 { // "90s", "747s": not a quantity we can pin down
		return e, true
	}
	return 0, false
}

// ordinalSuffix reads the ordinal suffix after the integer v of c ("1st",
// "22nd", "17th"), and the month after a day ("17th June"), emits the
// quantity and returns where it ends.
func (sc *scanner) ordinalSuffix(c *core, v int) int {
	e := c.end + 2
	if c.ndig <= 2 && v >= 1 && v <= 31 {
		if r, ok := sc.dayMonth(c.start, v, e); ok {
			return r
		}
	}
	sc.emit(Quantity{Kind: Ordinal, Value: float64(v), Start: c.start, End: e}, info{mag: 1})
	return e
}

// numericDate parses 1935-06-17, 1935/06/17, 06/17/1935 and 17/06/1935.
// Two-digit parts are read month first (US order) unless the first part
// cannot be a month.
func (sc *scanner) numericDate(c *core, v int, sep byte) (int, bool) {
	s := sc.s
	j := c.end
	a, k, ok := smallNum(s, j+1, 2)
	if !ok || k >= len(s) || s[k] != sep {
		return 0, false
	}
	var y, m, d, end int
	switch c.ndig {
	case 4:
		b, k2, ok := smallNum(s, k+1, 2)
		if !ok {
			return 0, false
		}
		y, m, d, end = v, a, b, k2
	case 1, 2:
		yy, k2, ok := smallNum(s, k+1, 4)
		if !ok || k2-(k+1) != 4 {
			return 0, false
		}
		y, m, d, end = yy, v, a, k2
		if m > 12 && d <= 12 {
			m, d = d, m
		}
	default:
		return 0, false
	}
	if m < 1 || m > 12 || d < 1 || d > 31 || !boundaryAfterNum(s, end) && !(end < len(s) && s[end] == 'T') {
		return 0, false
	}
	sc.emit(Quantity{Kind: Date, Year: y, Month: m, Day: d, Start: c.start, End: end}, info{mag: 1})
	return end, true
}

// clock parses "15:00", "3:30", "3:30:15", "3:30 pm".
func (sc *scanner) clock(c *core, h int) (int, bool) {
	s := sc.s
	j := c.end
	if c.ndig > 2 || h > 24 {
		return 0, false
	}
	mm, k, ok := smallNum(s, j+1, 2)
	if !ok || k-(j+1) != 2 || mm > 59 {
		return 0, false
	}
	if k+2 < len(s) && s[k] == ':' && isDigit(s[k+1]) && isDigit(s[k+2]) && (k+3 >= len(s) || !isDigit(s[k+3])) {
		k += 3
	}
	if !boundaryAfterNum(s, k) && !(k < len(s) && (lower(s[k]) == 'a' || lower(s[k]) == 'p')) {
		return 0, false
	}
	m, e := sc.meridian(k)
	if m != 0 && h >= 1 && h <= 12 {
		h %= 12
		if m == 2 {
			h += 12
		}
		k = e
	} else {
		m = 0
	}
	sc.emit(Quantity{Kind: Time, Value: float64(h*60 + mm), Start: c.start, End: k}, info{mag: 1, mer: m})
	return k, true
}

// apostropheAt returns the width of a foot mark at i: ' ′ ’.
func apostropheAt(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	if s[i] == '\'' {
		return 1
	}
	if s[i] == 0xE2 && i+2 < len(s) && (s[i+1] == 0x80 && (s[i+2] == 0xB2 || s[i+2] == 0x99)) {
		return 3
	}
	return 0
}

// inchMarkAt returns the width of an inch mark at i: " ″ ”.
func inchMarkAt(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	if s[i] == '"' {
		return 1
	}
	if s[i] == 0xE2 && i+2 < len(s) && (s[i+1] == 0x80 && (s[i+2] == 0xB3 || s[i+2] == 0x9D)) {
		return 3
	}
	return 0
}

// feetInches parses 5'11" (also with ′ ″ and curly quotes) into feet.
func (sc *scanner) feetInches(c *core, ft int) (int, bool) {
	s := sc.s
	w := apostropheAt(s, c.end)
	if w == 0 {
		return 0, false
	}
	in, k, ok := smallNum(s, c.end+w, 2)
	if !ok || in >= 12 {
		return 0, false
	}
	w2 := inchMarkAt(s, k)
	if w2 == 0 {
		return 0, false
	}
	sc.emit(Quantity{Kind: Measure, Value: float64(ft) + float64(in)/12, Unit: uFoot,
		Start: c.start, End: k + w2}, info{mag: 1})
	return k + w2, true
}

// inchesAfter reads " 11 in", " 11 inches" or " 11\"" after "5 ft".
func (sc *scanner) inchesAfter(pos int) (float64, int, bool) {
	s := sc.s
	p := sc.skipSpaces(pos)
	if p == pos {
		return 0, pos, false
	}
	in, k, ok := smallNum(s, p, 2)
	if !ok || in >= 12 {
		return 0, pos, false
	}
	if w := inchMarkAt(s, k); w > 0 {
		return float64(in), k + w, true
	}
	p2 := sc.skipSpaces(k)
	e := letterEnd(s, p2)
	if e == p2 || !boundaryAfter(s, e) {
		return 0, pos, false
	}
	t := s[p2:e]
	if eqFold(t, "inch") || eqFold(t, "inches") {
		return float64(in), e, true
	}
	if eqFold(t, "in") {
		// "in" alone is a preposition unless nothing word-like follows.
		n := sc.skipSpaces(e)
		if n >= len(s) || e < len(s) && s[e] == '.' || !isLetter(s[n]) && !isDigit(s[n]) {
			return float64(in), e, true
		}
	}
	return 0, pos, false
}

// unitGap returns where a unit word starts after pos: directly after a
// hyphen ("1.5-hour") or after spaces ("20 hours"); -1 if no word follows.
func (sc *scanner) unitGap(pos int) int {
	s := sc.s
	if hw := hyphenWidth(s, pos); hw > 0 {
		p := pos + hw
		if p < len(s) && isLetter(s[p]) {
			return p
		}
		return -1
	}
	p := sc.skipSpaces(pos)
	if p == pos || p >= len(s) || !isLetter(s[p]) {
		return -1
	}
	return p
}

// nextWord returns the next word after spaces (or a hyphen) following pos.
func (sc *scanner) nextWord(pos int) (string, int) {
	p := sc.unitGap(pos)
	if p < 0 {
		return "", pos
	}
	e := letterEnd(sc.s, p)
	if !boundaryAfter(sc.s, e) {
		return "", pos
	}
	return sc.s[p:e], e
}

// countOrMoneyNext reports whether the word after pos makes a preceding
// "m"/"B" a magnitude: "5m people", "2B dollars".
func (sc *scanner) countOrMoneyNext(pos int) bool {
	w, _ := sc.nextWord(pos)
	if w == "" {
		return false
	}
	switch lookupSuffix(w).cls {
	case sCount, sCountOne, sCurrency, sPound, sUS:
		return true
	}
	return false
}

// weightContext reports a weighing word ("weighs", "weight", "heavy")
// earlier in the same sentence, within 80 bytes before start.
func (sc *scanner) weightContext(start int) bool {
	s := sc.s
	lo := start - 80
	if lo < 0 {
		lo = 0
	}
	for k := start - 1; k >= lo; k-- {
		b := lower(s[k])
		switch b {
		case '!', '?', '\n', ';':
			return false
		case '.':
			if k+1 < len(s) && !isDigit(s[k+1]) {
				return false
			}
		case 'w':
			if k+5 <= len(s) && eqFold(s[k:k+5], "weigh") {
				return true
			}
		case 'h':
			if k+4 <= len(s) && eqFold(s[k:k+4], "heav") {
				return true
			}
		}
	}
	return false
}

// unitTail extends a unit: area ("km2", "km²", handled by the caller for
// "square"), speed ("km/h", "miles per hour", "m/s"), temperature
// ("degrees Celsius") and feet-and-inches ("5 ft 11 in").
func (sc *scanner) unitTail(c *core, unit string, pos int, degree bool) (string, int) {
	s := sc.s
	if a := areaOf(unit); a != "" && pos < len(s) {
		if s[pos] == '2' && boundaryAfter(s, pos+1) {
			return a, pos + 1
		}
		if s[pos] == 0xC2 && pos+1 < len(s) && s[pos+1] == 0xB2 {
			return a, pos + 2
		}
	}
	if pos+1 < len(s) && s[pos] == '/' {
		e := letterEnd(s, pos+1)
		t := s[pos+1 : e]
		if boundaryAfter(s, e) {
			switch {
			case unit == uKm && (t == "h" || t == "hr"):
				return uKmh, e
			case unit == uMile && (t == "h" || t == "hr"):
				return uMph, e
			case unit == uM && t == "s":
				return uMps, e
			}
		}
	}
	if unit == uKm || unit == uMile || unit == uM {
		if t, e := sc.nextWord(pos); eqFold(t, "per") {
			if t2, e2 := sc.nextWord(e); t2 != "" {
				switch {
				case unit == uKm && (eqFold(t2, "hour") || t2 == "h"):
					return uKmh, e2
				case unit == uMile && (eqFold(t2, "hour") || t2 == "h"):
					return uMph, e2
				case unit == uM && (eqFold(t2, "second") || t2 == "s"):
					return uMps, e2
				}
			}
		}
	}
	if degree {
		if t, e := sc.nextWord(pos); t != "" {
			switch {
			case t == "C" || eqFold(t, "celsius") || eqFold(t, "centigrade"):
				return uCelsius, e
			case t == "F" || eqFold(t, "fahrenheit"):
				return uFahrenheit, e
			case t == "K" || eqFold(t, "kelvin"):
				return uKelvin, e
			}
		}
	}
	if unit == uFoot && c.isInt() && !c.words {
		if in, e, ok := sc.inchesAfter(pos); ok {
			c.extra = in / 12
			return uFoot, e
		}
	}
	return unit, pos
}

// finish reads what follows a number (unit, currency, percent sign, am/pm,
// month, magnitude word) and emits the quantity. It returns where scanning
// resumes.
func (sc *scanner) finish(c *core) int {
	if !c.words {
		if r, ok := sc.digitForms(c); ok {
			return r
		}
	}
	pos := c.end
	// "3 pm", "3pm", "three p.m."
	if v, ok := c.small(); ok && v >= 1 && v <= 12 && !c.neg && c.cur == "" && !c.commas && c.ndig <= 2 {
		if e, ok := sc.clockTime(c, v, pos); ok {
			return e
		}
	}
	x := suffix{pos: pos}
	if pos < len(sc.s) && sc.s[pos] == '+' && !c.words && boundaryAfter(sc.s, pos+1) {
		x.plus = true
		x.pos++
	}
	if p := sc.skipSpaces(x.pos); p < len(sc.s) && (sc.s[p] == '%' || sc.s[p] == '$' || sc.s[p] == 0xC2 || sc.s[p] == 0xE2) {
		x.kind, x.unit, x.pos = sc.symbolAfter(c, x.pos, p)
	}
	x.scaled = c.exp != 0
	for step := 0; x.kind == 0 && step < 4; step++ {
		out, r := sc.suffixStep(c, &x, step)
		if out == stepDone {
			return r
		}
		if out == stepStop {
			break
		}
	}
	return sc.emitNumber(c, &x)
}

// suffix is what finish has read after a number so far.
type suffix struct {
	kind   Kind
	unit   string
	pos    int  // where the quantity ends so far
	plus   bool // a "+" follows the number ("5+"): the quantity is hedged
	scaled bool // a magnitude applies (an exponent or a scale word)
}

// stepOutcome is what one word after a number does to the quantity.
type stepOutcome int

const (
	stepNext stepOutcome = iota // read on, unless the kind is now known
	stepStop                    // the quantity ends before the word
	stepDone                    // the quantity was emitted (or skipped): resume where returned
)

// clockTime reads the am or pm at pos after hour v, emits the time and
// returns where it ends.
func (sc *scanner) clockTime(c *core, v, pos int) (int, bool) {
	m, e := sc.meridian(pos)
	if m == 0 {
		return 0, false
	}
	h := v % 12
	if m == 2 {
		h += 12
	}
	sc.emit(Quantity{Kind: Time, Value: float64(h * 60), Start: c.start, End: e}, info{mag: 1, mer: m})
	return e, true
}

// symbolAfter reads a sign at p, after the number that ends at pos and
// spaces: a percent sign, a degree sign (with its scale), ℃ or ℉, or a
// trailing currency sign ("5 €", unless it starts the next amount). It
// returns the kind and unit it gives (0 and "" for none) and where the
// quantity then ends.
func (sc *scanner) symbolAfter(c *core, pos, p int) (Kind, string, int) {
	s := sc.s
	switch b := s[p]; {
	case b == '%':
		return Percent, uPercent, p + 1
	case b == 0xC2 && p+1 < len(s) && (s[p+1] == 0xB0 || s[p+1] == 0xBA): // ° º
		unit, pos := uDegree, p+2
		q := sc.skipSpaces(pos)
		if q < len(s) && boundaryAfter(s, q+1) {
			switch s[q] {
			case 'C', 'c':
				unit, pos = uCelsius, q+1
			case 'F', 'f':
				unit, pos = uFahrenheit, q+1
			case 'K':
				unit, pos = uKelvin, q+1
			}
		}
		return Measure, unit, pos
	case b == 0xE2 && p+2 < len(s) && s[p+1] == 0x84 && s[p+2] == 0x83: // ℃
		return Measure, uCelsius, p + 3
	case b == 0xE2 && p+2 < len(s) && s[p+1] == 0x84 && s[p+2] == 0x89: // ℉
		return Measure, uFahrenheit, p + 3
	case c.cur == "" && (b == '$' || b == 0xE2 || b == 0xC2):
		var cur string
		w := 1
		switch {
		case b == '$':
			cur = uUSD
		case b == 0xE2 && p+2 < len(s) && s[p+1] == 0x82 && s[p+2] == 0xAC:
			cur, w = uEUR, 3
		case b == 0xC2 && p+1 < len(s) && s[p+1] == 0xA3:
			cur, w = uGBP, 2
		case b == 0xC2 && p+1 < len(s) && s[p+1] == 0xA5:
			cur, w = uJPY, 2
		}
		if cur != "" && sc.moneyDigits(p+w) < 0 {
			return Money, cur, p + w
		}
	}
	return 0, "", pos
}

// suffixStep reads the word after the quantity read so far (attached to
// the number on the first step: "5km"), as a scale, a unit, a currency, a
// time or an era, and says what it does to the quantity.
func (sc *scanner) suffixStep(c *core, x *suffix, step int) (stepOutcome, int) {
	s := sc.s
	ws := x.pos
	attached := !c.words && step == 0 && ws < len(s) && isLetter(s[ws])
	if !attached {
		if ws = sc.unitGap(x.pos); ws < 0 {
			return stepStop, 0
		}
	}
	we := letterEnd(s, ws)
	w := s[ws:we]
	si := lookupSuffix(w)
	// A word glued to more letters is no suffix ("m2" aside), a one-letter
	// unit needs its context, and after a currency only magnitudes and
	// currencies count.
	if !boundaryAfter(s, we) &&
		!(si.cls == sUnit && areaOf(si.unit) != "" && s[we] == '2' && boundaryAfter(s, we+1)) {
		si.cls = sNone
	}
	if si.cls == sUnit && we-ws == 1 && !letterUnitOK(s, s[ws], we, attached) {
		si.cls = sNone
	}
	if c.cur != "" {
		si = afterCurrency(si)
	}
	switch si.cls {
	case sMetreMillion:
		if !attached || !sc.countOrMoneyNext(we) {
			x.kind, x.unit, x.pos = Measure, uM, we
			x.unit, x.pos = sc.unitTail(c, x.unit, x.pos, false)
			return stepStop, 0
		}
		si.cls, si.exp = sScale, 6
	case sBillionCtx:
		if !attached || !sc.countOrMoneyNext(we) {
			return stepStop, 0
		}
		si.cls = sScale
	case sMega:
		si.cls = sScale
	}
	switch si.cls {
	case sScale, sHundred, sDozen:
		return scaleWord(c, x, si, we), 0
	case sNoon, sMidnight, sEraBC, sEraAD:
		return sc.timeWord(c, x, si.cls, we)
	case sCountOne, sUnit, sCount, sDegree, sCurrency, sCent, sPound, sSterling, sPercent, sPer, sPercentage, sSquare, sUS:
		return sc.unitWord(c, x, si, ws, we, attached), 0
	}
	return sc.otherWord(c, x, w, ws, we, attached, step)
}

// afterCurrency narrows the class of a suffix read after a currency
// ("$5 million", "€2bn"): only magnitudes and currencies count.
func afterCurrency(si sfxInfo) sfxInfo {
	switch si.cls {
	case sScale, sMega, sHundred, sDozen, sCurrency, sUS:
	case sMetreMillion:
		si.cls, si.exp = sScale, 6
	case sBillionCtx:
		si.cls = sScale
	default:
		si.cls = sNone
	}
	return si
}

// scaleWord applies a magnitude word ("million", "hundred", "dozen") at
// most once.
func scaleWord(c *core, x *suffix, si sfxInfo, we int) stepOutcome {
	switch si.cls {
	case sScale:
		if x.scaled {
			return stepStop
		}
		c.exp += int(si.exp)
		x.scaled = true
	case sHundred:
		if c.words || x.scaled {
			return stepStop
		}
		c.exp += 2
		x.scaled = true
	case sDozen:
		if c.words || c.mul != 1 {
			return stepStop
		}
		c.mul = 12
	}
	x.pos = we
	return stepNext
}

// unitWord reads a unit, currency or percent word ending at we into x.
func (sc *scanner) unitWord(c *core, x *suffix, si sfxInfo, ws, we int, attached bool) stepOutcome {
	switch si.cls {
	case sCountOne:
		// "the 2010 season", "the 2019–20 season": a singular noun after
		// a year is attributive, not a count.
		if !attached && ws > x.pos && sc.yearish(c) {
			return stepStop
		}
		x.kind, x.unit, x.pos = Measure, si.unit, we
	case sUnit, sCount, sDegree:
		x.kind, x.unit, x.pos = Measure, si.unit, we
		x.unit, x.pos = sc.unitTail(c, x.unit, x.pos, si.cls == sDegree)
	case sCurrency:
		x.kind, x.unit, x.pos = Money, si.unit, we
		if c.cur != "" {
			x.unit = c.cur
		}
	case sCent:
		x.kind, x.unit, x.pos = Money, uUSD, we
		c.exp -= 2
	case sPound, sSterling:
		x.kind, x.unit, x.pos = Money, uGBP, we
		if t, e := sc.nextWord(x.pos); eqFold(t, "sterling") {
			x.pos = e
		} else if si.cls == sPound && sc.weightContext(c.start) {
			x.kind, x.unit = Measure, uLb
		}
	case sPercent:
		x.kind, x.unit, x.pos = Percent, uPercent, we
	case sPer, sPercentage, sSquare, sUS:
		return sc.twoWordUnit(x, si.cls, we)
	}
	return stepNext
}

// twoWordUnit reads the units of two words: "per cent", "percentage
// point(s)", "square <unit>" and "US dollar(s)".
func (sc *scanner) twoWordUnit(x *suffix, cls sclass, we int) stepOutcome {
	t, e := sc.nextWord(we)
	switch cls {
	case sPer:
		if !eqFold(t, "cent") {
			return stepStop
		}
		x.kind, x.unit, x.pos = Percent, uPercent, e
	case sPercentage:
		x.kind, x.unit, x.pos = Percent, uPercent, we
		if eqFold(t, "point") || eqFold(t, "points") {
			x.unit, x.pos = uPctPoint, e
		}
	case sSquare:
		a := ""
		if t != "" {
			a = areaOf(lookupSuffix(t).unit)
		}
		if a == "" {
			return stepStop
		}
		x.kind, x.unit, x.pos = Measure, a, e
	case sUS:
		if !eqFold(t, "dollar") && !eqFold(t, "dollars") {
			return stepStop
		}
		x.kind, x.unit, x.pos = Money, uUSD, e
	}
	return stepNext
}

// timeWord reads "noon" or "midnight" after 12, and an era ("BC", "AD")
// after a year, and emits the time or year.
func (sc *scanner) timeWord(c *core, x *suffix, cls sclass, we int) (stepOutcome, int) {
	switch cls {
	case sNoon, sMidnight:
		if v, ok := c.small(); !ok || v != 12 || c.neg || x.scaled {
			return stepStop, 0
		}
		val := 720.0
		if cls == sMidnight {
			val = 0
		}
		sc.emit(Quantity{Kind: Time, Value: val, Start: c.start, End: we}, info{mag: 1})
		return stepDone, we
	}
	v, ok := c.small()
	if !ok || c.neg || c.commas || x.scaled || c.words {
		return stepStop, 0
	}
	if cls == sEraBC {
		v = -v
	}
	sc.emit(Quantity{Kind: Year, Value: float64(v), Year: v, Start: c.start, End: we, Hedged: x.plus}, info{mag: 1})
	return stepDone, we
}

// otherWord handles a word after a number that is no suffix: glued to the
// number it makes an identifier ("3D", "4G", "10x"), which is skipped;
// right after the number it may open a date ("17 June 1935") or read
// "o'clock".
func (sc *scanner) otherWord(c *core, x *suffix, w string, ws, we int, attached bool, step int) (stepOutcome, int) {
	s := sc.s
	if attached {
		sc.prevStart, sc.prevEnd = 0, 0
		return stepDone, skipToken(s, ws)
	}
	if step != 0 {
		return stepStop, 0
	}
	// "17 June 1935"
	if v, ok := c.small(); ok && !c.words && !c.neg && !c.commas && c.cur == "" &&
		c.ndig <= 2 && v >= 1 && v <= 31 && !x.scaled && !x.plus {
		if r, ok := sc.dayMonth(c.start, v, c.end); ok {
			return stepDone, r
		}
	}
	// "3 o'clock"
	if eqFold(w, "o") {
		if a := apostropheAt(s, we); a > 0 {
			e := letterEnd(s, we+a)
			if eqFold(s[we+a:e], "clock") && boundaryAfter(s, e) {
				if v, ok := c.small(); ok && v <= 24 && !c.neg && c.cur == "" {
					sc.emit(Quantity{Kind: Time, Value: float64(v * 60), Start: c.start, End: e}, info{mag: 1})
					return stepDone, e
				}
			}
		}
	}
	return stepStop, 0
}

// emitNumber reads a phrase after the quantity (see tail), settles the
// kind of a quantity with no unit (money, a year, a plain number, or
// nothing for a weak number) and emits it. It returns where scanning
// resumes.
func (sc *scanner) emitNumber(c *core, x *suffix) int {
	s, kind, pos := sc.s, x.kind, x.pos
	if (kind == Measure || kind == 0) && pos+3 < len(s) && s[pos] != '.' && s[pos] != ',' {
		r, p, done := sc.tail(c, kind, pos, x.plus || x.scaled)
		if done {
			return r
		}
		pos = p
	}
	unit := x.unit
	yearRule := false
	if kind == 0 {
		switch {
		case c.cur != "":
			kind, unit = Money, c.cur
		case c.weak:
			return c.end
		case !x.plus && sc.isYear(c, pos):
			kind = Year
			yearRule = true
		default:
			kind = Number
		}
	}
	if c.weak && kind != Measure && kind != Money && kind != Percent {
		return c.end
	}
	q := Quantity{Kind: kind, Value: c.value(), Unit: unit, Start: c.start, End: pos, Hedged: x.plus}
	if kind == Year {
		q.Year = int(c.mant)
	}
	mag := pow10(c.exp) * c.mul
	in := info{
		plain: (kind == Number || yearRule) && !x.scaled && c.mul == 1,
		raw:   c.raw(),
		mag:   mag,
		ndig:  c.ndig,
	}
	sc.emit(q, in)
	return pos
}

// yearish reports a number that reads as a year: a bare four-digit integer
// in 1000–2100, or the two-digit end of a year range ("2010–11").
func (sc *scanner) yearish(c *core) bool {
	if c.words || !c.isInt() || c.commas || c.neg || c.cur != "" || c.exp != 0 || c.mul != 1 {
		return false
	}
	if c.ndig == 4 && c.mant >= 1000 && c.mant <= 2100 {
		return true
	}
	return c.ndig == 2 && sc.rangeIdx >= 0 && sc.rangeIdx < len(sc.dst) && sc.rangeAt == c.start &&
		sc.dst[sc.rangeIdx].Kind == Year
}

// isYear decides whether a bare integer is a year: four digits between 1000
// and 2100, or three or four digits right after "in"/"since"/... and not
// followed by a word.
func (sc *scanner) isYear(c *core, pos int) bool {
	if c.words || !c.isInt() || c.commas || c.neg || c.cur != "" || c.exp != 0 || c.mul != 1 {
		return false
	}
	v := c.mant
	if c.ndig == 4 && v >= 1000 && v <= 2100 {
		return true
	}
	if c.ndig < 3 || c.ndig > 4 {
		return false
	}
	// The spaces after the preposition are skipped only here: most
	// prepositions ("in", "by", "from") come before no such number.
	if sc.prepEnd < 0 || sc.skipSpaces(sc.prepEnd) != c.start {
		return false
	}
	n := sc.skipSpaces(pos)
	return n >= len(sc.s) || !isWordByte(sc.s[n])
}

// ---- emission and ranges ------------------------------------------------

func (sc *scanner) emit(q Quantity, in info) {
	if q.Start < 0 || q.End <= q.Start || q.End > len(sc.s) {
		return
	}
	if sc.approxEnd == q.Start {
		q.Hedged = true
	}
	if sc.rangeIdx >= 0 && sc.rangeIdx < len(sc.dst) && q.Start == sc.rangeAt {
		joinRange(&sc.dst[sc.rangeIdx], sc.rangeInf, &q, in)
	}
	sc.rangeIdx = -1
	sc.dst = append(sc.dst, q)
	if r := sc.rangeNext(q.End); r >= 0 {
		sc.rangeIdx = len(sc.dst) - 1
		sc.rangeAt = r
		sc.rangeInf = in
	}
}

// rangeNext returns where the second member of a range starts when a range
// connector ("–", "-", "to") follows e, or -1.
func (sc *scanner) rangeNext(e int) int {
	s := sc.s
	p := sc.skipSpaces(e)
	if p >= len(s) {
		return -1
	}
	if dw := dashWidth(s, p); dw > 0 {
		p += dw
	} else if p > e && p+2 < len(s) && s[p] == 't' && s[p+1] == 'o' && spaceWidth(s, p+2) > 0 {
		p += 2
	} else {
		return -1
	}
	p = sc.skipSpaces(p)
	if p >= len(s) {
		return -1
	}
	switch b := s[p]; {
	case isDigit(b), b == '$':
		return p
	case b == 0xE2 && p+2 < len(s) && s[p+1] == 0x82 && (s[p+2] == 0xAC || s[p+2] == 0xB9): // € ₹
		return p
	case b == 0xC2 && p+1 < len(s) && (s[p+1] == 0xA3 || s[p+1] == 0xA5): // £ ¥
		return p
	}
	return -1
}

// joinRange shares unit, currency, magnitude and am/pm between the members
// of a range: "10–20 hours", "$10–20 million", "3–5 pm", "2010–11".
func joinRange(a *Quantity, ai info, b *Quantity, bi info) {
	if a.Hedged {
		b.Hedged = true
	}
	switch {
	case ai.plain && (b.Kind == Measure || b.Kind == Percent || b.Kind == Money):
		a.Kind, a.Unit = b.Kind, b.Unit
		a.Year, a.Month, a.Day = 0, 0, 0
		a.Value = ai.raw * bi.mag
	case ai.plain && b.Kind == Time && bi.mer != 0 && ai.raw >= 1 && ai.raw <= 12 && ai.raw == math.Trunc(ai.raw):
		h := int(ai.raw) % 12
		if bi.mer == 2 {
			h += 12
		}
		a.Kind, a.Value, a.Year = Time, float64(h*60), 0
	case ai.plain && b.Kind == Date && b.Day != 0 && ai.raw >= 1 && ai.raw <= 31 && ai.raw == math.Trunc(ai.raw):
		// "17–18 June 1935"
		a.Kind, a.Value = Date, 0
		a.Year, a.Month, a.Day = b.Year, b.Month, int(ai.raw)
	case a.Kind == Money && ai.mag == 1 && b.Kind == Number:
		b.Kind, b.Unit = Money, a.Unit
		if bi.mag != 1 {
			a.Value *= bi.mag
		}
	case a.Kind == Year && ai.plain && bi.plain && b.Kind == Number && bi.ndig == 2 && bi.raw >= 0:
		y := a.Year/100*100 + int(bi.raw)
		if y > a.Year {
			b.Kind, b.Year, b.Value = Year, y, float64(y)
		}
	}
}
