package lexical

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// claimsOf is the claims the test judges for s: the answer's sentences,
// the whole answer, an empty claim, and a claim with a number and a name
// that no context states.
func claimsOf(s *guard.Sample) []string {
	return append(Sentences(s.Answer), s.Answer, "", "It was founded in 1789 by Ada Lovelace.")
}

// TestJudgeClaimsEqualsJudge holds each estimate of JudgeClaims to the
// Groundedness estimate Judge gives for the sample with that claim as its
// answer, on every bundled sample (the golden inputs only under -short).
func TestJudgeClaimsEqualsJudge(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	samples := bundledSamples(t)
	if testing.Short() {
		samples = samples[:314]
	}
	ctx := context.Background()
	n := 0
	for i := range samples {
		s := &samples[i]
		claims := claimsOf(s)
		got, err := j.JudgeClaims(ctx, s, claims)
		if err != nil {
			t.Fatalf("%s: JudgeClaims: %v", s.ID, err)
		}
		if len(got) != len(claims) {
			t.Fatalf("%s: JudgeClaims gave %d estimates for %d claims", s.ID, len(got), len(claims))
		}
		for k, claim := range claims {
			c := *s
			c.Answer = claim
			want, err := j.Judge(ctx, guard.Request{Sample: &c, Decisions: []guard.Decision{guard.Groundedness}})
			if err != nil {
				t.Fatalf("%s: Judge: %v", s.ID, err)
			}
			if len(want) != 1 || !reflect.DeepEqual(got[k], want[0]) {
				t.Fatalf("%s: JudgeClaims claim %d (%q) = %+v; Judge says %+v", s.ID, k, claim, got[k], want)
			}
			n++
		}
	}
	t.Logf("%d claims", n)
}

// cancelAfter is a context whose Err is nil for its first n calls and
// context.Canceled after.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n <= 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

// TestJudgeClaimsHonoursContext checks that JudgeClaims reads ctx before it
// starts (an error) and between claims (every claim abstains, cause
// cancelled: an answer given after ctx ended is no pass).
func TestJudgeClaimsHonoursContext(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &guard.Sample{Question: "When did the museum open?", Answer: "It opened in 1901. It is in Paris.",
		Contexts: []guard.Context{{ID: "c1", Text: "The museum opened in 1901 in Paris."}}}
	claims := []string{"It opened in 1901.", "It is in Paris.", "It is free."}
	if got, err := j.JudgeClaims(&cancelAfter{Context: context.Background()}, s, claims); !errors.Is(err, context.Canceled) || got != nil {
		t.Errorf("JudgeClaims with ctx cancelled before it starts = %v, %v; want nil, context.Canceled", got, err)
	}
	// One check before the start and one before each claim.
	for calls := 1; calls <= len(claims); calls++ {
		ctx := &cancelAfter{Context: context.Background(), n: calls}
		got, err := j.JudgeClaims(ctx, s, claims)
		if err != nil || len(got) != len(claims) {
			t.Fatalf("JudgeClaims with ctx cancelled after %d checks = %v, %v; want %d abstentions", calls, got, err, len(claims))
		}
		for i, e := range got {
			if !e.Abstained || e.Cause != guard.CauseCancelled {
				t.Errorf("ctx cancelled after %d checks: claim %d = %+v; want abstained, cause cancelled", calls, i, e)
			}
		}
	}
	got, err := j.JudgeClaims(&cancelAfter{Context: context.Background(), n: len(claims) + 1}, s, claims)
	if err != nil || len(got) != len(claims) {
		t.Errorf("JudgeClaims with ctx alive = %d estimates, %v; want %d, nil", len(got), err, len(claims))
	}
	if _, err := j.JudgeClaims(context.Background(), nil, claims); err == nil {
		t.Error("JudgeClaims(nil sample) gave no error")
	}
}
