package lexical

import (
	"slices"
	"strings"
	"sync"

	"github.com/ragtriage/ragtriage/guard/lexical/internal/wordnet"
)

// normHash returns the hash a word gets from the tokenizer: folded, stemmed.
func normHash(word string) uint64 {
	b := make([]byte, 0, len(word))
	for _, r := range word {
		b = append(b, string(foldRune(r))...)
	}
	return hashBytes(b[:stem(b)])
}

var hNot = normHash("not")

const stopList = `a an the and or but if then else of to in on at by for with from into onto upon about as than
is are was were be been being am do does did doing done have has had having will would shall should can could
may might must it its itself this that these those there here he she they them his her hers their theirs him
we us our ours you your yours i me my mine who whom whose which what when where why how also too very just
so such only own same other another some any each every all both few more most much many one's s t
up down out over under again further once off while during before after above below between through
because until against among per via within without along across around toward towards near
yes well still even ever yet already often usually sometimes always never not no nor none nobody nothing
neither n't cannot can't won't don't doesn't didn't isn't aren't wasn't weren't hasn't haven't hadn't
get got make made take took say said like known called named become became`

const negationList = `not no never none nobody nothing neither nor cannot without n't nowhere`

// negPolarityList are content words that deny what follows them as a
// negation does ("excluded from returns" = "cannot be returned").
const negPolarityList = `except excluding exclude excluded prohibit prohibited forbid forbidden ban banned unable lack lacks`

const hedgeList = `unclear uncertain unknown depends depend depending might may possibly perhaps likely unlikely
some many myth misconception actually however although but no not nothing never comment sure debate disputed
varies vary evidence scientific studies`

// wordFlagMap holds the flags of every word that has any: function words,
// negations, hedges, and (filled by loadLexicon) words with antonyms or
// synonyms. Read it only after loadLexicon.
var wordFlagMap = func() map[uint64]uint16 {
	m := map[uint64]uint16{}
	for _, w := range strings.Fields(stopList) {
		m[normHash(w)] |= fStop
	}
	for _, w := range strings.Fields(negationList) {
		m[normHash(w)] |= fNeg | fStop
	}
	for _, w := range strings.Fields(negPolarityList) {
		m[normHash(w)] |= fNeg
	}
	for _, w := range strings.Fields(hedgeList) {
		m[normHash(w)] |= fHedge
	}
	return m
}()

func wordFlags(h uint64) uint16 { return wordFlagMap[h] }

// antonymPairs supplement WordNet's antonyms with swaps that flip a claim in
// the texts RAG answers come from but that WordNet does not record as
// antonyms (policy words such as "allowed"/"prohibited", "refundable"/
// "nonrefundable", or comparatives).
var antonymPairs = [][2]string{
	{"before", "after"}, {"increase", "decrease"}, {"increased", "decreased"}, {"rise", "fall"},
	{"higher", "lower"}, {"more", "less"}, {"larger", "smaller"}, {"largest", "smallest"},
	{"bigger", "smaller"}, {"biggest", "smallest"}, {"first", "last"}, {"earlier", "later"},
	{"earliest", "latest"}, {"older", "younger"}, {"oldest", "youngest"}, {"north", "south"},
	{"east", "west"}, {"northern", "southern"}, {"eastern", "western"}, {"win", "lose"},
	{"won", "lost"}, {"winner", "loser"}, {"allowed", "forbidden"}, {"allowed", "prohibited"},
	{"legal", "illegal"}, {"true", "false"}, {"possible", "impossible"}, {"refundable", "nonrefundable"},
	{"include", "exclude"}, {"included", "excluded"}, {"accept", "reject"}, {"accepted", "rejected"},
	{"open", "closed"}, {"start", "end"}, {"maximum", "minimum"}, {"max", "min"}, {"above", "below"},
	{"inside", "outside"}, {"internal", "external"}, {"success", "failure"}, {"succeeded", "failed"},
	{"positive", "negative"}, {"gain", "loss"}, {"profit", "loss"}, {"enable", "disable"},
	{"enabled", "disabled"}, {"always", "never"}, {"all", "none"}, {"male", "female"},
	{"husband", "wife"}, {"minority", "majority"}, {"strong", "weak"}, {"cheaper", "expensive"},
	{"fast", "slow"}, {"faster", "slower"}, {"hot", "cold"}, {"warm", "cold"}, {"young", "old"},
	{"domestic", "foreign"}, {"upper", "lower"}, {"entry", "exit"}, {"buy", "sell"}, {"bought", "sold"},
	{"import", "export"}, {"arrive", "depart"}, {"born", "died"}, {"mandatory", "optional"},
	{"required", "optional"}, {"public", "private"}, {"free", "paid"},
}

// antonymOf maps a word's (canonical) hash to the hashes of its antonyms:
// WordNet's direct antonyms and antonymPairs. Filled by loadLexicon.
var antonymOf map[uint64][]uint64

// questionType is the kind of answer a question asks for.
type questionType uint8

const (
	qOther questionType = iota
	qWhen
	qHowMany // how many, how much, what number, what percentage
	qYesNo
	qWho
	qWhere
	qWhich
	qWhy
	qHow
)

var auxStarts = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "do": true, "does": true, "did": true, "can": true,
	"could": true, "will": true, "would": true, "should": true, "has": true, "have": true, "had": true,
	"am": true, "may": true, "might": true, "must": true, "shall": true,
}

// Lexical knowledge from WordNet 3.0 (see internal/wordnet): canonOf maps the
// stem hash of an inflected or derived form to that of its base ("wrote",
// "written" → "write"; "refundable" → "refund"), synonymOf a base to its
// synonyms' bases (the first senses only), and antonymOf gains WordNet's
// antonyms. They are built once, on first use (about 30 ms and a few MB), so
// that importing the package costs nothing.
var (
	lexOnce   sync.Once
	canonOf   map[uint64]uint64
	synonymOf map[uint64][]uint64
	// canonStem names the base stem of each canonOf entry, for Stems
	// (offline tools) only.
	canonStem map[uint64]string
)

// loadLexicon builds the WordNet-derived tables and the default vocabulary.
// Every entry point (New, Stems, the tokenizer) calls it.
func loadLexicon() { lexOnce.Do(buildLexicon) }

// wnEntry is one WordNet entry as buildLexicon reads it, with the stem
// hashes of its word and base.
type wnEntry struct {
	word, base string
	syns, ants []string
	wh, bh     uint64
}

func buildLexicon() {
	// One pass over a table parsed for the occasion; it is garbage once
	// the hash tables below are built.
	entries := make([]wnEntry, 0, 1<<17) // the table has about 102,000 keys
	var sh stemHasher
	wordnet.Scan(func(word, base string, syns, ants []string) {
		entries = append(entries, wnEntry{word: word, base: base, syns: syns, ants: ants, wh: sh.hash(word), bh: sh.hash(base)})
	})
	buildCanon(entries, &sh)
	buildRelations(entries, &sh)
	v, err := parseVocab(vocabText)
	if err != nil {
		panic(err)
	}
	defaultVocab = v
}

// stemHasher is normHash for the WordNet table's words (lower-case ASCII
// letters), without allocating.
type stemHasher struct{ buf []byte }

func (s *stemHasher) hash(w string) uint64 {
	s.buf = append(s.buf[:0], w...)
	return hashBytes(s.buf[:stem(s.buf)])
}

// stem returns the stem of w as a string.
func (s *stemHasher) stem(w string) string {
	s.buf = append(s.buf[:0], w...)
	return string(s.buf[:stem(s.buf)])
}

// buildCanon fills canonOf, the base of each inflected or derived form, and
// canonStem, the base's stem. A form that is a lemma of its own somewhere
// (it is some synset's member: "found" = establish, "saw" = proverb) keeps
// its identity rather than reading as another word's inflection ("find");
// so does a form whose stem is some lemma's stem ("leaves" and "leave").
func buildCanon(entries []wnEntry, sh *stemHasher) {
	canonOf = map[uint64]uint64{}
	canonStem = map[uint64]string{}
	conflict := map[uint64]bool{}
	lemma := make(map[string]bool, len(entries))
	baseStem := make(map[uint64]bool, len(entries))
	for i := range entries {
		e := &entries[i]
		if e.base == e.word {
			lemma[e.word] = true
		}
		for _, s := range e.syns {
			lemma[s] = true
		}
		baseStem[e.bh] = true
	}
	for i := range entries {
		e := &entries[i]
		wh, bh := e.wh, e.bh
		if (e.word != e.base && lemma[e.word]) || wh == bh || baseStem[wh] || conflict[wh] || wordFlagMap[wh]&fStop != 0 || wordFlagMap[bh]&fStop != 0 {
			continue
		}
		if old, ok := canonOf[wh]; ok && old != bh {
			// Two words with one stem and different bases ("leaves":
			// leaf, leave): leave the stem alone.
			delete(canonOf, wh)
			conflict[wh] = true
			continue
		}
		canonOf[wh] = bh
	}
	for i := range entries {
		e := &entries[i]
		if c, ok := canonOf[e.wh]; ok && c == e.bh {
			if _, done := canonStem[e.wh]; !done {
				canonStem[e.wh] = sh.stem(e.base)
			}
		}
	}
}

// canon returns the base of the form with stem hash h (h itself when it is
// no known form).
func canon(h uint64) uint64 {
	if c, ok := canonOf[h]; ok {
		return c
	}
	return h
}

// addAntonym records b as an antonym of a.
func addAntonym(a, b uint64) {
	if a == b || slices.Contains(antonymOf[a], b) {
		return
	}
	antonymOf[a] = append(antonymOf[a], b)
	wordFlagMap[a] |= fAnt
}

// buildRelations fills synonymOf and antonymOf from the WordNet entries and
// antonymPairs, between bases, function words left out, and flags the
// words that have some (fSynSet, fAnt). Run it after buildCanon.
func buildRelations(entries []wnEntry, sh *stemHasher) {
	synonymOf = map[uint64][]uint64{}
	antonymOf = map[uint64][]uint64{}
	for i := range entries {
		e := &entries[i]
		if wordFlagMap[e.wh]&fStop != 0 {
			continue
		}
		h := canon(e.wh)
		for _, s := range e.syns {
			syn := canon(sh.hash(s))
			if syn != h && wordFlagMap[syn]&fStop == 0 && !slices.Contains(synonymOf[h], syn) {
				synonymOf[h] = append(synonymOf[h], syn)
				wordFlagMap[h] |= fSynSet
			}
		}
		for _, a := range e.ants {
			ah := canon(sh.hash(a))
			if wordFlagMap[ah]&fStop == 0 {
				addAntonym(h, ah)
				addAntonym(ah, h)
			}
		}
	}
	for _, p := range antonymPairs {
		a, b := canon(normHash(p[0])), canon(normHash(p[1]))
		addAntonym(a, b)
		addAntonym(b, a)
	}
}
