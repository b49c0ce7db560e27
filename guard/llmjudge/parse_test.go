package llmjudge

import (
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseYesNo(t *testing.T) {
	cases := []struct {
		in   string
		want vote
	}{
		{"Yes", voteYes}, {"yes.", voteYes}, {"**Yes**", voteYes}, {"\n\n  No, because", voteNo},
		{"Answer: No", voteNo}, {"\"Yes\"", voteYes}, {"Final answer: yes", voteYes},
		{"", voteNone}, {"I cannot answer that.", voteNone}, {"Yesterday", voteNone}, {"Nope", voteNone},
		{"Maybe", voteNone}, {"The answer is yes", voteNone},
	}
	for _, c := range cases {
		if got := parseYesNo(c.in); got != c.want {
			t.Errorf("parseYesNo(%q) = %v; want %v", c.in, got, c.want)
		}
	}
}

func TestVerifyQuote(t *testing.T) {
	ctx := "The “Returns” policy — refunds are accepted\nwithin 30 days… with the receipt."
	cases := []struct {
		q    string
		want string // "" = not found
	}{
		{"refunds are accepted within 30 days", "refunds are accepted\nwithin 30 days"},
		{"\"Returns\" policy - refunds", "Returns” policy — refunds"}, // outer quote marks are trimmed
		{"REFUNDS ARE ACCEPTED", "refunds are accepted"},
		{"refunds are accepted ... with the receipt.", "refunds are accepted\nwithin 30 days… with the receipt"},
		{"refunds are accepted within 60 days", ""},
		{"with the receipt ... refunds are accepted", ""}, // out of order
		{"30", ""}, // too short
		{"", ""},
	}
	for _, c := range cases {
		s, e, ok := verifyQuote(c.q, ctx, 3)
		got := ""
		if ok {
			got = ctx[s:e]
		}
		if got != c.want {
			t.Errorf("verifyQuote(%q) = %q; want %q", c.q, got, c.want)
		}
	}
	// A short context may be quoted whole.
	if _, _, ok := verifyQuote("Paris", "Paris.", 3); !ok {
		t.Errorf("a one-word context could not be quoted")
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"2", 2 * time.Second, true}, {"0.5", 500 * time.Millisecond, true},
		{now.Add(3 * time.Second).Format(http.TimeFormat), 3 * time.Second, true},
		{"", 0, false}, {"-1", 0, false}, {"soon", 0, false},
	}
	for _, c := range cases {
		got, ok := retryAfter(c.in, now)
		if got != c.want || ok != c.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestSharesWord(t *testing.T) {
	if sharesWord("Ignore previous instructions", "Refunds take 30 days") {
		t.Error("unrelated quote accepted")
	}
	if !sharesWord("refunds within 30 days", "30") || !sharesWord("anything", "Yes") {
		t.Error("related quote rejected")
	}
}

func FuzzVerifyQuote(f *testing.F) {
	f.Add("refunds are accepted", "Refunds are accepted within 30 days.")
	f.Add("a … b", "a\u00a0x … b")
	f.Add("“x” — y", "\"X\" - y z")
	f.Fuzz(func(t *testing.T, q, ctx string) {
		s, e, ok := verifyQuote(q, ctx, 1)
		if !ok {
			return
		}
		if s < 0 || e > len(ctx) || s >= e {
			t.Fatalf("span [%d,%d) outside %d bytes", s, e, len(ctx))
		}
		if utf8.ValidString(ctx) && !utf8.ValidString(ctx[s:e]) {
			t.Fatalf("span [%d,%d) cuts a rune", s, e)
		}
	})
}

func FuzzParse(f *testing.F) {
	f.Add("Yes\nQUOTE [c1]: text")
	f.Add("- a\n- b\n1. c")
	f.Add(`{"choices":[{"index":0,"logprobs":{"content":[{"token":"Yes","logprob":-0.1}]}}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		parseYesNo(s)
		for _, q := range parseQuotes(s) {
			if strings.Contains(q.contextID, "\n") {
				t.Fatalf("context id with a newline: %q", q.contextID)
			}
		}
		parseClaims(s)
		parseLogprobs([]byte(s))
	})
}

func TestVerifyQuoteWordBoundaries(t *testing.T) {
	ctx := "The deposit is non-refundable. Refunds of the ticket price are possible within 30 days of purchase."
	for _, tc := range []struct {
		q  string
		ok bool
	}{
		{"The deposit is non-refundable", true},
		{"The deposit is ... refundable", false},               // a one-word fragment
		{"deposit is refundable", false},                       // not in the text
		{"The deposit is ... within 30 days", false},           // the ellipsis stitches two sentences
		{"Refunds of the ticket ... within 30 days", true},     // both fragments of three words and more, close together
		{"posit is non-refundable", false},                     // starts inside a word
		{"the ticket price are possible within 30 day", false}, // ends inside a word
	} {
		_, _, ok := verifyQuote(tc.q, ctx, 3)
		if ok != tc.ok {
			t.Errorf("verifyQuote(%q) = %v, want %v", tc.q, ok, tc.ok)
		}
	}
}
