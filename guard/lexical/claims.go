package lexical

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
)

// SentenceClaimsName and SentenceClaimsVersion identify SentenceClaims in
// results and reports.
const (
	SentenceClaimsName    = "ragtriage/lexical-sentences"
	SentenceClaimsVersion = "1.0.0"
)

// SentenceClaims is a guard.ClaimExtractor that takes each sentence of the
// answer as one claim, split where the lexical judges split sentences (see
// Sentences). It gives sentence-level claims: a simple, deterministic,
// offline extractor of the kind a host might write, not atomic-claim
// extraction — a sentence that says two things stays one claim, and a
// pronoun is not resolved ("It opened in 1901." is judged as written).
// Coordinated clauses are not split: doing that without a parser cuts
// enumerations and shared subjects apart. For atomic claims, use an LLM
// extractor (package guard/llmjudge).
//
// The zero value is ready to use; it is safe for concurrent use.
type SentenceClaims struct{}

// Describe names the extractor (SentenceClaimsName, SentenceClaimsVersion).
func (SentenceClaims) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: SentenceClaimsName, Version: SentenceClaimsVersion}
}

// ExtractClaims implements guard.ClaimExtractor: the answer's sentences, in
// order, each trimmed of surrounding space and of a leading list marker
// ("- ", "* ", "• "). An answer without a word gives no claim and no error
// (the guard then judges the whole answer and reports that). An answer of
// more than guard.MaxClaims sentences is an error: it is not cut silently.
func (SentenceClaims) ExtractClaims(ctx context.Context, s *guard.Sample) ([]string, error) {
	if s == nil {
		return nil, errors.New("lexical: SentenceClaims: nil sample")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	claims := Sentences(s.Answer)
	if len(claims) > guard.MaxClaims {
		return nil, fmt.Errorf("lexical: SentenceClaims: the answer has %d sentences, more than guard.MaxClaims (%d)", len(claims), guard.MaxClaims)
	}
	return claims, nil
}

// Sentences returns the sentences of text as the lexical judges see them: a
// line feed always ends one; a full stop, "!" or "?" does when followed by
// space and a capital, a digit or a quote, or by the end of the text, unless
// the word before it is a known abbreviation or an initial ("Dr.", "J. K.",
// and also a single digit: "at 9. Then" does not end one);
// a full stop glued to a capital after a lower-case word of three letters or
// more ("century.First", as found in scraped text) ends one too. Each
// sentence is trimmed of surrounding space and of a leading list marker;
// stretches without a word (stray punctuation, blank lines) are left out.
func Sentences(text string) []string {
	var tz tokenizer
	_, spans := tz.tokenize(nil, text, nil)
	out := make([]string, 0, len(spans))
	for _, sp := range spans {
		s := strings.TrimSpace(text[sp.start:sp.end])
		for _, m := range []string{"- ", "* ", "• "} {
			if rest, ok := strings.CutPrefix(s, m); ok {
				s = strings.TrimSpace(rest)
				break
			}
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
