package lexical

import (
	"unicode"
	"unicode/utf8"
)

// token is one word of a text: its byte span in the original text, the hash
// of its normalized stem, and flags. Tokens never allocate: the stem is hashed
// from a scratch buffer.
type token struct {
	start, end int32
	hash       uint64
	w          float64 // IDF weight, 0 for a function word; set when fWeighed is (see vocabulary.weight)
	sent       int32   // sentence index within the text
	flags      uint16
}

const (
	fStop    uint16 = 1 << iota // function word
	fCap                        // starts with an upper-case letter (not sentence-initial)
	fNum                        // all digits
	fNeg                        // negation word (not, no, never, n't, ...)
	fInitial                    // first token of its sentence
	fHedge                      // hedging or uncertainty word
	fCapAny                     // starts with an upper-case letter (anywhere)
	fGiven                      // answer token supported by construction (a quantity the contexts state)
	fAnt                        // the word has antonyms (see antonymOf)
	fInQ                        // answer token whose word is also in the question (set by extract)
	fWeighed                    // w holds the token's weight (see vocabulary.weight)
	fSyn                        // the token took the identity of a synonym found in the contexts (see substituteSynonyms)
	fSynSet                     // the word has WordNet synonyms (see synonymOf)
	fPre                        // answer token of an attribution preamble ("According to the documents,"): not a claim
	fLooked                     // during tokenize only: the token's flags are final, lookup skips it
)

func (t *token) content() bool { return t.flags&fStop == 0 }
func (t *token) entity() bool  { return t.flags&fCap != 0 || t.flags&fNum != 0 }

// fnv-1a 64
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hashBytes(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

func hashString(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// foldRune lower-cases r and strips the accent of common Latin letters.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	r = unicode.ToLower(r)
	if r >= 0xe0 && r <= 0x17f {
		if f, ok := latinFold[r]; ok {
			return f
		}
	}
	return r
}

var latinFold = map[rune]rune{
	'à': 'a', 'á': 'a', 'â': 'a', 'ã': 'a', 'ä': 'a', 'å': 'a', 'ā': 'a', 'ă': 'a', 'ą': 'a',
	'ç': 'c', 'ć': 'c', 'č': 'c', 'ď': 'd', 'đ': 'd',
	'è': 'e', 'é': 'e', 'ê': 'e', 'ë': 'e', 'ē': 'e', 'ė': 'e', 'ę': 'e', 'ě': 'e',
	'ì': 'i', 'í': 'i', 'î': 'i', 'ï': 'i', 'ī': 'i', 'į': 'i', 'ı': 'i',
	'ñ': 'n', 'ń': 'n', 'ň': 'n',
	'ò': 'o', 'ó': 'o', 'ô': 'o', 'õ': 'o', 'ö': 'o', 'ø': 'o', 'ō': 'o', 'ő': 'o',
	'ù': 'u', 'ú': 'u', 'û': 'u', 'ü': 'u', 'ū': 'u', 'ů': 'u', 'ű': 'u', 'ų': 'u',
	'ý': 'y', 'ÿ': 'y', 'ś': 's', 'š': 's', 'ş': 's', 'ß': 's', 'ź': 'z', 'ż': 'z', 'ž': 'z',
	'ł': 'l', 'ľ': 'l', 'ř': 'r', 'ť': 't', 'ţ': 't', 'æ': 'a', 'œ': 'o',
}

func isWordRune(r rune) bool {
	return r < utf8.RuneSelf && (('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' || r == 'ʼ' }

// stem applies light suffix stripping to an ASCII lower-case word in place
// and returns the stem's length: plural -s/-es/-ies, -ing, -ed, -ly, and a
// final -e, so that "based", "basing", "base" and "bases" share a stem.
// Words with digits or non-ASCII letters are left whole.
func stem(b []byte) int {
	for _, c := range b {
		if c >= utf8.RuneSelf || ('0' <= c && c <= '9') {
			return len(b)
		}
	}
	return stemLetters(b)
}

// stemLetters is stem for a word of ASCII lower-case letters only. A plural
// in -ies reads as its -y singular ("cities" → "city", written in place),
// then as any other word.
func stemLetters(b []byte) int {
	if n := len(b); n > 4 && b[n-3] == 'i' && b[n-2] == 'e' && b[n-1] == 's' {
		b[n-3] = 'y'
		b = b[:n-2]
	}
	n, _ := stemPlain(b)
	return n
}

// tokenizer turns texts into tokens. It keeps a scratch buffer, so one
// tokenizer serves one goroutine at a time.
type tokenizer struct {
	buf []byte
	// vocab gives each token its flags and weight; nil gives flags only
	// (weights 0), for offline tools.
	vocab *vocabulary
	// keep, when set, makes tokenize record each token's stem in stems
	// (for offline tools only: it allocates).
	keep  bool
	stems []string

	// weights, when set, makes tokenize look up each word's weight as well
	// as its flags (see vocabulary.weight for the words it skips).
	weights bool
}

// asciiTab maps an ASCII letter or digit to itself lower-cased in its low
// byte and its class (clsLower, clsUpper or clsDigit) in its high byte, and
// every other byte to 0: one load per byte of a word.
var asciiTab = func() (t [256]uint16) {
	for c := range 128 {
		switch {
		case 'a' <= c && c <= 'z':
			t[c] = uint16(clsLower)<<8 | uint16(c)
		case 'A' <= c && c <= 'Z':
			t[c] = uint16(clsUpper)<<8 | uint16(c+'a'-'A')
		case '0' <= c && c <= '9':
			t[c] = uint16(clsDigit)<<8 | uint16(c)
		}
	}
	return t
}()

const (
	clsLower uint8 = 1 << iota
	clsUpper
	clsDigit
)

// tokenize appends the tokens of text to dst. Possessive 's is dropped;
// "n't" becomes a separate negation token "not"; hyphens and other
// punctuation split words. Sentence indices come from sentence boundaries
// found in the same pass (see sentenceEnd). ASCII text is read byte by
// byte; other text rune by rune.
func (tz *tokenizer) tokenize(dst []token, text string, sents []span) ([]token, []span) {
	loadLexicon()
	sent := int32(0)
	sentStart := 0
	inSent := 0
	atSentStart := true
	// Folding never more than doubles a word's length (a 2-byte letter may
	// lower-case to 3 bytes): with room for twice the text, words are
	// written without checks for growth.
	if cap(tz.buf) < 2*len(text)+utf8.UTFMax {
		tz.buf = make([]byte, 0, 2*len(text)+utf8.UTFMax)
	}
	room := tz.buf[:cap(tz.buf)]
	first := len(dst)
	i := 0
	for i < len(text) {
		c := text[i]
		start := i
		var (
			k     int
			class uint8
			other bool
			upper bool
		)
		if c < utf8.RuneSelf {
			e := asciiTab[c]
			if e == 0 {
				// Only a line feed, full stop, ! or ? can end a sentence.
				if c == '\n' || c == '.' || c == '!' || c == '?' {
					if end, ok := sentenceEnd(text, i, rune(c), 1, dst); ok {
						if inSent > 0 {
							sents = append(sents, span{sentStart, end})
							sent++
							inSent = 0
						}
						sentStart = end
						atSentStart = true
					}
				}
				i++
				continue
			}
			upper = c-'A' < 26
			if !tz.keep {
				if h, j, class, ok := asciiWord(text, i, room); ok {
					// The common case, read on a path of its own.
					fl := wordFlags0(class, upper, atSentStart)
					dst = append(dst, token{start: int32(i), end: int32(j), hash: h, sent: sent, flags: fl})
					i = j
					inSent++
					atSentStart = false
					continue
				}
			}
			k, i, class, other = foldWord(text, i, room, 0, 0)
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				// No rune outside ASCII ends a sentence (see sentenceEnd).
				i += size
				continue
			}
			upper = unicode.IsUpper(r)
			k, i, class, other = foldWord(text, i, room, 0, 0)
		}
		buf, end, next, neg := room[:k], i, i, false
		if next < len(text) && (text[next] == '\'' || text[next] >= utf8.RuneSelf) {
			buf, end, next, neg = apostrophe(text, buf, end, next)
		}
		i = next
		// The word's stem and its hash. The vocabulary's flags, canonical
		// hash and weight come later, for all the text's words at once
		// (see lookup).
		var n int
		if class&clsDigit == 0 && !other {
			n = stemLetters(buf) // letters only: stem needs no check
		} else {
			n = stem(buf)
		}
		h := hashBytes(buf[:n])
		if tz.keep {
			if b, ok := canonStem[h]; ok {
				tz.stems = append(tz.stems, b)
			} else {
				tz.stems = append(tz.stems, string(buf[:n]))
			}
		}
		fl := wordFlags0(class, upper, atSentStart)
		if other {
			fl &^= fNum
		}
		dst = append(dst, token{start: int32(start), end: int32(end), hash: h, sent: sent, flags: fl})
		inSent++
		atSentStart = false
		if neg {
			dst = tz.appendNot(dst, end, i, sent)
		}
	}
	if inSent > 0 {
		sents = append(sents, span{sentStart, len(text)})
	}
	tz.lookup(dst[first:])
	return dst, sents
}

// wordFlags0 returns the flags a word has before the vocabulary is read:
// a number when its ASCII characters (class) are digits only, a capital
// when it starts upper-case, an initial at a sentence's start.
func wordFlags0(class uint8, upper, atSentStart bool) uint16 {
	var fl uint16
	if class == clsDigit {
		fl |= fNum
	}
	if upper {
		fl |= fCapAny
		if !atSentStart {
			fl |= fCap
		}
	}
	if atSentStart {
		fl |= fInitial
	}
	return fl
}

// asciiWord reads the word of ASCII letters and digits that starts at byte
// i of text when nothing makes it a case apart: it returns the hash of its
// stem, the index of the byte after it, its class bits (see asciiTab), and
// ok. ok is false, and the word is left to tokenize's general path, when
// the word goes on past its ASCII run (a letter outside ASCII, digits
// joined by "," or "."), an apostrophe follows it ("n't", "'s"), or its
// stem is no prefix of its letters (a plural in -ies). A word of lower-case
// letters is stemmed and hashed where it stands, without a copy.
func asciiWord(text string, i int, room []byte) (h uint64, j int, class uint8, ok bool) {
	tab := &asciiTab
	j = i
	for j < len(text) {
		e := tab[text[j]]
		if e == 0 {
			break
		}
		class |= uint8(e >> 8)
		j++
	}
	if j < len(text) {
		c := text[j]
		if c >= utf8.RuneSelf || c == '\'' || class == clsDigit && (c == ',' || c == '.') {
			return 0, 0, 0, false
		}
	}
	w := text[i:j]
	if class == clsLower {
		n, ok := stemString(w)
		if !ok {
			return 0, 0, 0, false
		}
		return hashString(w[:n]), j, class, true
	}
	if len(w) > len(room) {
		return 0, 0, 0, false
	}
	b := room[:len(w)]
	for x := 0; x < len(w); x++ {
		b[x] = byte(tab[w[x]])
	}
	var n int
	if class&clsDigit == 0 {
		n = stemLetters(b)
	} else {
		n = len(b) // stem leaves words with digits whole
	}
	return hashBytes(b[:n]), j, class, true
}

// stemString is stemLetters for a word of ASCII lower-case letters read in
// place. ok is false for a plural in -ies, whose stem ends in a letter the
// word does not have there ("ies" → "y"): stemLetters reads that one.
func stemString(w string) (n int, ok bool) { return stemPlain(w) }

// stemPlain strips the suffixes of stem from a word of ASCII lower-case
// letters and returns the stem's length; ok is false, and the word left
// to its caller, for a plural in -ies (see stemLetters).
func stemPlain[W ~string | ~[]byte](w W) (n int, ok bool) {
	n = len(w)
	if n <= 3 {
		return n, true
	}
	// Plurals. n ≥ 4 here.
	switch {
	case n > 4 && w[n-3] == 'i' && w[n-2] == 'e' && w[n-1] == 's':
		return 0, false
	case w[n-4] == 's' && w[n-3] == 's' && w[n-2] == 'e' && w[n-1] == 's':
		n -= 2
	case w[n-1] == 's' && (w[n-2] == 's' || w[n-2] == 'u' || w[n-2] == 'i'):
	case w[n-1] == 's':
		n--
	}
	// Verb and adverb endings. n ≥ 2 here.
	switch {
	case n >= 7 && w[n-3] == 'i' && w[n-2] == 'n' && w[n-1] == 'g':
		n -= 3
		if w[n-1] == w[n-2] && w[n-1] != 'l' && w[n-1] != 's' && w[n-1] != 'z' {
			n-- // running → run
		}
	case n >= 5 && w[n-2] == 'e' && w[n-1] == 'd' && w[n-3] != 'e':
		n -= 2
		if w[n-1] == w[n-2] && w[n-1] != 'l' && w[n-1] != 's' && w[n-1] != 'z' {
			n--
		}
	case n >= 6 && w[n-2] == 'l' && w[n-1] == 'y':
		n -= 2
	}
	if n > 3 && w[n-1] == 'e' {
		n--
	}
	return n, true
}

// lookup gives each token the flags, the canonical hash and, when
// tz.weights is set, the weight the vocabulary has for its stem. It runs
// after the text is read, in a loop of its own: each lookup is a read from
// a table mostly outside the processor's caches, and a short loop of
// independent reads lets the processor wait for several at once, where
// reads interleaved with the reading of the text wait one at a time.
func (tz *tokenizer) lookup(toks []token) {
	switch {
	case tz.vocab == nil:
		for i := range toks {
			t := &toks[i]
			if t.flags&fLooked != 0 {
				continue
			}
			if c, ok := canonOf[t.hash]; ok {
				t.hash = c
			}
			t.flags |= wordFlags(t.hash)
		}
	case tz.weights:
		for i := range toks {
			t := &toks[i]
			if t.flags&fLooked != 0 {
				continue
			}
			f, wt, c := tz.vocab.lookup(t.hash)
			t.flags |= f | fWeighed
			t.w = wt
			if c != 0 {
				t.hash = c
			}
		}
	default:
		tab := &tz.vocab.flags
		for i := range toks {
			t := &toks[i]
			if t.flags&fLooked != 0 {
				continue
			}
			// Most words of a context are in no list: the filter
			// tells, without a call.
			if !tab.mayHave(t.hash) {
				continue
			}
			f, _, _, c := tab.get(t.hash)
			t.flags |= f
			if c != 0 {
				t.hash = c
			}
		}
	}
	for i := range toks {
		toks[i].flags &^= fLooked
	}
}

// foldWord goes on writing the word of text that reaches byte i into room,
// folded (see foldRune), k bytes of it written already with the class
// bits class (see asciiTab). It returns the folded length, the index of the byte after
// the word, the class bits of the word's ASCII characters, and whether it
// read a character outside ASCII. Digits joined by "," or "." stay one
// number: 1,234.5.
func foldWord(text string, i int, room []byte, k int, class uint8) (int, int, uint8, bool) {
	other := false
	for {
		// A run of ASCII letters and digits.
		for i < len(text) {
			e := asciiTab[text[i]]
			if e == 0 {
				break
			}
			class |= uint8(e >> 8)
			room[k] = byte(e)
			k++
			i++
		}
		if i >= len(text) {
			break
		}
		c := text[i]
		if c < utf8.RuneSelf {
			if class == clsDigit && !other && (c == ',' || c == '.') && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' {
				if c == '.' {
					room[k] = '.'
					k++
				}
				i++
				continue
			}
			break
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			break
		}
		other = true
		k = len(utf8.AppendRune(room[:k], foldRune(r)))
		i += size
	}
	return k, i, class, other
}

// apostrophe reads what follows a word (buf, ending at byte end) at byte i:
// a possessive 's is skipped, and an "n't" is cut from the word and read as
// a negation (neg). Any other apostrophe ("o'clock") ends the word like any
// other mark. It returns the word, its end, the byte to read from next, and
// neg.
func apostrophe(text string, buf []byte, end, i int) ([]byte, int, int, bool) {
	if i >= len(text) {
		return buf, end, i, false
	}
	r, size := rune(text[i]), 1
	if r >= utf8.RuneSelf {
		r, size = utf8.DecodeRuneInString(text[i:])
	}
	if !isApostrophe(r) {
		return buf, end, i, false
	}
	rest := text[i+size:]
	switch {
	case len(rest) >= 1 && (rest[0] == 's' || rest[0] == 'S') && (len(rest) == 1 || !isWordByte(rest[1])):
		i += size + 1
	case len(rest) >= 1 && (rest[0] == 't' || rest[0] == 'T') && (len(rest) == 1 || !isWordByte(rest[1])) &&
		len(buf) > 1 && buf[len(buf)-1] == 'n':
		return buf[:len(buf)-1], end - 1, i + size + 1, true
	}
	return buf, end, i, false
}

// appendNot appends the negation token "not" read from the "n't" at bytes
// [start, end).
func (tz *tokenizer) appendNot(dst []token, start, end int, sent int32) []token {
	if tz.keep {
		tz.stems = append(tz.stems, "not")
	}
	// Its flags are known: lookup leaves it as it is (fLooked).
	nt := token{start: int32(start), end: int32(end), hash: hNot, sent: sent, flags: fStop | fNeg | fLooked}
	if tz.weights {
		nt.flags |= fWeighed // a function word: weight 0
	}
	return append(dst, nt)
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= utf8.RuneSelf
}

// span is a byte range [start, end) of a text.
type span struct{ start, end int }

// sentenceEnd reports whether the punctuation rune r at text[i] ends a
// sentence, and where the next sentence starts. A newline always ends one; a
// full stop does when it is followed by a space and an upper-case letter, a
// digit or a quote, or by the end of the text — unless the word before it is
// an abbreviation or an initial. A full stop directly followed by an
// upper-case letter after a lower-case word of three or more letters also
// ends one ("century.First"), as found in scraped text.
func sentenceEnd(text string, i int, r rune, size int, toks []token) (int, bool) {
	switch r {
	case '\n':
		return i + size, true
	case '!', '?':
		j := i + size
		for j < len(text) && (text[j] == '"' || text[j] == '\'' || text[j] == ')') {
			j++
		}
		if j >= len(text) || text[j] == ' ' || text[j] == '\n' || text[j] == '\t' {
			return j, true
		}
		return 0, false
	case '.':
	default:
		return 0, false
	}
	j := i + 1
	for j < len(text) && (text[j] == '"' || text[j] == '\'' || text[j] == ')' || text[j] == ']') {
		j++
	}
	prevLen := 0
	prevLower := false
	if len(toks) > 0 {
		last := toks[len(toks)-1]
		if int(last.end) == i {
			prevLen = int(last.end - last.start)
			c := text[last.end-1]
			prevLower = 'a' <= c && c <= 'z'
			if isAbbrev(text[last.start:last.end]) {
				return 0, false
			}
		}
	}
	if j >= len(text) {
		return j, true
	}
	c := text[j]
	if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xc2 /* nbsp */ {
		if prevLen == 1 && !prevLower {
			return 0, false // an initial: "J. K. Rowling"
		}
		k := j
		for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r') {
			k++
		}
		if k >= len(text) {
			return k, true
		}
		nr, _ := utf8.DecodeRuneInString(text[k:])
		if unicode.IsUpper(nr) || unicode.IsDigit(nr) || nr == '"' || nr == '“' || nr == '(' || nr == '\n' || nr == '\'' {
			return j, true
		}
		return 0, false
	}
	if prevLower && prevLen >= 3 {
		nr, _ := utf8.DecodeRuneInString(text[j:])
		if unicode.IsUpper(nr) {
			return j, true
		}
	}
	return 0, false
}

var abbrevs = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
	"vs": true, "etc": true, "inc": true, "ltd": true, "co": true, "corp": true, "no": true, "vol": true,
	"fig": true, "approx": true, "dept": true, "est": true, "gen": true, "gov": true, "lt": true, "col": true,
	"sgt": true, "capt": true, "mt": true, "ft": true, "jan": true, "feb": true, "mar": true, "apr": true,
	"jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	"e": true, "i": true, "g": true, "u": true, "a": true, "p": true, "m": true, "al": true,
}

func isAbbrev(w string) bool {
	if len(w) > 5 {
		return false
	}
	var b [5]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return abbrevs[string(b[:len(w)])]
}
