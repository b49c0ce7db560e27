package demo

import (
	"fmt"

	"github.com/ragtriage/ragtriage"
	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// FallbackThresholds are the thresholds the fallback judge's estimates are
// read with, for every decision: the default of `ragtriage eval
// -fallback-policy` (fail at P ≤ 0.3, pass at P ≥ 0.7), so that the examples
// read the fallback the way the CLI's cascade mode does. They were not
// fitted to the examples. With a judge that samples (the stand-in, or any
// server without log-probabilities), they amount to "the majority of the
// samples": llmjudge abstains when more than a fifth of its five samples
// dissent, so every estimate it does give is 0, 0.2, 0.8 or 1, and any
// thresholds between 0.2 and 0.8 give the same verdicts. A fallback that
// returns log-probabilities, or a different sample count, should have its
// thresholds calibrated like the embedded judges' (`ragtriage calibrate`).
var FallbackThresholds = guard.Thresholds{Fail: 0.3, Pass: 0.7}

// FallbackPolicy returns FallbackThresholds for every decision.
func FallbackPolicy() guard.Policy {
	return guard.UniformPolicy(FallbackThresholds.Fail, FallbackThresholds.Pass)
}

// Guard is the examples' guard, built by ragtriage.New: the embedded
// judges (package guard/lexical) under the shipped profile's calibrated
// policy, escalating what they leave uncertain through a cascade to a
// fallback judge, fail-closed (an escalation the fallback cannot settle
// blocks the answer, with the diagnosis JUDGE_UNCERTAIN). It is safe for
// concurrent use; Close ends the cascade.
type Guard = ragtriage.Guard

// NewGuard returns the examples' guard with the offline fallback: the LLM
// judge of package llmjudge over a ScriptedStandInLLM (a simulation). The
// stand-in is returned too, to count its calls.
func NewGuard(opts ...cascade.Option) (*Guard, *ScriptedStandInLLM, error) {
	j, m, err := NewStandInJudge()
	if err != nil {
		return nil, nil, err
	}
	g, err := NewGuardWith(j, opts...)
	if err != nil {
		return nil, nil, err
	}
	return g, m, nil
}

// NewGuardWith returns the examples' guard escalating to fallback (for
// example llmjudge.NewOpenAI's judge), read with FallbackPolicy. opts
// configure the cascade.
func NewGuardWith(fallback guard.Judge, opts ...cascade.Option) (*Guard, error) {
	g, err := ragtriage.New(ragtriage.WithFallback(fallback, FallbackPolicy(), guard.FailClosed, opts...))
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	return g, nil
}
