package lexical

import (
	"math/bits"
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

// FNV-1a's 64-bit offset basis and prime. ground.go and grouped.go combine
// ids with them; words are hashed with hashStem.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// A word is known by the hash of its stem (folded and stemmed: see stem).
// hashStem is the only hash of a stem: the vocabulary, the lexicon, the
// word lists and the tokenizer's general path call it, and asciiWords
// computes it with the same steps, hashSeed and hashMix, from the word's
// bytes in a register. TestASCIIWordsMatchesStemLetters holds asciiWords
// to hashStem, and the tokenizer's equivalence tests and fuzz target hold
// both to refHashStem.
//
// The stem's bytes are read as little-endian 64-bit blocks, the last of
// one to eight bytes padded with zeros, and folded into a state that
// starts as hashSeed with the stem's length, a block at a time: one
// multiplication a block, where FNV-1a took one a byte. Stems hold no zero
// byte, so the padded blocks tell stems of different lengths apart; the
// length is mixed in as well. No table stores a hash: all are built from
// the words' text when the lexicon loads, so the hash may change with
// hashStem.
const (
	// hashSeed's top byte, 0xff, is no byte of valid UTF-8, so no first
	// block of a stem equals hashSeed with a length (< 2^56) in it, and the
	// first product's factor h^w is never 0 (see hashMix).
	hashSeed = 0xff51afd7ed558ccd
	hashMul  = 0xe7037ed1a0b428db // odd, bits well mixed
)

// hashMix folds the block w into the state h: the 128-bit product of
// x = h^w and hashMul, its high and low halves xor-ed. Every bit of the
// high half depends on every bit of x (through the carries), and so do
// the low half's top bits: the result's top bits, which the tables read
// (the sentence signatures and the question's one-word filter, the slots of
// tables that multiply by the golden ratio), and its low bits, which
// analysis' word index reads (h & mask), mix all of x. The result is 0
// only for x = 0 or when the halves are equal: a chance of one in 2^64 a
// stem, as for any 64-bit hash (0 marks an empty slot in the tables).
func hashMix(h, w uint64) uint64 {
	hi, lo := bits.Mul64(h^w, hashMul)
	return hi ^ lo
}

// hashStem returns the hash of the stem s (see hashMix): the blocks of
// eight bytes before its last one, then its last one to eight bytes
// (none for an empty s), zero-padded.
func hashStem[S string | []byte](s S) uint64 {
	h := hashSeed ^ uint64(len(s))
	for len(s) > 8 {
		h = hashMix(h, uint64(s[0])|uint64(s[1])<<8|uint64(s[2])<<16|uint64(s[3])<<24|
			uint64(s[4])<<32|uint64(s[5])<<40|uint64(s[6])<<48|uint64(s[7])<<56)
		s = s[8:]
	}
	// The last block, without a loop over its bytes: its first and last
	// four bytes (its first, middle and last byte when it has fewer than
	// four), each shifted to its place. Where two of them overlap they
	// hold the same bytes, so OR-ing them sets each byte once.
	var w uint64
	switch n := len(s); {
	case n >= 4:
		first := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
		last := uint64(s[n-4]) | uint64(s[n-3])<<8 | uint64(s[n-2])<<16 | uint64(s[n-1])<<24
		w = first | last<<(8*uint(n-4))
	case n > 0:
		w = uint64(s[0]) | uint64(s[n/2])<<(8*uint(n/2)) | uint64(s[n-1])<<(8*uint(n-1))
	}
	return hashMix(h, w)
}

// foldRune lower-cases r and strips the accent of common Latin letters. A
// rune of runeTab is folded by table, any other as foldRuneUnicode folds it.
func foldRune(r rune) rune {
	if j, ok := runeTabIndex(r); ok {
		return rune(runeTab[j].fold)
	}
	return foldRuneUnicode(r)
}

// foldRuneUnicode is foldRune by the unicode package and latinFold.
func foldRuneUnicode(r rune) rune {
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

// isWordRune reports whether r belongs in a word: an ASCII letter or digit,
// or outside ASCII a letter, a digit or a non-spacing mark. A rune of
// runeTab is decided by table, any other as isWordRuneUnicode decides it.
func isWordRune(r rune) bool {
	if j, ok := runeTabIndex(r); ok {
		return runeTab[j].flags&rWord != 0
	}
	return isWordRuneUnicode(r)
}

// isWordRuneUnicode is isWordRune by the unicode package's range tables.
func isWordRuneUnicode(r rune) bool {
	return r < utf8.RuneSelf && (('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
}

// isUpperRune is unicode.IsUpper, by table for the runes of runeTab.
func isUpperRune(r rune) bool {
	if j, ok := runeTabIndex(r); ok {
		return runeTab[j].flags&rUpper != 0
	}
	return unicode.IsUpper(r)
}

// runeTab describes the runes outside ASCII most often met in text in
// Latin or Cyrillic script, for the tokenizer: those below tabLow (ASCII,
// Latin-1, Latin Extended-A and -B, IPA, the combining diacritical marks,
// Greek and Cyrillic), then those of the General Punctuation block
// [tabPunct, tabPunct+tabPunctLen) (dashes, curly quotes), which would
// otherwise each cost the unicode package's binary searches of its range
// tables (and foldRune a map look-up).
const (
	tabLow      = 0x530
	tabPunct    = 0x2000
	tabPunctLen = 0x70
)

// runeTabIndex returns the index in runeTab of r's entry, if it has one.
func runeTabIndex(r rune) (int, bool) {
	if uint32(r) < tabLow {
		return int(r), true
	}
	if j := uint32(r) - tabPunct; j < tabPunctLen {
		return tabLow + int(j), true
	}
	return 0, false
}

// tabRune is what the tokenizer asks of a rune of runeTab: whether it is a
// word rune (rWord, see isWordRune) or upper-case (rUpper), and its folded
// form (see foldRune; every fold of these runes is below U+10000, as
// TestRuneTabMatchesUnicode checks).
type tabRune struct {
	fold  uint16
	flags uint8
}

const (
	rWord  = 1 << iota // isWordRuneUnicode
	rUpper             // unicode.IsUpper
)

// runeTab answers isWordRune, isUpperRune and foldRune for its runes (see
// runeTabIndex). It is computed from the unicode package once, so it says
// what that says (TestRuneTabMatchesUnicode checks every rune).
var runeTab = func() (t [tabLow + tabPunctLen]tabRune) {
	add := func(j int, r rune) {
		t[j].fold = uint16(foldRuneUnicode(r))
		if isWordRuneUnicode(r) {
			t[j].flags |= rWord
		}
		if unicode.IsUpper(r) {
			t[j].flags |= rUpper
		}
	}
	for r := range rune(tabLow) {
		add(int(r), r)
	}
	for j := range tabPunctLen {
		add(tabLow+j, tabPunct+rune(j))
	}
	return t
}()

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
	// starts holds, after read, the index of each sentence's first token
	// among the tokens it read: every sentence read has one.
	starts []int32
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

// byteKind classifies a byte for tokenize: an ASCII letter (kLetter, with
// kUpper for upper case) or digit (kDigit) starts a word; a line feed, full
// stop, ! or ? may end a sentence (kSent); an apostrophe (kApos) or a byte
// outside ASCII (kHigh) after a word, or a comma or full stop (kJoin) after
// a number, sends the word to the general path. Any other byte is skipped.
var byteKind = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case 'a' <= c && c <= 'z':
			t[c] = kLetter
		case 'A' <= c && c <= 'Z':
			t[c] = kLetter | kUpper
		case '0' <= c && c <= '9':
			t[c] = kDigit
		case c >= utf8.RuneSelf:
			t[c] = kHigh
		}
	}
	t['\n'], t['!'], t['?'] = kSent, kSent, kSent
	t['.'], t[','], t['\''] = kSent|kJoin, kJoin, kApos
	return t
}()

const (
	kLetter uint8 = 1 << iota
	kUpper
	kDigit
	kSent
	kHigh
	kApos
	kJoin

	kWord = kLetter | kDigit
)

// tokenize appends the tokens of text to dst. Possessive 's is dropped;
// "n't" becomes a separate negation token "not"; hyphens and other
// punctuation split words. Sentence indices come from sentence boundaries
// found in the same pass (see sentenceEnd). Words of ASCII letters and
// digits are read eight bytes at a time (see asciiWords) in texts of eight
// bytes or more, except for Stems; other words byte by byte, and text
// outside ASCII rune by rune (see word). The words' flags, canonical
// hashes and weights are read from the vocabulary after the text (see
// lookup).
func (tz *tokenizer) tokenize(dst []token, text string, sents []span) ([]token, []span) {
	first := len(dst)
	dst, sents = tz.read(dst, text, sents)
	tz.lookup(dst[first:])
	return dst, sents
}

// read is tokenize but for lookup: its tokens have the hashes of their
// stems and the flags their places give them.
func (tz *tokenizer) read(dst []token, text string, sents []span) ([]token, []span) {
	loadLexicon()
	// Folding never more than doubles a word's length (a 2-byte letter may
	// lower-case to 3 bytes): with room for twice the text, words are
	// written without checks for growth.
	if cap(tz.buf) < 2*len(text)+utf8.UTFMax {
		tz.buf = make([]byte, 0, 2*len(text)+utf8.UTFMax)
	}
	room := tz.buf[:cap(tz.buf)]
	first := len(dst)
	// The sentence being read is number sent; it starts at byte sentStart
	// and at token sentTok: its first word is the one read when len(dst)
	// is sentTok.
	sent, sentStart, sentTok := int32(0), 0, first
	tz.starts = tz.starts[:0]
	// Words of ASCII letters and digits are read eight bytes at a time
	// (see asciiWords) when the text has eight bytes; Stems reads every
	// word on the general path.
	fast := !tz.keep && len(text) >= 8
	i := 0
	for i < len(text) {
		// The common case: words of ASCII letters and digits, and the
		// spaces and marks between them that end no sentence (see
		// asciiWords). Anything else is left to the code below, which reads
		// one word or mark.
		if fast {
			if len(dst) == cap(dst) {
				dst = append(dst, token{})[:len(dst)] // grown as append grows it
			}
			n := len(dst)
			dst, i = asciiWords(dst, text, i, sent)
			if n <= sentTok && sentTok < len(dst) {
				// The sentence's first word.
				t := &dst[sentTok]
				t.flags = t.flags&^fCap | fInitial
			}
			if len(dst) == cap(dst) {
				continue // full: grow it
			}
		}
		if i >= len(text) {
			break
		}
		kind := byteKind[text[i]]
		if kind&kWord == 0 {
			if kind&kHigh != 0 {
				r, size := utf8.DecodeRuneInString(text[i:])
				if !isWordRune(r) {
					// No rune outside ASCII ends a sentence (see sentenceEnd).
					i += size
					continue
				}
				fl := wordFlags0[b2u8(len(dst) == sentTok)<<1|b2u8(isUpperRune(r))]
				dst, i = tz.word(dst, text, i, room, fl, sent)
				continue
			}
			if kind&kSent != 0 {
				if end, ok := sentenceEnd(text, i, rune(text[i]), 1, dst); ok {
					if len(dst) > sentTok {
						sents = append(sents, span{sentStart, end})
						tz.starts = append(tz.starts, int32(sentTok-first))
						sent++
						sentTok = len(dst)
					}
					sentStart = end
				}
			}
			i++
			continue
		}
		// A word of ASCII letters and digits asciiWords does not read.
		fl := wordFlags0[b2u8(len(dst) == sentTok)<<1|kind>>1&1]
		dst, i = tz.word(dst, text, i, room, fl, sent)
	}
	if len(dst) > sentTok {
		sents = append(sents, span{sentStart, len(text)})
		tz.starts = append(tz.starts, int32(sentTok-first))
	}
	return dst, sents
}

// wordFlags0 holds the flags a word has before the vocabulary is read, by
// its position and case: [2*atSentenceStart + upperCase]. A capital not at
// a sentence's start gets fCap as well as fCapAny; the first word of a
// sentence fInitial.
var wordFlags0 = [4]uint16{0, fCapAny | fCap, fInitial, fInitial | fCapAny}

// b2u8 is 1 for true, 0 for false.
func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// word reads the word that starts at byte i of text on the general path:
// folded into room (see foldWord), then its apostrophe, stem and hash. It
// appends its token, with the flags fl its position gives (fInitial,
// fCapAny, fCap), and the token of an "n't" after it, and returns the
// index of the byte after them.
func (tz *tokenizer) word(dst []token, text string, i int, room []byte, fl uint16, sent int32) ([]token, int) {
	start := i
	k, i, class, other := foldWord(text, i, room, 0, 0)
	buf, end, next, neg := room[:k], i, i, false
	if next < len(text) && (text[next] == '\'' || text[next] >= utf8.RuneSelf) {
		buf, end, next, neg = apostrophe(text, buf, end, next)
	}
	// The word's stem and its hash. The vocabulary's flags, canonical
	// hash and weight come later, for all the text's words at once (see
	// lookup).
	var n int
	if class&clsDigit == 0 && !other {
		n = stemLetters(buf) // letters only: stem needs no check
	} else {
		n = stem(buf)
	}
	h := hashStem(buf[:n])
	if tz.keep {
		if b, ok := canonStem[h]; ok {
			tz.stems = append(tz.stems, b)
		} else {
			tz.stems = append(tz.stems, string(buf[:n]))
		}
	}
	if class == clsDigit && !other {
		fl |= fNum
	}
	dst = append(dst, token{start: int32(start), end: int32(end), hash: h, sent: sent, flags: fl})
	if neg {
		dst = tz.appendNot(dst, end, next, sent)
	}
	return dst, next
}

// SWAR constants: a byte of ones, and the high bit of every byte.
const (
	ones64 = 0x0101010101010101
	high64 = 0x80 * ones64
	fold64 = 0x20 * ones64 // OR-ed into an ASCII letter or digit, lower-cases it
)

// load64 reads the eight bytes at s[i:] as a little-endian word (the
// compiler turns it into one load).
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// wordBytes returns the ASCII letters and digits among x's bytes as their
// high bits (0x80 in each such byte), eight bytes at once. A byte folded
// to lower case and stripped of its high bit is a letter iff it is at
// least 'a' (adding 0x1f carries into bit 7) and not above 'z' (adding
// 0x05 does not); a byte stripped of its high bit is a digit iff adding
// 0x50 carries into bit 7 and adding 0x46 does not. No sum carries out of
// its byte; a byte with its high bit set is neither. Of those bytes, the
// letters have bit 6 set, the digits not (see letterBytes).
func wordBytes(x uint64) uint64 {
	y := (x | fold64) &^ high64
	z := x &^ high64
	letters := (y + 0x1f*ones64) &^ (y + 0x05*ones64)
	digits := (z + 0x50*ones64) &^ (z + 0x46*ones64)
	return (letters | digits) &^ x & high64
}

// letterEnd returns the high bit of the first byte of x, folded to lower
// case (x|fold64), that is no ASCII letter, and maybe of bytes above it:
// the first byte whose high bit is set is exact, the bytes above it are
// not (a sum that carries out of a byte changes the next). A folded byte
// y below 0x80 is a letter iff y+0x1f carries into bit 7 (y ≥ 'a') and
// y+0x05 does not (y ≤ 'z'); a byte from 0x80 up has bit 7 set in y+0x05
// or, if that wraps, not in y+0x1f. A letter's sums carry out of no byte,
// so the bytes below the first that is no letter leave it exact.
func letterEnd(y uint64) uint64 {
	return (^(y + 0x1f*ones64) | (y + 0x05*ones64)) & high64
}

// letterBytes returns the bytes of x with bit 6 set as their high bits:
// among the bytes wordBytes returns, the letters.
func letterBytes(x uint64) uint64 { return x << 1 & high64 }

// asciiWords appends the tokens of the words of ASCII letters and digits
// that text, eight bytes long at least, has from byte i on, and skips the
// bytes between them that end no sentence. It stops at any other byte (a
// mark that may end a sentence, a byte outside ASCII), at a word the
// general path reads (see word: one an apostrophe, a byte outside ASCII or,
// for a number, "," or "." follows; a plural in -ies of eight letters or
// more), or when dst is full, and returns dst and the index of the byte it
// stopped at. It gives every word the flags of a word within a sentence
// (its caller marks a sentence's first).
//
// It calls nothing, so that its state stays in registers. A word is read
// eight bytes at a time: one load gives the bytes of a word of up to seven,
// the byte after them, and, OR-ed with 0x20 (lower case), its stem and the
// stem's hash. Most words are one to seven letters that a space or a mark
// ends: one mask of the bytes that are no letter (see letterEnd) and one
// test of the next byte's kind read them, and a word of eight to fifteen
// letters takes one more of each, on its next eight bytes; any other word
// (digits, sixteen bytes or more, an apostrophe or a byte outside ASCII
// after it) takes the classes of its bytes from wordBytes, eight bytes at
// a time. A word's stem is a prefix of it that the stemmer finds from its
// last eight bytes at most, held in a register with its last letter on
// top: each suffix is one comparison, and a stripped suffix is shifted
// out. (The stemmer never reads a letter more
// than seven from the end, and every byte it reads is the word's.)
func asciiWords(dst []token, text string, i int, sent int32) ([]token, int) {
	// uint(i) < uint(len(text)) tells the compiler that text[i] needs no
	// bounds check (i is never negative).
words:
	for uint(i) < uint(len(text)) && len(dst) < cap(dst) {
		kind := byteKind[text[i]]
		// Spaces and marks that end no sentence, in a loop of their own
		// (a word ends at one, then the common case skips it: this loop
		// reads the rest, as the space in ", ").
		for kind&kWord == 0 {
			if kind&(kSent|kHigh) != 0 {
				break words
			}
			i++
			if uint(i) >= uint(len(text)) {
				break words
			}
			kind = byteKind[text[i]]
		}
		// The word's first eight bytes (fewer at the end of text, the
		// bytes past it read as 0).
		var x uint64
		if i+8 <= len(text) {
			x = load64(text, i)
		} else {
			x = load64(text, len(text)-8) >> (8 * uint(i+8-len(text)) & 63)
		}
		// The common case first: a word of one to seven ASCII letters that
		// a byte other than a digit, an apostrophe or a byte outside ASCII
		// ends. The lowest set bit of e is the high bit of byte k, x's
		// first byte that is no letter (see letterEnd), or bit 63 if bytes
		// 0 to 6 are all letters: e is never 0, so its trailing zeros need
		// no test for 0, and they are 8k+7, so "&56" gives the shift to
		// byte k. after is the kind of byte k. One test of after tells the
		// case: it fails when k is 0 (x's first byte is a digit: its kind
		// is kDigit), when byte 7 is a letter too (k is 7 and after is that
		// letter's kind), and when the word goes on past its letters or
		// ends in a mark the general path reads.
		e := letterEnd(x|fold64) | 1<<63
		z := uint(bits.TrailingZeros64(e))
		after := byteKind[byte(x>>(z&56))]
		j := i + int(z>>3)
		digits := uint64(0)
		// An upper-case word (kUpper) within a sentence has fCap and
		// fCapAny, as wordFlags0 gives it: kind&kUpper times a constant.
		fl := uint16(kind&kUpper) * ((fCap | fCapAny) / uint16(kUpper))
		if after&(kWord|kHigh|kApos) != 0 {
			// A word of eight letters or more (after is a letter's kind
			// only when bytes 0 to 7 are all letters): its next eight
			// bytes, read as x was, for a word of eight to fifteen letters
			// that a byte the common case takes ends. Any other word (a
			// letter, a digit, an apostrophe or a byte outside ASCII after
			// those fifteen) goes on to the general path, which reads it
			// again from its start.
			if after&kLetter != 0 {
				var c uint64
				switch p := i + 8; {
				case p+8 <= len(text):
					c = load64(text, p)
				case p < len(text):
					c = load64(text, len(text)-8) >> (8 * uint(p+8-len(text)) & 63)
				}
				e := letterEnd(c|fold64) | 1<<63
				z := uint(bits.TrailingZeros64(e))
				after = byteKind[byte(c>>(z&56))]
				j = i + 8 + int(z>>3)
			}
			if after&(kWord|kHigh|kApos) != 0 {
				// The general path: the classes of the word's bytes (see
				// wordBytes); end has the high bit of the bytes that are not
				// the word's.
				end := high64 &^ wordBytes(x)
				in := end&-end - 1 // the word's bytes, of x
				letters := letterBytes(x) & in
				digits = in & high64 &^ letters
				// A word of eight bytes or more reads on. c is the eight bytes
				// at j that hold the byte after the word.
				c := x
				j = i
				for end == 0 {
					j += 8
					switch {
					case j+8 <= len(text):
						c = load64(text, j)
					case j < len(text):
						c = load64(text, len(text)-8) >> (8 * uint(j+8-len(text)) & 63)
					default:
						c = 0
					}
					end = high64 &^ wordBytes(c)
					in = end&-end - 1
					l := letterBytes(c) & in
					letters |= l
					digits |= in & high64 &^ l
				}
				k := bits.TrailingZeros64(end) >> 3
				after = byteKind[byte(c>>(8*uint(k)&63))]
				j += k
				num := letters == 0
				if after&(kHigh|kApos) != 0 || num && after&kJoin != 0 {
					break words
				}
				if num {
					fl |= fNum
				}
			}
		}
		// The stem: the word's n first letters, read as stemPlain does.
		n := j - i
		x |= fold64
		if n > 3 && digits == 0 {
			// t: the eight bytes that end with the word's last, from the
			// text, or from x shifted up for a word within eight bytes of
			// the text's start. The bytes below the word's in t are read
			// by no rule: each reads a byte only when n says it is the
			// word's.
			var t uint64
			if j >= 8 {
				t = load64(text, j-8) | fold64
			} else {
				t = x << ((64 - 8*uint(n)) & 63)
			}
			if stemEnds>>(t>>56&63)&1 != 0 {
				// Each rule below reads its suffix's last letter, so the
				// word's last letter tells which may apply: a plural's
				// only where it is s, then the one verb or adverb ending
				// that ends in it. A word in e (the most common here) is
				// tested by the rule for e alone.
				if byte(t>>56) == 's' {
					switch {
					case n > 4 && t>>40 == 'i'|'e'<<8|'s'<<16:
						// A plural in -ies reads as its -y singular
						// ("cities" → "city"), as in stemLetters: in x,
						// for a word of up to seven letters.
						if n >= 8 {
							return dst, i
						}
						n -= 2
						x = x&^(0xff<<(8*uint(n-1)&63)) | 'y'<<(8*uint(n-1)&63)
						t = x << ((64 - 8*uint(n)) & 63)
					case t>>32 == 's'|'s'<<8|'e'<<16|'s'<<24:
						n -= 2
						t <<= 16
					default:
						if b := byte(t >> 48); b != 's' && b != 'u' && b != 'i' {
							n--
							t <<= 8
						}
					}
				}
				switch byte(t >> 56) {
				case 'g':
					if n >= 7 && t>>40 == 'i'|'n'<<8|'g'<<16 {
						n -= 3
						t <<= 24
						if doubled(t) {
							n--
							t <<= 8
						}
					}
				case 'd':
					if n >= 5 && t>>48 == 'e'|'d'<<8 && byte(t>>40) != 'e' {
						n -= 2
						t <<= 16
						if doubled(t) {
							n--
							t <<= 8
						}
					}
				case 'y':
					if n >= 6 && t>>48 == 'l'|'y'<<8 {
						n -= 2
						t <<= 16
					}
				}
				if n > 3 && t>>56 == 'e' {
					n--
				}
			}
		}
		// The stem's hash, as hashStem computes it: the blocks before its
		// last one, from the text, then its last one to eight bytes,
		// zero-padded: x's low n bytes for a stem of up to eight, the
		// stem's last n bytes, loaded and shifted down, for a longer one.
		// lowBytes[n&7] keeps the stem's n bytes, 1 to 8 (8&7 is 0, and
		// lowBytes[0] keeps all eight): a load where two shifts would tie
		// up CX.
		h := hashSeed ^ uint64(n)
		if n > 8 {
			p := i
			for ; n > 8; n -= 8 {
				h = hashMix(h, load64(text, p)|fold64)
				p += 8
			}
			x = (load64(text, p+n-8) | fold64) >> ((64 - 8*uint(n)) & 63)
		}
		h = hashMix(h, x&lowBytes[n&7])
		dst = dst[:len(dst)+1]
		tok := &dst[len(dst)-1]
		tok.start, tok.end, tok.hash, tok.w, tok.sent, tok.flags = int32(i), int32(j), h, 0, sent, fl
		i = j
		// A branch, not arithmetic on after: the next word's loads wait
		// for i, and the processor predicts a branch (rarely taken) but
		// must wait for after's load to do the arithmetic.
		if after&kSent == 0 {
			i++ // the byte after the word ends no sentence (or is past the end)
		}
	}
	return dst, min(i, len(text))
}

// lowBytes[n] has the low n bytes set, for n = 1 to 7, and lowBytes[0] all
// eight (see asciiWords: the index is a length from 1 to 8, modulo 8).
var lowBytes = [8]uint64{^uint64(0), 1<<8 - 1, 1<<16 - 1, 1<<24 - 1, 1<<32 - 1, 1<<40 - 1, 1<<48 - 1, 1<<56 - 1}

// doubled reports whether t's top two bytes are the same consonant other
// than l, s and z ("running" → "run").
func doubled(t uint64) bool {
	a := byte(t >> 56)
	return a == byte(t>>48) && a != 'l' && a != 's' && a != 'z'
}

// stemEnds has bit c&63 set for each letter c a suffix the stemmer strips
// can end in: s, g, d, y and e. (A shift of a 64-bit register by c&63
// needs no AND: the processor masks the count so.)
const stemEnds uint64 = 1<<('s'&63) | 1<<('g'&63) | 1<<('d'&63) | 1<<('y'&63) | 1<<('e'&63)

// stemPlain strips the suffixes of stem from a word of ASCII lower-case
// letters and returns the stem's length; ok is false, and the word left
// to its caller, for a plural in -ies (see stemLetters). asciiWords has
// the same rules, on the word's last eight bytes in a register: a change
// here is one there (TestASCIIWordsMatchesStemLetters holds it to
// stemLetters).
func stemPlain(w []byte) (n int, ok bool) {
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

// lookup gives each token the flags, the canonical hash and, with a
// vocabulary, the weight the vocabulary has for its stem. It runs after
// the text is read, in a loop of its own: each lookup is a read from a
// table mostly outside the processor's caches, and a short loop of
// independent reads lets the processor wait for several at once, where
// reads interleaved with the reading of the text wait one at a time.
func (tz *tokenizer) lookup(toks []token) {
	switch {
	case tz.vocab == nil:
		for i := range toks {
			t := &toks[i]
			if t.flags&fLooked != 0 {
				t.flags &^= fLooked
				continue
			}
			if c, ok := canonOf[t.hash]; ok {
				t.hash = c
			}
			t.flags |= wordFlags(t.hash)
		}
	case len(tz.vocab.tab.slots) == 0:
		// A table without slots reads the lexicon's maps (see vocabulary.lookup).
		for i := range toks {
			t := &toks[i]
			if t.flags&fLooked != 0 {
				t.flags &^= fLooked
				continue
			}
			f, w, c := tz.vocab.lookup(t.hash)
			t.flags |= f | fWeighed
			t.w = w
			if c != 0 {
				t.hash = c
			}
		}
	default:
		tab := &tz.vocab.tab
		lookupTable(toks, tab.slots, tab.shift, tab.weights, tab.canons)
	}
}

// lookupTable is lexTable.get written out for each token of toks but
// those marked fLooked. It works on its arguments alone, so that the loop
// keeps them in registers.
func lookupTable(toks []token, slots []lexSlot, shift uint, weights []float64, canons []uint64) {
	for i := range toks {
		t := &toks[i]
		if t.flags&fLooked != 0 {
			t.flags &^= fLooked
			continue
		}
		val, c := findSlot(slots, shift, t.hash)
		t.flags |= uint16(val) | fWeighed
		t.w = weights[val>>lexWeight]
		if c != 0 {
			t.hash = canons[c]
		}
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
	if tz.vocab != nil {
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

// abbrevs are the words a full stop after which ends no sentence: titles,
// abbreviations and the letters of "e.g.", "i.e.", "a.m." and "U.S.".
// ("approx" is longer than isAbbrev looks, and so is never found.)
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
