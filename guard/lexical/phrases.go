package lexical

import (
	"bytes"
	"regexp"
	"strings"
)

// Refusals and attribution preambles are read on word boundaries of an
// opening clause, never as substrings anywhere in the text: "Gift cards are
// not covered" is no refusal, and "According to the provided context, …" is
// an ordinary answer whose preamble says nothing about the world.

// clauseLimit bounds how much of a sentence the phrase patterns read.
const clauseLimit = 160

// refusalRE matches an opening clause that declines to answer. It is applied
// to the folded (lower-case, ’ → ') first clause of the answer.
var refusalRE = regexp.MustCompile(`^(?:(?:unfortunately|sorry|i'm sorry|i am sorry|apologies)[,;:]? (?:but )?)?(?:` +
	// "I don't know", "I'm not sure", "I cannot answer / determine / find …"
	`i (?:do not|don't|dont) know\b|i(?: am|'m) not (?:sure|certain|able)\b|` +
	`i(?: cannot| can't| can not| am unable to|'m unable to| was unable to| could not| couldn't| did not| didn't) (?:answer|determine|find|tell|say|locate|see)\b|` +
	`(?:i have )?no comment\b|` +
	// "The (provided) context / the handbook excerpts do(es) not say …"
	docSubject + ` (?:do|does|did) not (?:` + sayVerbs + `)\b|` +
	docSubject + ` (?:doesn't|don't|didn't) (?:` + sayVerbs + `)\b|` +
	// "There is no information / mention …", "No information is given …"
	`there(?: is|'s| was| are) no (?:information|mention|data|details?|indication|record)\b|no (?:information|details?|data) (?:is|was|are|were) (?:given|provided|available)\b|` +
	// "No late-payment charge is mentioned …"
	`no (?:[a-z-]+ ){0,3}(?:is|are|was|were) (?:mentioned|stated|specified|given|listed|provided|described)` + inDocs + `|` +
	// "It is not mentioned …", "That isn't stated in the rules"
	`(?:it|this|that|which)(?: is not| was not| isn't| wasn't|'s not) (?:mentioned|specified|stated|provided|given|covered|listed|addressed|described)` + inDocs + `|` +
	`(?:it|this|that)(?: is not| isn't|'s not) possible to (?:determine|say|tell)\b|` +
	`(?:it|this|that) (?:cannot|can't|can not) be (?:determined|answered|found|said)\b|` +
	`not enough information\b|(?:there is )?(?:insufficient|not enough) information\b|unable to (?:answer|determine|find)\b)`)

// metaNouns name the retrieved material itself; docNouns also name what it
// holds, which only counts as the material with a qualifier ("the provided
// rules"): "The rules do not cover accidental damage" is a claim.
const metaNouns = `(?:context|contexts|document|documents|docs|passage|passages|texts?|sources|excerpts?|extracts?|snippets?|materials?)`

const docNouns = `(?:context|contexts|document|documents|docs|passage|passages|text|texts|source|sources|information|excerpts?|snippets?|materials?|clauses?|rules|sections?|pages?|articles?|records?|results?|data|policy|policies|extract|terms)`

// docSubject is the subject of a refusal: "the (provided) documents", "the
// handbook excerpts", "the provided rules".
const docSubject = `(?:the |these |this |those |your |my )?(?:(?:provided|given|retrieved|above|supplied|available|attached|cited|listed) (?:[a-z-]+ )?` + docNouns + `|(?:[a-z-]+ ){0,2}` + metaNouns + `|information)`

// inDocs ends a "not mentioned" clause: at its end, or "in the provided
// documents" — so "That is not covered by the warranty" stays a claim.
const inDocs = `(?:$|[ ]?[—-]| in (?:the |these |this |any |your )?(?:[a-z-]+ ){0,2}` + docNouns + `\b)`

const sayVerbs = `say|mention|specify|state|contain|include|provide|give|indicate|cover|address|discuss|list|describe|show|explain`

// preambleRE matches an attribution preamble at the start of a sentence:
// "According to the documents,", "Based on the provided context,", "The
// policy states that", "As mentioned in the passage,". Its words say where
// the claim comes from, not what is claimed.
var preambleRE = regexp.MustCompile(`^(?:(?:according to|based on|as (?:stated|mentioned|described|noted|explained|shown|indicated|specified) (?:in|by)|per|from|in) ` +
	`(?:the |these |this |those |your |our )?(?:provided |given |retrieved |above |supplied |available |relevant |attached |cited |referenced )?` +
	`(?:context|contexts|document|documents|doc|docs|passage|passages|text|texts|source|sources|information|info|policy|policies|article|articles|manual|handbook|excerpt|excerpts|snippet|snippets|material|materials|page|pages|faq|guide|guidelines|terms|records?|data|documentation|sections?)` +
	`(?: (?:provided|given|above|retrieved|supplied))?,? |` +
	`(?:the |these |this |those |your |our )?(?:provided |given |retrieved |above |supplied |relevant |attached )?` +
	`(?:context|contexts|document|documents|doc|docs|passage|passages|text|texts|source|sources|information|policy|policies|article|manual|handbook|excerpt|excerpts|snippet|material|page|faq|guide|guidelines|terms|documentation) ` +
	`(?:says|say|states|state|mentions|mention|notes|note|indicates|indicate|explains|explain|specifies|specify|shows|show|confirms|confirm|suggests|suggest|clarifies|clarify|reads|read)(?: that)?,? )`)

// foldClause returns the folded opening clause of s (at most clauseLimit
// bytes, cut at the first ';', '.', '!' or '?' that ends a clause), in buf.
func foldClause(s string, buf []byte) []byte {
	buf = buf[:0]
	for i := 0; i < len(s) && len(buf) < clauseLimit; i++ {
		c := s[i]
		// Lower-case letters and digits, most of any clause, stand as they
		// are: test for them first.
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			buf = append(buf, c)
			continue
		}
		if c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0x99 || s[i+2] == 0x98) { // ’ ‘
			c = '\''
			i += 2
		} else if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		} else if c == '\n' || c == '\t' || c == '\r' {
			c = ' '
		}
		if c == ' ' && (len(buf) == 0 || buf[len(buf)-1] == ' ') {
			continue
		}
		if c == '.' || c == '!' || c == '?' || c == ';' {
			// A period inside a number or an abbreviation does not end the clause.
			if c == '.' && i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\n' {
				buf = append(buf, c)
				continue
			}
			break
		}
		buf = append(buf, c)
	}
	return buf
}

// openingCut is what isRefusal and preambleEnd trim from the start of a
// sentence before they read its opening clause.
const openingCut = " \t\n\r\"'*-•"

// foldOpening trims s's leading quotes, bullets and spaces (openingCut) and
// folds its opening clause into buf (see foldClause). It returns how many
// bytes were trimmed and the folded clause: what isRefusal and preambleEnd
// both read, so that markPreambles folds each sentence once.
func foldOpening(s string, buf []byte) (lead int, folded []byte) {
	lead = len(s) - len(strings.TrimLeft(s, openingCut))
	return lead, foldClause(s[lead:], buf)
}

// isRefusal reports whether the answer declines to answer: whether its
// opening clause (after an optional attribution preamble) matches refusalRE.
// buf is scratch space; the (possibly grown) buffer is returned.
func isRefusal(s string, buf []byte) (bool, []byte) {
	_, buf = foldOpening(s, buf)
	return refusalClause(buf), buf
}

// refusalClause is isRefusal on the folded opening clause c (foldOpening).
func refusalClause(c []byte) bool {
	if len(c) == 0 || !refusalCue(c) {
		return false
	}
	// preambleCue rules out most clauses before preambleRE runs, as in
	// preambleEnd.
	if preambleCue(c) {
		if loc := preambleRE.FindIndex(c); loc != nil {
			c = c[loc[1]:]
		}
	}
	loc := refusalRE.FindIndex(c)
	if loc == nil {
		return false
	}
	// "I'm not sure, but his books …", "I don't know if …": the answer goes
	// on to claim something, so it is no refusal.
	return !hedgedClaim(c[loc[1]:])
}

// hedgedClaim reports whether the rest of a refusal clause turns it into a
// hedge before a claim: it goes on with "but", "if", "whether", "though".
func hedgedClaim(rest []byte) bool {
	for _, w := range [...]string{" but ", " if ", " whether ", " though ", " although ", ", but", " however"} {
		if strings.Contains(" "+string(rest)+" ", w) {
			return true
		}
	}
	return false
}

// refusalCue is a cheap test that rules out most clauses before the
// regular expressions run. Every alternative of refusalRE holds a word
// refusalWord accepts, as a whole word of the folded clause: it starts the clause
// or follows a space, and a space follows it.
func refusalCue(b []byte) bool {
	for len(b) > 0 {
		i := indexByte(b, ' ')
		if i < 0 {
			return false // the last word: no space follows it
		}
		if refusalWord(b[:i]) {
			return true
		}
		b = b[i+1:]
	}
	return false
}

// refusalWord reports whether w is one of the words one of which every
// refusal holds (see refusalRE and refusalCue). A switch on the word, not
// a map: it reads the length and a few bytes, and hashes nothing.
func refusalWord(w []byte) bool {
	switch string(w) {
	case "no", "not", "cannot", "can't", "unable", "insufficient",
		"dont", "don't", "doesn't", "didn't", "couldn't", "isn't", "wasn't":
		return true
	}
	return false
}

// preambleEnd returns the byte offset in s (relative to s) where an
// attribution preamble at its start ends, or 0 when there is none. Offsets
// are in s itself: folding keeps one byte per ASCII byte, and the curly
// apostrophe that shrinks in folding never occurs inside a preamble match
// before its end is mapped back.
func preambleEnd(s string, buf []byte) (int, []byte) {
	lead := len(s) - len(strings.TrimLeft(s, openingCut))
	if !preambleMayOpen(s[lead:]) {
		return 0, buf
	}
	buf = foldClause(s[lead:], buf)
	return preambleEndFolded(s, lead, buf), buf
}

// preambleMayOpen is a cheap test on the trimmed sentence s: a preamble is
// at least 8 bytes long and opens with one of a few letters.
func preambleMayOpen(s string) bool {
	if len(s) < 8 {
		return false
	}
	switch s[0] | 0x20 {
	case 'a', 'b', 'p', 'f', 'i', 't', 'y', 'o':
		return true
	}
	return false
}

// preambleEndFolded is preambleEnd for a sentence s whose first lead bytes
// are trimmed (openingCut) and whose opening clause folds to buf.
func preambleEndFolded(s string, lead int, buf []byte) int {
	s = s[lead:]
	if !preambleCue(buf) {
		return 0
	}
	loc := preambleRE.FindIndex(buf)
	if loc == nil {
		return 0
	}
	// Map the folded offset back to s: folding only drops repeated spaces
	// and shrinks ’/‘; walk both in step.
	j, k := 0, 0
	for j < loc[1] && k < len(s) {
		c := s[k]
		switch {
		case c == 0xe2 && k+2 < len(s) && s[k+1] == 0x80 && (s[k+2] == 0x99 || s[k+2] == 0x98):
			k += 3
			j++
		case (c == ' ' || c == '\n' || c == '\t' || c == '\r') && k > 0 && (s[k-1] == ' ' || s[k-1] == '\n' || s[k-1] == '\t' || s[k-1] == '\r'):
			k++ // a collapsed space
		default:
			k++
			j++
		}
	}
	return lead + k
}

// preambleCue is a cheap test that rules out most sentences before the
// regular expression runs: every preamble opens with "according", "based",
// "as", "per", "from" or "in", or names a document within its first words.
func preambleCue(b []byte) bool {
	w := b
	if i := indexByte(w, ' '); i > 0 {
		w = w[:i]
	}
	switch string(w) {
	case "according", "based", "as", "per", "from", "in":
		return true
	}
	// Whether head contains one of the nouns, in one pass over it:
	// at each byte, only the nouns that start with it are compared.
	head := b[:min(len(b), 48)]
	for i, c := range head {
		for _, n := range preambleNounsBy[c] {
			if bytes.HasPrefix(head[i:], n) {
				return true
			}
		}
	}
	return false
}

// preambleNounsBy are the document words preambleCue looks for, filed by
// their first byte, as byte slices so that the search allocates nothing.
var preambleNounsBy = func() (by [256][][]byte) {
	for _, n := range [...]string{"context", "document", "doc", "passage", "text", "source", "information", "polic", "article",
		"manual", "handbook", "excerpt", "snippet", "material", "page", "faq", "guide", "terms"} {
		by[n[0]] = append(by[n[0]], []byte(n))
	}
	return by
}()

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
