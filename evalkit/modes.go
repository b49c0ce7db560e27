package evalkit

import (
	"errors"
	"fmt"

	"github.com/ragtriage/ragtriage/guard"
)

// Mode says how a replay judges each row. Every mode runs on the same rows,
// so their reports compare directly.
type Mode string

// The modes.
const (
	// ModePrimary: the guard's own judges and policy, no fallback.
	ModePrimary Mode = "primary"
	// ModeFallback: the fallback judge alone, as the baseline.
	ModeFallback Mode = "fallback"
	// ModeCascade: the primary judges decide what they are confident about;
	// the uncertain decisions go to the fallback judge.
	ModeCascade Mode = "cascade"
	// ModeRecorded: no judging; records are scored from the results they
	// carry (record input only).
	ModeRecorded Mode = "recorded"
)

// ParseMode returns the mode with the given name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModePrimary, ModeFallback, ModeCascade, ModeRecorded:
		return m, nil
	}
	return "", fmt.Errorf("evalkit: unknown mode %q (want primary, fallback, cascade or recorded)", s)
}

// ModeConfig holds what NewModeGuard builds a guard from.
type ModeConfig struct {
	// Primary answers every decision in primary and cascade mode, with
	// PrimaryPolicy.
	Primary       guard.Judge
	PrimaryPolicy guard.Policy
	// Fallback answers every decision in fallback mode, and the escalated
	// ones in cascade mode, read with FallbackPolicy.
	Fallback       guard.Judge
	FallbackPolicy guard.Policy
	// Degrade decides Result.Action when the fallback cannot settle an
	// escalation (cascade mode).
	Degrade guard.Degrade
	// Options are applied after the mode's own (limits, clock, …).
	Options []guard.Option
}

// NewModeGuard returns the guard that judges rows in the given mode, with
// every judge wrapped by Metered so that the runner can attribute latency and
// usage to the primary and fallback legs:
//
//	primary:  WithJudge(Primary), WithPolicy(PrimaryPolicy)
//	fallback: WithJudge(Fallback), WithPolicy(FallbackPolicy)
//	cascade:  the primary guard plus WithEscalator(NewJudgeEscalator(Fallback), FallbackPolicy, Degrade)
func NewModeGuard(mode Mode, c ModeConfig) (*guard.Guard, error) {
	var opts []guard.Option
	switch mode {
	case ModePrimary, ModeCascade:
		if c.Primary == nil {
			return nil, fmt.Errorf("evalkit: %s mode needs a primary judge", mode)
		}
		opts = append(opts, guard.WithJudge(Metered(c.Primary, LegPrimary)), guard.WithPolicy(c.PrimaryPolicy))
		if mode == ModeCascade {
			if c.Fallback == nil {
				return nil, errors.New("evalkit: cascade mode needs a fallback judge")
			}
			opts = append(opts, guard.WithEscalator(NewJudgeEscalator(Metered(c.Fallback, LegFallback)), c.FallbackPolicy, c.Degrade))
		}
	case ModeFallback:
		if c.Fallback == nil {
			return nil, errors.New("evalkit: fallback mode needs a fallback judge")
		}
		opts = append(opts, guard.WithJudge(Metered(c.Fallback, LegFallback)), guard.WithPolicy(c.FallbackPolicy))
	case ModeRecorded:
		return nil, errors.New("evalkit: recorded mode judges nothing: it needs no guard")
	default:
		return nil, fmt.Errorf("evalkit: unknown mode %q", mode)
	}
	return guard.New(append(opts, c.Options...)...)
}
