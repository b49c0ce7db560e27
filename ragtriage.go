package ragtriage

import (
	"context"
	"errors"
	"fmt"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// Option configures New.
type Option func(*config) error

type config struct {
	profile     *lexical.Profile
	profilePath string
	profileSet  bool

	fallback   guard.Judge
	fbPolicy   guard.Policy
	rule       guard.Degrade
	cascadeOps []cascade.Option

	guardOps []guard.Option
}

// WithProfile calibrates the embedded judges with p, which brings its
// thresholds and pass rule (see lexical.WithProfile). Without it, or with a
// nil p, they use the profile shipped in package guard/lexical.
func WithProfile(p *lexical.Profile) Option {
	return func(c *config) error {
		if c.profileSet {
			return errors.New("ragtriage: the profile is given twice (WithProfile, WithProfileFile)")
		}
		c.profile, c.profileSet = p, true
		return nil
	}
}

// WithProfileFile is WithProfile with the profile read from a file, such as
// one written by `ragtriage calibrate -out profile.json`.
func WithProfileFile(path string) Option {
	return func(c *config) error {
		if c.profileSet {
			return errors.New("ragtriage: the profile is given twice (WithProfile, WithProfileFile)")
		}
		c.profilePath, c.profileSet = path, true
		return nil
	}
}

// WithFallback escalates what the embedded judges leave uncertain to
// fallback, usually an LLM judge (llmjudge.NewOpenAI), through a
// cascade.Cascade that New starts with opts (circuit breaker, cache,
// concurrency limit, deadline check, budget; see package cascade) and
// Close stops. The fallback's probabilities are read with policy, which
// must set every decision's thresholds: guard.UniformPolicy(0.3, 0.7)
// reads a sampling LLM judge by majority. rule decides the action when the
// fallback cannot settle an answer (guard.FailClosed blocks it,
// guard.FailOpen lets it through marked as unverified).
//
// A nil fallback, or a nil pointer in a guard.Judge (what llmjudge.NewOpenAI
// returns beside llmjudge.ErrNoAPIKey), is refused, as is a zero policy.
func WithFallback(fallback guard.Judge, policy guard.Policy, rule guard.Degrade, opts ...cascade.Option) Option {
	return func(c *config) error {
		if c.fallback != nil {
			return errors.New("ragtriage: WithFallback is given twice")
		}
		if fallback == nil {
			return errors.New("ragtriage: WithFallback: nil fallback judge (leave the option out to run the embedded judges alone)")
		}
		c.fallback, c.fbPolicy, c.rule = fallback, policy, rule
		c.cascadeOps = append(c.cascadeOps, opts...)
		return nil
	}
}

// WithGuardOptions passes options to guard.New, after those New derives
// from the others: guard.WithLimits, guard.WithClaims, guard.WithClock,
// guard.WithDiagnoser, or guard.WithPolicy to override the profile's
// thresholds.
func WithGuardOptions(opts ...guard.Option) Option {
	return func(c *config) error {
		c.guardOps = append(c.guardOps, opts...)
		return nil
	}
}

// Guard is the production guard: the embedded judges under a calibrated
// profile and, with WithFallback, a cascade to a fallback judge for what
// they leave uncertain. It is safe for concurrent use. Close stops what New
// started; Evaluate after Close still judges with the embedded judges, and
// escalations then abstain (the degrade rule applies).
type Guard struct {
	g *guard.Guard
	c *cascade.Cascade // nil without a fallback
}

// New builds the production guard in one call: the embedded judges
// (package guard/lexical) answering every decision under the shipped
// profile or the one WithProfile / WithProfileFile gives, with its
// thresholds and pass rule; with WithFallback, a cascade to the fallback
// judge for the decisions they leave uncertain. It makes no network
// request. Every option is checked here, and an error says what to change.
func New(opts ...Option) (*Guard, error) {
	var cfg config
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	prof := cfg.profile
	if cfg.profilePath != "" {
		p, err := lexical.LoadProfile(cfg.profilePath)
		if err != nil {
			return nil, fmt.Errorf("ragtriage: %w", err)
		}
		prof = p
	}
	gopts := []guard.Option{lexical.WithProfile(prof)}
	var c *cascade.Cascade
	if cfg.fallback != nil {
		var err error
		if c, err = cascade.New(cfg.fallback, cfg.cascadeOps...); err != nil {
			return nil, fmt.Errorf("ragtriage: %w", err)
		}
		gopts = append(gopts, guard.WithEscalator(c, cfg.fbPolicy, cfg.rule))
	}
	g, err := guard.New(append(gopts, cfg.guardOps...)...)
	if err != nil {
		if c != nil {
			_ = c.Close(context.Background()) // nothing is under way yet
		}
		return nil, fmt.Errorf("ragtriage: %w", err)
	}
	return &Guard{g: g, c: c}, nil
}

// Evaluate judges one sample: see guard.Guard.Evaluate.
func (g *Guard) Evaluate(ctx context.Context, s guard.Sample) (guard.Result, error) {
	return g.g.Evaluate(ctx, s)
}

// Policy returns the thresholds and pass rule the embedded judges are read
// with: the profile's, unless WithGuardOptions(guard.WithPolicy(…)) said
// otherwise.
func (g *Guard) Policy() guard.Policy { return g.g.Policy() }

// Unwrap returns the underlying guard.Unwrap (it shares the cascade: close
// this Unwrap, not it).
func (g *Guard) Unwrap() *guard.Guard { return g.g }

// Cascade returns the cascade around the fallback judge, for its Stats; nil
// without WithFallback.
func (g *Guard) Cascade() *cascade.Cascade { return g.c }

// Close stops the cascade: new escalations abstain, and it waits until the
// fallback calls under way have ended or ctx is done (then it returns
// ctx.Err(); call it again to wait longer). Without a fallback there is
// nothing to stop.
func (g *Guard) Close(ctx context.Context) error {
	if g.c == nil {
		return nil
	}
	return g.c.Close(ctx)
}
