package middleware

import (
	"errors"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

func TestScrubText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"no quotes here", "no quotes here"},
		{`"Acme" appears in no context`, `"[withheld]" appears in no context`},
		{`quote "a b c" is not in context "c1"`, `quote "[withheld]" is not in context "[withheld]"`},
		{`escaped "say \"hi\" now" end`, `escaped "[withheld]" end`},
		{`cut short: "the start of a repl…`, `cut short: "[withheld]"`},
		{`ends with a backslash "abc\`, `ends with a backslash "[withheld]"`},
		{"curly “Acme Corp” quoted", `curly "[withheld]" quoted`},
		{"curly “never closed", `curly "[withheld]"`},
		{`""`, `"[withheld]"`},
	}
	for _, tt := range tests {
		if got := scrubText(tt.in); got != tt.want {
			t.Errorf("scrubText(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestScrubbedErrorUnwraps(t *testing.T) {
	base := errors.New(`model replied "secret words"`)
	err := &scrubbedError{base}
	if !errors.Is(err, base) || err.Error() != `model replied "[withheld]"` {
		t.Errorf("scrubbedError: Is=%v, Error()=%q", errors.Is(err, base), err.Error())
	}
}

func TestExportResult(t *testing.T) {
	r := guard.Result{
		Reason: `uncertain: "secret"`,
		Evidence: []guard.Evidence{{Decision: guard.Groundedness, Kind: guard.EvidenceAbsentEntity, Detail: `"Secret" appears in no context`,
			Quote: guard.Quote{Source: guard.SourceAnswer, Start: 0, End: 6, Text: "Secret"}}},
		Citations:   []guard.Citation{{Sentence: guard.Quote{Source: guard.SourceAnswer, End: 6, Text: "Secret"}}},
		Abstentions: []guard.Abstention{{Decision: guard.Groundedness, Reason: `quote "Secret" is not in context "c1"`}},
		Errors:      []guard.JudgeError{{Judge: "j", Message: `bad reply "Secret"`}},
		Fallback:    &guard.FallbackInfo{Reason: `fallback failed: "Secret"`},
		Claims:      []guard.Claim{{Text: "Secret claim", Reason: `"Secret"`}},
		Estimates:   []guard.Estimate{{Decision: guard.Groundedness}},
	}
	off := (&config{}).exportResult(&r, nil)
	if off.Reason != `uncertain: "[withheld]"` || off.Evidence[0].Detail != "" || off.Evidence[0].Quote.Text != "" ||
		off.Evidence[0].Quote.End != 6 || off.Citations[0].Sentence.Text != "" || off.Abstentions[0].Reason != `quote "[withheld]" is not in context "[withheld]"` ||
		off.Errors[0].Message != `bad reply "[withheld]"` || off.Fallback.Reason != `fallback failed: "[withheld]"` ||
		off.Claims[0].Text != "" || off.Estimates != nil {
		t.Errorf("without content capture: %+v", off)
	}
	if r.Evidence[0].Quote.Text != "Secret" || r.Fallback.Reason != `fallback failed: "Secret"` || r.Claims[0].Text != "Secret claim" {
		t.Errorf("exportResult modified its input: %+v", r)
	}
	fields := map[Field]int{}
	on := (&config{redact: func(f Field, s string) string { fields[f]++; return "<" + f.String() + ">" }}).exportResult(&r, nil)
	if on.Evidence[0].Quote.Text != "<answer>" || on.Evidence[0].Detail != "<answer>" || on.Claims[0].Text != "<answer>" ||
		on.Fallback.Reason != "<completion>" || on.Abstentions[0].Reason != "<completion>" {
		t.Errorf("with content capture: %+v", on)
	}
}
