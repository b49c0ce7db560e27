package guardtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// FakeVersion is the version every fake reports through Describe.
const FakeVersion = "0"

// Fixed is a judge that answers every requested decision with a fixed
// probability: the chunk relevance of context id is Chunks[id] when present;
// any other estimate (and a chunk absent from Chunks) is P[d] when present,
// else Default. The zero Fixed answers 0 for everything.
//
// Fixed does no I/O, so it reports itself [guard.Inline]. When ctx is already
// done it returns an error wrapping ctx.Err() and no estimates. Each call
// returns a new slice, answers a decision listed twice in the request once,
// and skips invalid decisions. A Fixed only reads its maps: it is safe for
// concurrent use as long as nobody modifies them.
type Fixed struct {
	// P maps a decision to its probability.
	P map[guard.Decision]float64
	// Chunks maps a context ID to its chunk relevance.
	Chunks map[string]float64
	// Default is the probability of a decision absent from P.
	Default float64
	// Name is the judge's name in results; "guardtest.Fixed" when empty.
	Name string
}

// Judge implements [guard.Judge].
func (f Fixed) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("guardtest: Fixed: %w", err)
	}
	return answer(req, func(d guard.Decision, contextID string) guard.Estimate {
		return guard.Estimate{Decision: d, ContextID: contextID, P: f.prob(d, contextID)}
	}), nil
}

func (f Fixed) prob(d guard.Decision, contextID string) float64 {
	if d == guard.ChunkRelevance {
		if p, ok := f.Chunks[contextID]; ok {
			return p
		}
	}
	if p, ok := f.P[d]; ok {
		return p
	}
	return f.Default
}

// Describe implements [guard.Describer].
func (f Fixed) Describe() guard.JudgeInfo {
	name := f.Name
	if name == "" {
		name = "guardtest.Fixed"
	}
	return guard.JudgeInfo{Name: name, Version: FakeVersion}
}

// Inline implements [guard.Inline]: Fixed does no I/O.
func (Fixed) Inline() bool { return true }

// Abstaining is a judge that abstains on every requested decision (on every
// context for chunk relevance) with Reason, or "guardtest: abstaining" when
// Reason is empty. It honours ctx like [Fixed] and is safe for concurrent
// use.
type Abstaining struct {
	Reason string
}

// Judge implements [guard.Judge].
func (a Abstaining) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("guardtest: Abstaining: %w", err)
	}
	reason := a.Reason
	if reason == "" {
		reason = "guardtest: abstaining"
	}
	return answer(req, func(d guard.Decision, contextID string) guard.Estimate {
		return guard.Abstain(d, contextID, reason)
	}), nil
}

// Describe implements [guard.Describer].
func (Abstaining) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "guardtest.Abstaining", Version: FakeVersion}
}

// ErrFailed is what a [Failing] judge with a nil Err returns.
var ErrFailed = errors.New("guardtest: judge failed")

// Failing is a judge whose every call returns Err (ErrFailed when Err is nil)
// unchanged and no estimates, whatever the context. It is safe for concurrent
// use.
type Failing struct {
	Err error
}

// Judge implements [guard.Judge].
func (f Failing) Judge(context.Context, guard.Request) ([]guard.Estimate, error) {
	if f.Err == nil {
		return nil, ErrFailed
	}
	return nil, f.Err
}

// Describe implements [guard.Describer].
func (Failing) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "guardtest.Failing", Version: FakeVersion}
}

// Panicking is a judge whose every call panics with Value, or with the
// string "guardtest: judge panicked" when Value is nil. It is safe for
// concurrent use (every call panics the same way).
type Panicking struct {
	Value any
}

// Judge implements [guard.Judge]. It never returns.
func (p Panicking) Judge(context.Context, guard.Request) ([]guard.Estimate, error) {
	if p.Value == nil {
		panic("guardtest: judge panicked")
	}
	panic(p.Value)
}

// Describe implements [guard.Describer].
func (Panicking) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "guardtest.Panicking", Version: FakeVersion}
}

// NaN is a judge that answers every requested decision (every context for
// chunk relevance) with a NaN probability: a malformed estimate, which the
// guard must reject and TestJudge must flag. It honours ctx like [Fixed] and
// is safe for concurrent use.
type NaN struct{}

// Judge implements [guard.Judge].
func (NaN) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("guardtest: NaN: %w", err)
	}
	return answer(req, func(d guard.Decision, contextID string) guard.Estimate {
		return guard.Estimate{Decision: d, ContextID: contextID, P: math.NaN()}
	}), nil
}

// Describe implements [guard.Describer].
func (NaN) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "guardtest.NaN", Version: FakeVersion}
}

// Slow is a judge that takes its time. Each call blocks until Delay has
// passed (never, when Delay is 0), Release is closed (never, when Release is
// nil), or — unless IgnoreContext is set — ctx is done. When ctx ended the
// wait, the call returns an error wrapping ctx.Err(); otherwise it returns
// what Then answers (Fixed{Default: 0.5} when Then is nil).
//
// With IgnoreContext, Slow simulates a judge that ignores cancellation: it
// keeps blocking after ctx is done and then answers successfully, as if
// nothing had happened (Then is called with [context.WithoutCancel] of ctx).
// Such a call outlives the caller's deadline, so give it a Delay or close
// Release when the test ends (t.Cleanup), or its goroutine outlives the test.
//
// Slow is not Inline: the guard runs it on a goroutine of its own. It is safe
// for concurrent use when Then is.
type Slow struct {
	Delay         time.Duration
	Release       <-chan struct{}
	IgnoreContext bool
	Then          guard.Judge
}

// Judge implements [guard.Judge].
func (s Slow) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	var timeout <-chan time.Time
	if s.Delay > 0 {
		t := time.NewTimer(s.Delay)
		defer t.Stop()
		timeout = t.C
	}
	done := ctx.Done()
	if s.IgnoreContext {
		done = nil
		ctx = context.WithoutCancel(ctx)
	}
	select {
	case <-timeout:
	case <-s.Release:
	case <-done:
		return nil, fmt.Errorf("guardtest: Slow: %w", ctx.Err())
	}
	then := s.Then
	if then == nil {
		then = Fixed{Default: 0.5}
	}
	return then.Judge(ctx, req)
}

// Describe implements [guard.Describer].
func (Slow) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "guardtest.Slow", Version: FakeVersion}
}

// answer builds one estimate per requested decision (per context for chunk
// relevance), skipping invalid and repeated decisions.
func answer(req guard.Request, est func(d guard.Decision, contextID string) guard.Estimate) []guard.Estimate {
	var contexts []guard.Context
	if req.Sample != nil {
		contexts = req.Sample.Contexts
	}
	n := 0
	for _, d := range req.Decisions {
		if d == guard.ChunkRelevance {
			n += len(contexts)
		} else {
			n++
		}
	}
	out := make([]guard.Estimate, 0, n)
	var seen [16]bool
	for _, d := range req.Decisions {
		if !d.Valid() || seen[d] {
			continue
		}
		seen[d] = true
		if d != guard.ChunkRelevance {
			out = append(out, est(d, ""))
			continue
		}
		for i := range contexts {
			out = append(out, est(d, contexts[i].ID))
		}
	}
	return out
}

var (
	_ guard.Judge     = Fixed{}
	_ guard.Describer = Fixed{}
	_ guard.Inline    = Fixed{}
	_ guard.Judge     = Abstaining{}
	_ guard.Judge     = Failing{}
	_ guard.Judge     = Panicking{}
	_ guard.Judge     = NaN{}
	_ guard.Judge     = Slow{}
)
