package lexical

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// normHash returns the hash a word gets from the tokenizer: folded, stemmed.
func normHash(word string) uint64 {
	b := make([]byte, 0, len(word))
	for _, r := range word {
		b = append(b, string(foldRune(r))...)
	}
	return hashStem(b[:stem(b)])
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

// baseWordFlags returns the flags the word lists above give: function
// words, negations, negative-polarity words and hedges. The generator of
// lexicon.tsv starts from them.
func baseWordFlags() map[uint64]uint16 {
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
}

// wordFlags returns the flags of the word with stem hash h, for the
// tokenizer without a vocabulary (Stems).
func wordFlags(h uint64) uint16 {
	loadLexiconMaps()
	return wordFlagMap[h]
}

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

// Lexical knowledge from WordNet 3.0 (see internal/wordnet), compiled into
// lexicon.tsv: synonymOf maps a base's stem hash to its synonyms' bases (the
// first senses only), antonymOf to its antonyms' bases (WordNet's direct
// antonyms and antonymPairs). Each word's flags and base go straight into
// the vocabulary's lookup tables (see vocabulary.build). They are built once, on
// first use, from the compiled table read in place (a few milliseconds), so
// that importing the package costs nothing.
var (
	lexOnce   sync.Once
	synonymOf relTable
	antonymOf relTable
)

// relTable maps a stem hash to a list of stem hashes (a word's synonyms or
// antonyms). It holds no pointers but its three slices, so the garbage
// collector never walks it, and it is built in a few passes over arrays
// where a map of slices took a third of the lexicon's start-up: open
// addressing on the keys, each slot the span of its list in edges.
type relTable struct {
	keys  []uint64
	spans []relSpan
	edges []uint64
	shift uint
	n     int
}

// relSpan is where a key's list lies in relTable.edges.
type relSpan struct{ off, n uint32 }

// newRelTable returns a table sized for n keys whose lists lie in edges.
func newRelTable(n int, edges []uint64) relTable {
	bits := uint(4)
	for 1<<bits < 2*n {
		bits++
	}
	return relTable{keys: make([]uint64, 1<<bits), spans: make([]relSpan, 1<<bits), edges: edges, shift: 64 - bits}
}

func (t *relTable) slot(h uint64) int { return int((h * 0x9e3779b97f4a7c15) >> t.shift) }

// add sets h's list to edges[off:off+n]. Key 0 is never a stem's hash
// (see hashMix): 0 marks an empty slot.
func (t *relTable) add(h uint64, off, n int) {
	mask := len(t.keys) - 1
	j := t.slot(h)
	for t.keys[j] != 0 && t.keys[j] != h {
		j = (j + 1) & mask
	}
	if t.keys[j] == 0 {
		t.n++
	}
	t.keys[j], t.spans[j] = h, relSpan{uint32(off), uint32(n)}
}

// of returns h's list, nil when it has none. The list is shared: callers
// only read it.
func (t *relTable) of(h uint64) []uint64 {
	if len(t.keys) == 0 || h == 0 {
		return nil
	}
	mask := len(t.keys) - 1
	for j := t.slot(h); t.keys[j] != 0; j = (j + 1) & mask {
		if t.keys[j] == h {
			sp := t.spans[j]
			return t.edges[sp.off : sp.off+sp.n : sp.off+sp.n]
		}
	}
	return nil
}

// asMap returns the table as a map (for tests).
func (t *relTable) asMap() map[uint64][]uint64 {
	m := make(map[uint64][]uint64, t.n)
	for j, h := range t.keys {
		if h != 0 {
			sp := t.spans[j]
			m[h] = t.edges[sp.off : sp.off+sp.n]
		}
	}
	return m
}

// The same knowledge as maps, for the tokenizer without a vocabulary (Stems)
// and for tests. canonOf maps the stem hash of an inflected or derived form
// to that of its base ("wrote", "written" → "write"; "refundable" →
// "refund"). canonStem names that base's stem. wordFlagMap holds the flags
// of every word that has any: function words, negations, hedges, and words
// with antonyms or synonyms. loadLexiconMaps builds them on first use.
var (
	mapsOnce    sync.Once
	canonOf     map[uint64]uint64
	canonStem   map[uint64]string
	wordFlagMap map[uint64]uint16
)

// lexiconText is the compiled lexicon: WordNet's bases, synonyms and
// antonyms and the word lists above, as stems. TestLexiconUpToDate derives
// it again from internal/wordnet and the lists, and -update-lexicon
// rewrites it:
//
//	go test ./guard/lexical -run TestLexiconUpToDate -update-lexicon
//
// Comment lines start with "#"; the line "#! flags=F canon=C syn=S ant=A
// edges=E" sizes the tables. Then one line per stem, sorted, five
// tab-separated fields:
//
//	stem <TAB> flags <TAB> base <TAB> synonyms <TAB> antonyms
//
// flags is the decimal word-flag set (0: none); base is the stem the word
// reads as (empty: itself); synonyms and antonyms are space-separated stems,
// in the order the judges read them.
//
//go:embed lexicon.tsv
var lexiconText string

// loadLexicon builds the lexicon tables and the default vocabulary. Every
// entry point (New, Stems, the tokenizer) calls it.
func loadLexicon() { lexOnce.Do(buildLexicon) }

// loadLexiconMaps builds canonOf, canonStem and wordFlagMap.
func loadLexiconMaps() { mapsOnce.Do(buildLexiconMaps) }

// buildLexicon reads the compiled lexicon and, on a goroutine it waits
// for, the vocabulary's lines, then builds the vocabulary's tables.
func buildLexicon() {
	v := &vocabulary{}
	var words []vocabWord
	var werr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		words, werr = v.readWords(vocabText)
	}()
	entries, err := readLexicon(lexiconText)
	<-done
	if err != nil {
		panic("lexical: embedded lexicon: " + err.Error())
	}
	if werr != nil {
		panic(werr)
	}
	v.build(words, entries)
	defaultVocab = v
}

func buildLexiconMaps() {
	var n lexCounts
	readLexHeader(lexiconText, &n)
	wordFlagMap = make(map[uint64]uint16, n.flags)
	canonOf = make(map[uint64]uint64, n.canon)
	canonStem = make(map[uint64]string, n.canon)
	err := scanLexicon(lexiconText, func(stem string, flags uint16, base, _, _ string) {
		h := hashStem(stem)
		if flags != 0 {
			wordFlagMap[h] = flags
		}
		if base != "" {
			canonOf[h] = hashStem(base)
			canonStem[h] = base
		}
	})
	if err != nil {
		panic("lexical: embedded lexicon: " + err.Error())
	}
}

// lexEntry is one stem of the compiled lexicon: its hash, its flags, and
// the hash of the base it reads as (0: itself).
type lexEntry struct {
	h, canon uint64
	flags    uint16
}

// lexCounts are the sizes the "#!" header line of lexicon.tsv gives.
type lexCounts struct{ flags, canon, syn, ant, edges int }

// readLexicon fills synonymOf and antonymOf from the compiled table and
// returns its entries, in table order. Stems are hashed as the tokenizer
// hashes them.
func readLexicon(text string) ([]lexEntry, error) {
	var n lexCounts
	readLexHeader(text, &n)
	entries := make([]lexEntry, 0, n.flags+n.canon)
	edges := make([]uint64, 0, n.edges) // the shared backing of the lists
	syn, ant := newRelTable(n.syn, nil), newRelTable(n.ant, nil)
	err := scanLexicon(text, func(stem string, flags uint16, base, syns, ants string) {
		h := hashStem(stem)
		e := lexEntry{h: h, flags: flags}
		if base != "" {
			e.canon = hashStem(base)
		}
		entries = append(entries, e)
		if syns != "" {
			a := len(edges)
			edges = appendStemHashes(edges, syns)
			syn.add(h, a, len(edges)-a)
		}
		if ants != "" {
			a := len(edges)
			edges = appendStemHashes(edges, ants)
			ant.add(h, a, len(edges)-a)
		}
	})
	// The header sizes edges; a table without one grew it, so the lists
	// are set on the final backing array.
	syn.edges, ant.edges = edges, edges
	synonymOf, antonymOf = syn, ant
	return entries, err
}

// scanLexicon calls fn with the fields of every line of the compiled table.
// The strings point into text.
func scanLexicon(text string, fn func(stem string, flags uint16, base, syns, ants string)) error {
	for lineNo := 1; text != ""; lineNo++ {
		var line string
		line, text = cut(text, '\n')
		if line == "" || line[0] == '#' {
			continue
		}
		stem, rest := cut(line, '\t')
		flagField, rest := cut(rest, '\t')
		base, rest := cut(rest, '\t')
		syns, ants := cut(rest, '\t')
		f, ok := parseFlags(flagField)
		if stem == "" || !ok {
			return fmt.Errorf("line %d: want stem, flags, base, synonyms, antonyms", lineNo)
		}
		fn(stem, f, base, syns, ants)
	}
	return nil
}

// parseFlags parses a decimal uint16 (strconv.ParseUint without the error
// value, which allocates).
func parseFlags(s string) (uint16, bool) {
	if s == "" || len(s) > 5 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return uint16(n), n <= 0xffff
}

// appendStemHashes appends the hash of each space-separated stem of list.
func appendStemHashes(dst []uint64, list string) []uint64 {
	for list != "" {
		var s string
		s, list = cut(list, ' ')
		if s != "" {
			dst = append(dst, hashStem(s))
		}
	}
	return dst
}

// readLexHeader reads the counts of the "#!" line among the comment lines at
// the top of text into n.
func readLexHeader(text string, n *lexCounts) {
	for text != "" && text[0] == '#' {
		var line string
		line, text = cut(text, '\n')
		if !strings.HasPrefix(line, "#!") {
			continue
		}
		for _, f := range strings.Fields(line[2:]) {
			k, v, _ := strings.Cut(f, "=")
			c, err := strconv.Atoi(v)
			if err != nil || c < 0 {
				continue
			}
			switch k {
			case "flags":
				n.flags = c
			case "canon":
				n.canon = c
			case "syn":
				n.syn = c
			case "ant":
				n.ant = c
			case "edges":
				n.edges = c
			}
		}
	}
}

// cut is strings.Cut for a one-byte separator.
func cut(s string, sep byte) (before, after string) {
	if i := strings.IndexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}
