package evalkit

import (
	"context"
	"testing"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// The replay's wrappers keep the optional interfaces the guard reads, so
// that a replay takes the path production takes: the embedded judge stays a
// guard.ClaimJudge (claims analysed with the contexts once), and a cascade
// stays a guard.ContextHonourer (called on the caller's goroutine).
func TestMeteredKeepsOptionalInterfaces(t *testing.T) {
	lex, err := lexical.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := metered(lex, legPrimary)
	cj, ok := m.(guard.ClaimJudge)
	if !ok {
		t.Fatalf("metered(%T) is not a guard.ClaimJudge", lex)
	}
	plain := metered(guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) { return nil, nil }), legPrimary)
	if _, ok := plain.(guard.ClaimJudge); ok {
		t.Error("metered(JudgeFunc) claims to be a guard.ClaimJudge")
	}

	// Metered claims count as one call of the primary leg.
	meter := &legMeter{}
	ctx := context.WithValue(context.Background(), meterKey{}, meter)
	s := &guard.Sample{Question: "How long is the refund window?",
		Contexts: []guard.Context{{ID: "c1", Text: "Refunds are accepted within 30 days."}},
		Answer:   "Refunds are accepted within 30 days. Shipping is free."}
	out, err := cj.JudgeClaims(ctx, s, []string{"Refunds are accepted within 30 days.", "Shipping is free."})
	if err != nil || len(out) != 2 {
		t.Fatalf("JudgeClaims = %d estimates, %v; want 2, nil", len(out), err)
	}
	if l := meter.legs[legPrimary]; l.calls != 1 || l.estimates != 2 {
		t.Errorf("primary leg: %d calls, %d estimates; want 1 and 2", l.calls, l.estimates)
	}

	c, err := cascade.New(lex)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	h, ok := meterEscalations(c).(guard.ContextHonourer)
	if !ok || !h.HonoursContext() {
		t.Error("meterEscalations(cascade) does not honour its context as the cascade does")
	}
	e := meterEscalations(guard.EscalatorFunc(func(context.Context, guard.Escalation) ([]guard.Estimate, error) { return nil, nil }))
	if h, ok := e.(guard.ContextHonourer); ok && h.HonoursContext() {
		t.Error("meterEscalations(EscalatorFunc) says it honours its context")
	}
}
