package guard_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/guard"
)

func TestSampleValidate(t *testing.T) {
	ctxs := func(ids ...string) []guard.Context {
		out := make([]guard.Context, len(ids))
		for i, id := range ids {
			out[i] = guard.Context{ID: id, Text: "text of " + id}
		}
		return out
	}
	tests := []struct {
		name   string
		s      guard.Sample
		l      guard.Limits
		field  string // "" for a valid sample
		reason string // substring of the reason
	}{
		{"empty sample", guard.Sample{}, guard.Limits{}, "", ""},
		{"typical", newSample(true, "c1", "c2"), guard.Limits{}, "", ""},
		{"empty reference", guard.Sample{Reference: guard.Ref("")}, guard.Limits{}, "", ""},
		{"unicode", guard.Sample{Question: "料金は？", Answer: "20 € 🎉", Contexts: ctxs("ñ")}, guard.Limits{}, "", ""},
		{"empty context text", guard.Sample{Contexts: []guard.Context{{ID: "c"}}}, guard.Limits{}, "", ""},

		{"empty context id", guard.Sample{Contexts: ctxs("c0", "")}, guard.Limits{}, "contexts[1].id", "empty"},
		{"duplicate context ids", guard.Sample{Contexts: ctxs("a", "b", "a")}, guard.Limits{}, "contexts[2].id", "duplicate of contexts[0].id"},
		{"invalid UTF-8 question", guard.Sample{Question: "caf\xe9"}, guard.Limits{}, "question", "UTF-8"},
		{"invalid UTF-8 answer", guard.Sample{Answer: "\xff"}, guard.Limits{}, "answer", "UTF-8"},
		{"invalid UTF-8 reference", guard.Sample{Reference: guard.Ref("ok \xc3")}, guard.Limits{}, "referenceAnswer", "UTF-8"},
		{"invalid UTF-8 context id", guard.Sample{Contexts: []guard.Context{{ID: "\x80"}}}, guard.Limits{}, "contexts[0].id", "UTF-8"},
		{"invalid UTF-8 context text", guard.Sample{Contexts: []guard.Context{{ID: "a"}, {ID: "b", Text: "\xed\xa0\x80"}}}, guard.Limits{}, "contexts[1].text", "UTF-8"},
		{"NUL in question", guard.Sample{Question: "a\x00b"}, guard.Limits{}, "question", "NUL byte at offset 1"},
		{"NUL in answer", guard.Sample{Answer: "\x00"}, guard.Limits{}, "answer", "NUL"},
		{"NUL in reference", guard.Sample{Reference: guard.Ref("x\x00")}, guard.Limits{}, "referenceAnswer", "NUL"},
		{"NUL in context text", guard.Sample{Contexts: []guard.Context{{ID: "a", Text: "\x00"}}}, guard.Limits{}, "contexts[0].text", "NUL"},

		{"too many contexts", guard.Sample{Contexts: ctxs("a", "b", "c")}, guard.Limits{MaxContexts: 2}, "contexts", "3 contexts, over the limit of 2"},
		{"contexts at the limit", guard.Sample{Contexts: ctxs("a", "b")}, guard.Limits{MaxContexts: 2}, "", ""},
		{"question too long", guard.Sample{Question: "hello"}, guard.Limits{MaxTextBytes: 4}, "question", "5 bytes, over the limit of 4"},
		{"text at the limit", guard.Sample{Question: "hell"}, guard.Limits{MaxTextBytes: 4}, "", ""},
		{"context text too long", guard.Sample{Contexts: []guard.Context{{ID: "a", Text: "12345"}}}, guard.Limits{MaxTextBytes: 4}, "contexts[0].text", "over the limit"},
		{"reference too long", guard.Sample{Reference: guard.Ref("12345")}, guard.Limits{MaxTextBytes: 4}, "referenceAnswer", "over the limit"},
		{"total too large", guard.Sample{Question: "1234", Answer: "1234", Reference: guard.Ref("1234")}, guard.Limits{MaxTotalBytes: 10}, "sample", "12 bytes of text, over the limit of 10"},
		{"total counts context texts", guard.Sample{Question: "12", Contexts: []guard.Context{{ID: "a", Text: "12345"}, {ID: "b", Text: "12345"}}}, guard.Limits{MaxTotalBytes: 11}, "sample", "over the limit of 11"},
		{"total at the limit", guard.Sample{Question: "12345", Answer: "12345"}, guard.Limits{MaxTotalBytes: 10}, "", ""},
		{"negative limits mean defaults", guard.Sample{Contexts: ctxs("a", "b")}, guard.Limits{MaxContexts: -1, MaxTextBytes: -1, MaxTotalBytes: -1}, "", ""},
		{"default text limit", guard.Sample{Answer: strings.Repeat("a", guard.DefaultLimits.MaxTextBytes+1)}, guard.Limits{}, "answer", "over the limit"},
	}
	for _, tt := range tests {
		err := tt.s.Validate(tt.l)
		if tt.field == "" {
			if err != nil {
				t.Errorf("Validate(%s) = %v; want nil", tt.name, err)
			}
			continue
		}
		var se *guard.SampleError
		switch {
		case err == nil:
			t.Errorf("Validate(%s) = nil; want an error for field %q", tt.name, tt.field)
		case !errors.Is(err, guard.ErrInvalidSample):
			t.Errorf("Validate(%s) = %v; want it to wrap ErrInvalidSample", tt.name, err)
		case !errors.As(err, &se):
			t.Errorf("Validate(%s) = %v (%T); want a *SampleError", tt.name, err, err)
		case se.Field != tt.field || !strings.Contains(se.Reason, tt.reason):
			t.Errorf("Validate(%s) = field %q, reason %q; want field %q, reason containing %q", tt.name, se.Field, se.Reason, tt.field, tt.reason)
		case !strings.Contains(err.Error(), tt.field):
			t.Errorf("Validate(%s) = %q; want the message to name %q", tt.name, err, tt.field)
		}
	}
}

func TestSampleVariant(t *testing.T) {
	for _, tt := range []struct {
		ref  *string
		want guard.Variant
	}{
		{nil, guard.WithoutReference},
		{guard.Ref(""), guard.WithReference},
		{guard.Ref("x"), guard.WithReference},
	} {
		s := guard.Sample{Reference: tt.ref}
		if got := s.Variant(); got != tt.want || s.HasReference() != (tt.ref != nil) {
			t.Errorf("Sample{Reference: %v}.Variant() = %v, HasReference() = %v; want %v, %v", tt.ref, got, s.HasReference(), tt.want, tt.ref != nil)
		}
	}
}

// TestValidateText: a text is refused for the reason utf8.ValidString and
// the NUL check give, whatever its length and wherever its odd byte
// (checkText reads plain ASCII texts on a path of its own).
func TestValidateText(t *testing.T) {
	odd := []string{"a", "\x00", "\x01", "\x7f", "\x80", "é", "€", "\xff", "\xc3", "\xed\xa0\x80"}
	for n := 0; n <= 40; n++ {
		for at := 0; at <= n; at++ {
			for _, b := range odd {
				for _, tail := range []string{"", "\x00", "\xff", "ü"} {
					s := guard.Sample{Question: "q", Answer: strings.Repeat("x", at) + b + strings.Repeat("y", n-at) + tail}
					want := ""
					if !utf8.ValidString(s.Answer) {
						want = "guard: invalid sample: answer: not valid UTF-8"
					} else if i := strings.IndexByte(s.Answer, 0); i >= 0 {
						want = fmt.Sprintf("guard: invalid sample: answer: NUL byte at offset %d", i)
					}
					err := s.Validate(guard.Limits{})
					if got := fmt.Sprint(err); (err == nil) != (want == "") || err != nil && got != want {
						t.Fatalf("Validate(answer %q) = %v; want %q", s.Answer, err, want)
					}
				}
			}
		}
	}
}

// wantTextError is what Validate says of an answer, as utf8.ValidString and
// a search for NUL decide it.
func wantTextError(answer string) string {
	if !utf8.ValidString(answer) {
		return "guard: invalid sample: answer: not valid UTF-8"
	}
	if i := strings.IndexByte(answer, 0); i >= 0 {
		return fmt.Sprintf("guard: invalid sample: answer: NUL byte at offset %d", i)
	}
	return ""
}

// TestValidateTextTwoOdd: checkText reads on after a rune outside ASCII, so
// texts with two odd bytes or runes, in every order and at every distance,
// are refused as utf8.ValidString and the NUL search refuse them: an invalid
// byte after a NUL is still "not valid UTF-8", and a NUL after an accented
// letter is found at its offset.
func TestValidateTextTwoOdd(t *testing.T) {
	odd := []string{"\x00", "é", "€", "\U0001F600", "\xff", "\xc3", "\xed\xa0\x80", "\xef\xbf\xbd", "\xe2\x82"}
	for _, a := range odd {
		for _, b := range odd {
			for lead := 0; lead <= 20; lead += 5 {
				for gap := 0; gap <= 34; gap++ {
					answer := strings.Repeat("x", lead) + a + strings.Repeat("y", gap) + b + strings.Repeat("z", gap%7)
					s := guard.Sample{Question: "q", Answer: answer}
					err := s.Validate(guard.Limits{})
					if got, want := fmt.Sprint(err), wantTextError(answer); (err == nil) != (want == "") || err != nil && got != want {
						t.Fatalf("Validate(answer %q) = %v; want %q", answer, err, want)
					}
				}
			}
		}
	}
}

func FuzzValidateText(f *testing.F) {
	for _, s := range []string{"", "plain text of some length, all ASCII.", "José Martí\x00", "\xffé", "Zoë\x00\xc3", strings.Repeat("ab\u00e9", 20)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		s := guard.Sample{Question: "q", Answer: answer}
		err := s.Validate(guard.Limits{})
		if got, want := fmt.Sprint(err), wantTextError(answer); (err == nil) != (want == "") || err != nil && got != want {
			t.Fatalf("Validate(answer %q) = %v; want %q", answer, err, want)
		}
	})
}
