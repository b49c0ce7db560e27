package llmjudge

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/guard"
)

// vote is what one model output says.
type vote uint8

const (
	voteNone vote = iota // unparsable, refused, or not a yes/no
	voteYes
	voteNo
)

// parseYesNo reads the verdict from the first non-empty line of out: its
// first word, with markdown and a leading "Answer:" stripped, must be yes or
// no (any case, trailing punctuation allowed). Anything else — a refusal,
// an explanation first, an empty reply — is voteNone.
func parseYesNo(out string) vote {
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		line = strings.TrimLeft(line, "*_#>`\"' \t")
		if line == "" {
			continue
		}
		low := strings.ToLower(line)
		for _, p := range []string{"answer:", "verdict:", "final answer:"} {
			if strings.HasPrefix(low, p) {
				low = strings.TrimLeft(strings.TrimSpace(low[len(p):]), "*_`\"' ")
				break
			}
		}
		return wordVote(firstWord(low))
	}
	return voteNone
}

func firstWord(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) })
	if end >= 0 {
		s = s[:end]
	}
	return strings.TrimRight(s, ".,;:!*_`\"')")
}

func wordVote(w string) vote {
	switch w {
	case "yes":
		return voteYes
	case "no":
		return voteNo
	}
	return voteNone
}

// tokenVote classifies one token of a logprob list.
func tokenVote(tok string) vote {
	t := strings.ToLower(strings.TrimSpace(tok))
	t = strings.Trim(t, "*_`\"'.,:;!#>")
	return wordVote(t)
}

// quoteLine matches one evidence line: QUOTE [id]: text.
var quoteLine = regexp.MustCompile(`(?i)^\s*(?:[-*]\s*)?\**quote\**\s*\[([^\]]*)\]\s*:\s*(.*)$`)

// rawQuote is one quote the judge gave.
type rawQuote struct {
	contextID string
	text      string
}

// parseQuotes returns the QUOTE lines after the verdict line.
func parseQuotes(out string) []rawQuote {
	var qs []rawQuote
	for _, line := range strings.Split(out, "\n") {
		m := quoteLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		text := strings.TrimSpace(m[2])
		text = strings.Trim(text, "\"“”'‘’`")
		qs = append(qs, rawQuote{contextID: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(m[1]), "id=")), text: text})
	}
	return qs
}

// normalized is a text in the form quotes are matched in, with, for each
// byte, the byte range of the original text it came from.
type normalized struct {
	b        []byte
	from, to []int
}

// normalize lowercases s, folds typographic quotes, dashes, the guillemets
// defang uses and the ellipsis to ASCII, and turns every run of white space
// into one space.
func normalize(s string) normalized {
	n := normalized{b: make([]byte, 0, len(s)), from: make([]int, 0, len(s)), to: make([]int, 0, len(s))}
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			if !space && len(n.b) > 0 {
				n.b = append(n.b, ' ')
				n.from = append(n.from, i)
				n.to = append(n.to, i+size)
			}
			space = true
			i += size
			continue
		}
		space = false
		var out string
		switch r {
		case '‘', '’', '‚', '‛', '′', '`':
			out = "'"
		case '“', '”', '„', '‟', '″':
			out = "\""
		case '‐', '‑', '‒', '–', '—', '―', '−':
			out = "-"
		case '‹':
			out = "<"
		case '›':
			out = ">"
		case '…':
			out = "..."
		default:
			out = string(unicode.ToLower(r))
		}
		for k := 0; k < len(out); k++ {
			n.b = append(n.b, out[k])
			n.from = append(n.from, i)
			n.to = append(n.to, i+size)
		}
		i += size
	}
	// Drop a trailing space.
	if k := len(n.b); k > 0 && n.b[k-1] == ' ' {
		n.b, n.from, n.to = n.b[:k-1], n.from[:k-1], n.to[:k-1]
	}
	return n
}

// quoteTrim is stripped from both ends of a quote (and of each fragment
// around an ellipsis) before matching.
const quoteTrim = " .,;:!?\"'()[]"

// verifyQuote looks for q in the context text: after normalization, each
// part of q between ellipses must occur in ctx, in order. It needs at least
// minWords words in all (fewer when the context itself is shorter). It
// returns the span of ctx from the first part's start to the last part's
// end, or ok=false.
func verifyQuote(q, ctx string, minWords int) (start, end int, ok bool) {
	nq := normalize(q)
	nc := normalize(ctx)
	var frags [][]byte
	for _, f := range bytes.Split(nq.b, []byte("...")) {
		f = bytes.Trim(f, quoteTrim)
		if len(f) > 0 {
			frags = append(frags, f)
		}
	}
	if len(frags) == 0 {
		return 0, 0, false
	}
	words := 0
	for _, f := range frags {
		words += len(bytes.Fields(f))
	}
	if cw := len(bytes.Fields(nc.b)); words < min(minWords, cw) {
		return 0, 0, false
	}
	if len(frags) > 1 {
		// Fragments around an ellipsis must each say something: one word
		// ("The deposit is ... refundable") could be picked out of a
		// sentence that says the opposite.
		for _, f := range frags {
			if len(bytes.Fields(f)) < minFragmentWords {
				return 0, 0, false
			}
		}
	}
	pos := 0
	for k, f := range frags {
		i := indexWords(nc.b, pos, f)
		if i < 0 || (k > 0 && (i-pos > maxEllipsisGap || crossesSentence(nc.b[pos:i]))) {
			return 0, 0, false
		}
		if k == 0 {
			start = nc.from[i]
		}
		end = nc.to[i+len(f)-1]
		pos = i + len(f)
	}
	return start, end, true
}

const (
	// minFragmentWords is the fewest words each part of a quote with an
	// ellipsis must have.
	minFragmentWords = 3
	// maxEllipsisGap is the most normalized bytes an ellipsis may stand for.
	maxEllipsisGap = 300
)

// crossesSentence reports whether the text an ellipsis stands for ends a
// sentence: parts of two sentences stitched together can say what neither
// says.
func crossesSentence(gap []byte) bool {
	for i := 0; i+1 < len(gap); i++ {
		// An ellipsis in the context ("...") is not a sentence end.
		if (gap[i] == '.' || gap[i] == '!' || gap[i] == '?') && gap[i+1] == ' ' && (i == 0 || gap[i-1] != '.') {
			return true
		}
	}
	return false
}

// indexWords returns the first index ≥ from where f occurs in b on word
// boundaries (not inside a longer word, so "refundable" does not match in
// "non-refundable"), or -1.
func indexWords(b []byte, from int, f []byte) int {
	for from <= len(b) {
		i := bytes.Index(b[from:], f)
		if i < 0 {
			return -1
		}
		i += from
		j := i + len(f)
		if (i == 0 || !wordByte(b[i-1]) || !wordByte(f[0])) && (j == len(b) || !wordByte(b[j]) || !wordByte(f[len(f)-1])) {
			return i
		}
		from = i + 1
	}
	return -1
}

// wordByte reports whether c can be part of a word: a letter, a digit, a
// hyphen or any byte of a multi-byte UTF-8 sequence.
func wordByte(c byte) bool {
	return c >= 0x80 || c == '-' || c == '\'' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// checkQuotes verifies the judge's quotes against the sample's contexts. It
// returns the evidence for the verified ones and a description of the first
// quote that failed ("" when all passed).
func checkQuotes(qs []rawQuote, s *guard.Sample, minWords int) ([]guard.Evidence, string) {
	var ev []guard.Evidence
	for _, q := range qs {
		var c *guard.Context
		for i := range s.Contexts {
			if s.Contexts[i].ID == q.contextID {
				c = &s.Contexts[i]
				break
			}
		}
		if c == nil {
			return ev, "quote names context " + quoteForReason(q.contextID) + ", which is not in the sample"
		}
		start, end, ok := verifyQuote(q.text, c.Text, minWords)
		if !ok {
			return ev, "quote " + quoteForReason(q.text) + " is not in context " + quoteForReason(c.ID)
		}
		if !sharesWord(q.text, s.Answer) {
			return ev, "quote " + quoteForReason(q.text) + " shares no word with the answer"
		}
		ev = append(ev, guard.Evidence{
			Decision: guard.Groundedness, Kind: guard.EvidenceSupport, Detail: "quoted by the LLM judge and found in the context",
			Quote: guard.Quote{Source: guard.SourceContext, ContextID: c.ID, Start: start, End: end, Text: c.Text[start:end]},
		})
	}
	return ev, ""
}

func quoteForReason(s string) string {
	if len(s) > 80 {
		s = s[:80]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return "\"" + s + "\""
}

// parseClaims reads the claim lines ("- claim") of an extraction. none is
// true when the model said NONE; ok is false when the output holds neither.
func parseClaims(out string) (claims []string, none, ok bool) {
	seen := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if strings.EqualFold(strings.Trim(t, "*_`. "), "none") {
			none = true
			continue
		}
		var body string
		switch {
		case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "• "):
			_, body, _ = strings.Cut(t, " ")
		default:
			// "1. claim" or "1) claim"
			i := 0
			for i < len(t) && t[i] >= '0' && t[i] <= '9' {
				i++
			}
			if i == 0 || i+1 >= len(t) || (t[i] != '.' && t[i] != ')') || t[i+1] != ' ' {
				continue
			}
			body = t[i+2:]
		}
		body = strings.TrimSpace(body)
		if body == "" || seen[body] {
			continue
		}
		seen[body] = true
		claims = append(claims, body)
	}
	return claims, none, len(claims) > 0 || none
}

// contentWords returns the lowercased words of s that carry content: four
// letters or more, or holding a digit.
func contentWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if utf8.RuneCountInString(w) >= 4 || strings.ContainsFunc(w, unicode.IsDigit) {
			out = append(out, w)
		}
	}
	return out
}

// sharesWord reports whether a quote shares a content word with the answer
// (always true when the answer has none). A quote that shares nothing with
// the answer cannot be its support: this stops a context that says "answer
// Yes" from being quoted as evidence.
func sharesWord(quote, answer string) bool {
	aw := contentWords(answer)
	if len(aw) == 0 {
		return true
	}
	qw := map[string]bool{}
	for _, w := range contentWords(quote) {
		qw[w] = true
	}
	for _, w := range aw {
		if qw[w] {
			return true
		}
	}
	return false
}
