package middleware

import (
	"context"
	"log/slog"

	"github.com/ragtriage/ragtriage/guard"
)

// withholdAllWarning is the message New logs for an inline gate that will
// withhold every answer but retrieval misses (see WithGuard).
const withholdAllWarning = "ragtriage middleware: inline gating with no fallback under a policy that decides nothing on its own: " +
	"every answer will be withheld for review, except retrieval misses (samples without contexts), which are blocked: none is allowed through. " +
	"Choose this knowingly, or: add a fallback judge (ragtriage.WithFallback, guard.WithEscalator); " +
	"load a profile calibrated on your traffic (ragtriage calibrate -records, ragtriage.WithProfileFile); " +
	"or run in shadow mode first (middleware.WithShadow) to record that traffic"

// guardOf returns the *guard.Guard behind an evaluator: the evaluator
// itself, or what its Unwrap method returns (*ragtriage.Guard). Nil for any
// other evaluator.
func guardOf(e Evaluator) *guard.Guard {
	switch v := e.(type) {
	case *guard.Guard:
		return v
	case interface{ Unwrap() *guard.Guard }:
		return v.Unwrap()
	}
	return nil
}

// warnWithholdAll logs withholdAllWarning when the inline evaluator is a
// guard with no escalator whose policy decides nothing, and the gate
// withholds what it reviews.
func (c *config) warnWithholdAll() {
	if c.inline == nil || c.gate.Review == AnnotateOnly {
		return
	}
	g := guardOf(c.inline)
	if g == nil || g.HasEscalator() {
		return
	}
	if p := g.Policy(); p.Decides() {
		return
	}
	l := c.logger
	if l == nil {
		l = slog.Default()
	}
	l.LogAttrs(context.Background(), slog.LevelWarn, withholdAllWarning,
		slog.String("review", c.gate.Review.String()), slog.Bool("fallback", false), slog.Bool("policyDecides", false))
}
