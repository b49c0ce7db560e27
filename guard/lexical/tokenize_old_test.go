package lexical

import (
	"unicode"
	"unicode/utf8"
)

// This file freezes the tokenizer as it was at 5f2951f (before the
// word-at-a-time scan): tokenize_diff_test.go holds the current one to it,
// token for token and bit for bit, on every development text.

func oldHashBytes(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

func oldHashString(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// oldFoldRune lower-cases r and strips the accent of common Latin letters.
func oldFoldRune(r rune) rune {
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

func oldIsWordRune(r rune) bool {
	return r < utf8.RuneSelf && (('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
}

func oldIsApostrophe(r rune) bool { return r == '\'' || r == '’' || r == 'ʼ' }

// oldStem applies light suffix stripping to an ASCII lower-case word in place
// and returns the stem's length: plural -s/-es/-ies, -ing, -ed, -ly, and a
// final -e, so that "based", "basing", "base" and "bases" share a stem.
// Words with digits or non-ASCII letters are left whole.
func oldStem(b []byte) int {
	for _, c := range b {
		if c >= utf8.RuneSelf || ('0' <= c && c <= '9') {
			return len(b)
		}
	}
	return oldStemLetters(b)
}

// oldStemLetters is oldStem for a word of ASCII lower-case letters only. A plural
// in -ies reads as its -y singular ("cities" → "city", written in place),
// then as any other word.
func oldStemLetters(b []byte) int {
	if n := len(b); n > 4 && b[n-3] == 'i' && b[n-2] == 'e' && b[n-1] == 's' {
		b[n-3] = 'y'
		b = b[:n-2]
	}
	n, _ := oldStemPlain(b)
	return n
}

// oldAsciiTab maps an ASCII letter or digit to itself lower-cased in its low
// byte and its class (oldClsLower, oldClsUpper or oldClsDigit) in its high byte, and
// every other byte to 0: one load per byte of a word.
var oldAsciiTab = func() (t [256]uint16) {
	for c := range 128 {
		switch {
		case 'a' <= c && c <= 'z':
			t[c] = uint16(oldClsLower)<<8 | uint16(c)
		case 'A' <= c && c <= 'Z':
			t[c] = uint16(oldClsUpper)<<8 | uint16(c+'a'-'A')
		case '0' <= c && c <= '9':
			t[c] = uint16(oldClsDigit)<<8 | uint16(c)
		}
	}
	return t
}()

// oldTokenize appends the tokens of text to dst. Possessive 's is dropped;
// "n't" becomes a separate negation token "not"; hyphens and other
// punctuation split words. Sentence indices come from sentence boundaries
// found in the same pass (see sentenceEnd). ASCII text is read byte by
// byte; other text rune by rune.
func (tz *tokenizer) oldTokenize(dst []token, text string, sents []span) ([]token, []span) {
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
			e := oldAsciiTab[c]
			if e == 0 {
				// Only a line feed, full stop, ! or ? can end a sentence.
				if c == '\n' || c == '.' || c == '!' || c == '?' {
					if end, ok := oldSentenceEnd(text, i, rune(c), 1, dst); ok {
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
				if h, j, class, ok := oldAsciiWord(text, i, room); ok {
					// The common case, read on a path of its own.
					fl := oldWordFlags0(class, upper, atSentStart)
					dst = append(dst, token{start: int32(i), end: int32(j), hash: h, sent: sent, flags: fl})
					i = j
					inSent++
					atSentStart = false
					continue
				}
			}
			k, i, class, other = oldFoldWord(text, i, room, 0, 0)
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !oldIsWordRune(r) {
				// No rune outside ASCII ends a sentence (see sentenceEnd).
				i += size
				continue
			}
			upper = unicode.IsUpper(r)
			k, i, class, other = oldFoldWord(text, i, room, 0, 0)
		}
		buf, end, next, neg := room[:k], i, i, false
		if next < len(text) && (text[next] == '\'' || text[next] >= utf8.RuneSelf) {
			buf, end, next, neg = oldApostrophe(text, buf, end, next)
		}
		i = next
		// The word's oldStem and its hash. The vocabulary's flags, canonical
		// hash and weight come later, for all the text's words at once
		// (see lookup).
		var n int
		if class&oldClsDigit == 0 && !other {
			n = oldStemLetters(buf) // letters only: oldStem needs no check
		} else {
			n = oldStem(buf)
		}
		h := oldHashBytes(buf[:n])
		if tz.keep {
			if b, ok := canonStem[h]; ok {
				tz.stems = append(tz.stems, b)
			} else {
				tz.stems = append(tz.stems, string(buf[:n]))
			}
		}
		fl := oldWordFlags0(class, upper, atSentStart)
		if other {
			fl &^= fNum
		}
		dst = append(dst, token{start: int32(start), end: int32(end), hash: h, sent: sent, flags: fl})
		inSent++
		atSentStart = false
		if neg {
			dst = tz.oldAppendNot(dst, end, i, sent)
		}
	}
	if inSent > 0 {
		sents = append(sents, span{sentStart, len(text)})
	}
	tz.oldLookup(dst[first:])
	return dst, sents
}

// oldWordFlags0 returns the flags a word has before the vocabulary is read:
// a number when its ASCII characters (class) are digits only, a capital
// when it starts upper-case, an initial at a sentence's start.
func oldWordFlags0(class uint8, upper, atSentStart bool) uint16 {
	var fl uint16
	if class == oldClsDigit {
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

// oldAsciiWord reads the word of ASCII letters and digits that starts at byte
// i of text when nothing makes it a case apart: it returns the hash of its
// stem, the index of the byte after it, its class bits (see asciiTab), and
// ok. ok is false, and the word is left to tokenize's general path, when
// the word goes on past its ASCII run (a letter outside ASCII, digits
// joined by "," or "."), an oldApostrophe follows it ("n't", "'s"), or its
// oldStem is no prefix of its letters (a plural in -ies). A word of lower-case
// letters is stemmed and hashed where it stands, without a copy.
func oldAsciiWord(text string, i int, room []byte) (h uint64, j int, class uint8, ok bool) {
	tab := &oldAsciiTab
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
		if c >= utf8.RuneSelf || c == '\'' || class == oldClsDigit && (c == ',' || c == '.') {
			return 0, 0, 0, false
		}
	}
	w := text[i:j]
	if class == oldClsLower {
		n, ok := oldStemString(w)
		if !ok {
			return 0, 0, 0, false
		}
		return oldHashString(w[:n]), j, class, true
	}
	if len(w) > len(room) {
		return 0, 0, 0, false
	}
	b := room[:len(w)]
	for x := 0; x < len(w); x++ {
		b[x] = byte(tab[w[x]])
	}
	var n int
	if class&oldClsDigit == 0 {
		n = oldStemLetters(b)
	} else {
		n = len(b) // oldStem leaves words with digits whole
	}
	return oldHashBytes(b[:n]), j, class, true
}

// oldStemString is oldStemLetters for a word of ASCII lower-case letters read in
// place. ok is false for a plural in -ies, whose oldStem ends in a letter the
// word does not have there ("ies" → "y"): oldStemLetters reads that one.
func oldStemString(w string) (n int, ok bool) { return oldStemPlain(w) }

// oldStemPlain strips the suffixes of oldStem from a word of ASCII lower-case
// letters and returns the stem's length; ok is false, and the word left
// to its caller, for a plural in -ies (see stemLetters).
func oldStemPlain[W ~string | ~[]byte](w W) (n int, ok bool) {
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

// oldLookup gives each token the flags, the canonical hash and, when
// tz.weights is set, the weight the vocabulary has for its stem. It runs
// after the text is read, in a loop of its own: each oldLookup is a read from
// a table mostly outside the processor's caches, and a short loop of
// independent reads lets the processor wait for several at once, where
// reads interleaved with the reading of the text wait one at a time.
func (tz *tokenizer) oldLookup(toks []token) {
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
			f, wt, c := oldVocabLookup(tz.vocab, t.hash)
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
			if !oldMayHave(tab, t.hash) {
				continue
			}
			f, _, _, c := oldGet(tab, t.hash)
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

// oldFoldWord goes on writing the word of text that reaches byte i into room,
// folded (see foldRune), k bytes of it written already with the class
// bits class (see asciiTab). It returns the folded length, the index of the byte after
// the word, the class bits of the word's ASCII characters, and whether it
// read a character outside ASCII. Digits joined by "," or "." stay one
// number: 1,234.5.
func oldFoldWord(text string, i int, room []byte, k int, class uint8) (int, int, uint8, bool) {
	other := false
	for {
		// A run of ASCII letters and digits.
		for i < len(text) {
			e := oldAsciiTab[text[i]]
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
			if class == oldClsDigit && !other && (c == ',' || c == '.') && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' {
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
		if !oldIsWordRune(r) {
			break
		}
		other = true
		k = len(utf8.AppendRune(room[:k], oldFoldRune(r)))
		i += size
	}
	return k, i, class, other
}

// oldApostrophe reads what follows a word (buf, ending at byte end) at byte i:
// a possessive 's is skipped, and an "n't" is cut from the word and read as
// a negation (neg). Any other oldApostrophe ("o'clock") ends the word like any
// other mark. It returns the word, its end, the byte to read from next, and
// neg.
func oldApostrophe(text string, buf []byte, end, i int) ([]byte, int, int, bool) {
	if i >= len(text) {
		return buf, end, i, false
	}
	r, size := rune(text[i]), 1
	if r >= utf8.RuneSelf {
		r, size = utf8.DecodeRuneInString(text[i:])
	}
	if !oldIsApostrophe(r) {
		return buf, end, i, false
	}
	rest := text[i+size:]
	switch {
	case len(rest) >= 1 && (rest[0] == 's' || rest[0] == 'S') && (len(rest) == 1 || !oldIsWordByte(rest[1])):
		i += size + 1
	case len(rest) >= 1 && (rest[0] == 't' || rest[0] == 'T') && (len(rest) == 1 || !oldIsWordByte(rest[1])) &&
		len(buf) > 1 && buf[len(buf)-1] == 'n':
		return buf[:len(buf)-1], end - 1, i + size + 1, true
	}
	return buf, end, i, false
}

// oldAppendNot appends the negation token "not" read from the "n't" at bytes
// [start, end).
func (tz *tokenizer) oldAppendNot(dst []token, start, end int, sent int32) []token {
	if tz.keep {
		tz.stems = append(tz.stems, "not")
	}
	// Its flags are known: oldLookup leaves it as it is (fLooked).
	nt := token{start: int32(start), end: int32(end), hash: hNot, sent: sent, flags: fStop | fNeg | fLooked}
	if tz.weights {
		nt.flags |= fWeighed // a function word: weight 0
	}
	return append(dst, nt)
}

func oldIsWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= utf8.RuneSelf
}

// oldSentenceEnd reports whether the punctuation rune r at text[i] ends a
// sentence, and where the next sentence starts. A newline always ends one; a
// full stop does when it is followed by a space and an upper-case letter, a
// digit or a quote, or by the end of the text — unless the word before it is
// an abbreviation or an initial. A full stop directly followed by an
// upper-case letter after a lower-case word of three or more letters also
// ends one ("century.First"), as found in scraped text.
func oldSentenceEnd(text string, i int, r rune, size int, toks []token) (int, bool) {
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
			if oldIsAbbrev(text[last.start:last.end]) {
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

func oldIsAbbrev(w string) bool {
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

func oldVocabLookup(v *vocabulary, h uint64) (flags uint16, weight float64, canon uint64) {
	flags, w, known, canon := oldGet(&v.tab, h)
	switch {
	case flags&fStop != 0:
		return flags, 0, canon
	case known:
		return flags, w, canon
	}
	return flags, v.unknown, canon
}

func oldMayHave(t *lexTable, h uint64) bool {
	return len(t.slots) == 0 || t.bloom[h>>52]&(1<<(h>>46&63)) != 0
}

func oldGet(t *lexTable, h uint64) (flags uint16, idf float64, known bool, canon uint64) {
	if len(t.slots) == 0 {
		loadLexiconMaps()
		return wordFlagMap[h], 0, false, canonOf[h]
	}
	if t.bloom[h>>52]&(1<<(h>>46&63)) == 0 {
		return 0, 0, false, 0
	}
	mask := len(t.slots) - 1
	for j := int((h * 0x9e3779b97f4a7c15) >> t.shift); ; j = (j + 1) & mask {
		s := &t.slots[j]
		if s.val == 0 {
			return 0, 0, false, 0
		}
		if s.key == h {
			if s.val&lexKnown != 0 {
				return uint16(s.val), t.idfs[s.val>>18], true, t.canons[s.canon]
			}
			return uint16(s.val), 0, false, t.canons[s.canon]
		}
	}
}

const (
	oldClsLower uint8 = 1 << iota
	oldClsUpper
	oldClsDigit
)
