package lexical

import "strings"

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

const hedgeList = `unclear uncertain unknown depends depend depending might may possibly perhaps likely unlikely
some many myth misconception actually however although but no not nothing never comment sure debate disputed
varies vary evidence scientific studies`

var wordFlagMap = func() map[uint64]uint16 {
	m := map[uint64]uint16{}
	for _, w := range strings.Fields(stopList) {
		m[normHash(w)] |= fStop
	}
	for _, w := range strings.Fields(negationList) {
		m[normHash(w)] |= fNeg | fStop
	}
	for _, w := range strings.Fields(hedgeList) {
		m[normHash(w)] |= fHedge
	}
	for _, p := range antonymPairs {
		m[normHash(p[0])] |= fAnt
		m[normHash(p[1])] |= fAnt
	}
	return m
}()

func wordFlags(h uint64) uint16 { return wordFlagMap[h] }

// antonymPairs are words whose swap flips a claim.
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

var antonymOf = func() map[uint64][]uint64 {
	m := map[uint64][]uint64{}
	for _, p := range antonymPairs {
		a, b := normHash(p[0]), normHash(p[1])
		m[a] = append(m[a], b)
		m[b] = append(m[b], a)
	}
	return m
}()

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

// synonymOf maps a word's hash to the hashes of its WordNet synonyms (see
// substituteSynonyms).
var synonymOf = map[uint64][]uint64{}
