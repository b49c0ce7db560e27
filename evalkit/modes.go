package evalkit

import (
	"context"
	"errors"
	"fmt"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
)

// ModeConfig holds what BuildMode builds a guard from.
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
	// Cascade configures the cascade that cascade mode runs the fallback
	// behind. A zero field is cascade's default; by default no call waits
	// for a free slot (the ragtriage command sets Limits.MaxWaiting to
	// cascade.NoLimit).
	Cascade cascade.Config
	// NewEscalator, when set, builds cascade mode's escalator instead of
	// that cascade, and Cascade is ignored. It is given the metered
	// fallback judge and must send every fallback call through it.
	NewEscalator func(fallback guard.Judge) (guard.Escalator, error)
	// Claims, when set, turns on claims mode (guard.WithClaims) in every
	// mode: the answer is split into claims and each is judged on its own.
	// In cascade mode a claim the primary leaves uncertain is escalated on
	// its own. nil keeps the basic mode.
	Claims guard.ClaimExtractor
	// Options are applied after the mode's own (limits, clock, …).
	Options []guard.Option
}

// ModeSetup is what BuildMode returns: the guard, and in cascade mode the
// escalator behind it, whose counters the report shows (Config.Escalator)
// and which Close shuts down.
type ModeSetup struct {
	Guard *guard.Guard
	// Escalator is cascade mode's escalator as built (a *cascade.Cascade
	// unless ModeConfig.NewEscalator made another); nil in other modes.
	Escalator guard.Escalator
	// Cascade holds the effective settings of the cascade built from
	// ModeConfig.Cascade; nil when there is none.
	Cascade *cascade.Config
	// Claims is ModeConfig.Claims: the claim extractor the guard runs in
	// claims mode, nil in basic mode.
	Claims guard.ClaimExtractor
}

// Close shuts the escalator down when it has a Close(ctx) error method
// (*cascade.Cascade does: it stops new escalations and waits for the calls
// under way, or until ctx is done). Call it after the run.
func (m *ModeSetup) Close(ctx context.Context) error {
	if c, ok := m.Escalator.(interface{ Close(context.Context) error }); ok {
		return c.Close(ctx)
	}
	return nil
}

// Configure copies the guard, the escalator, the cascade settings and the
// claim extractor into a replay's configuration.
func (m *ModeSetup) Configure(cfg *Config) {
	cfg.Guard, cfg.Escalator, cfg.CascadeSettings, cfg.ClaimExtractor = m.Guard, m.Escalator, m.Cascade, m.Claims
}

// BuildMode returns the guard that judges rows in the given mode. Every
// judge is metered, so that the runner can attribute latency and usage to
// the primary and fallback legs:
//
//	primary:  WithJudge(Primary), WithPolicy(PrimaryPolicy)
//	fallback: WithJudge(Fallback), WithPolicy(FallbackPolicy)
//	cascade:  the primary guard plus WithEscalator(cascade around Fallback, FallbackPolicy, Degrade)
//
// plus WithClaims(Claims) in every mode when Claims is set.
//
// In cascade mode the fallback judge runs inside a cascade.Cascade built
// from c.Cascade (or c.NewEscalator's escalator). Only the calls that reach
// the fallback count in the fallback leg: not cache hits, not refusals.
// Calls made in parallel for one escalation count once in its latency, at
// the longest.
func BuildMode(mode report.Mode, c ModeConfig) (*ModeSetup, error) {
	var (
		opts []guard.Option
		m    ModeSetup
	)
	switch mode {
	case report.ModePrimary, report.ModeCascade:
		if c.Primary == nil {
			return nil, fmt.Errorf("evalkit: %s mode needs a primary judge", mode)
		}
		opts = append(opts, guard.WithJudge(metered(c.Primary, legPrimary)), guard.WithPolicy(c.PrimaryPolicy))
		if mode == report.ModeCascade {
			if c.Fallback == nil {
				return nil, errors.New("evalkit: cascade mode needs a fallback judge")
			}
			fb := metered(c.Fallback, legFallback)
			if c.NewEscalator != nil {
				esc, err := c.NewEscalator(fb)
				if err != nil {
					return nil, fmt.Errorf("evalkit: cascade mode: %w", err)
				}
				if esc == nil {
					return nil, errors.New("evalkit: cascade mode: NewEscalator returned nil")
				}
				m.Escalator = esc
			} else {
				eff, err := c.Cascade.Effective()
				if err != nil {
					return nil, err
				}
				cas, err := cascade.NewFromConfig(fb, eff)
				if err != nil {
					return nil, err
				}
				m.Escalator, m.Cascade = cas, &eff
			}
			opts = append(opts, guard.WithEscalator(meterEscalations(m.Escalator), c.FallbackPolicy, c.Degrade))
		}
	case report.ModeFallback:
		if c.Fallback == nil {
			return nil, errors.New("evalkit: fallback mode needs a fallback judge")
		}
		opts = append(opts, guard.WithJudge(metered(c.Fallback, legFallback)), guard.WithPolicy(c.FallbackPolicy))
	case report.ModeRecorded:
		return nil, errors.New("evalkit: recorded mode judges nothing: it needs no guard")
	default:
		return nil, fmt.Errorf("evalkit: unknown mode %q", mode)
	}
	if c.Claims != nil {
		opts = append(opts, guard.WithClaims(c.Claims))
		m.Claims = c.Claims
	}
	g, err := guard.New(append(opts, c.Options...)...)
	if err != nil {
		if cerr := m.Close(context.Background()); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return nil, err
	}
	m.Guard = g
	return &m, nil
}
