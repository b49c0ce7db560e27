package guard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Request is what a judge is asked: the decisions to estimate for one sample.
// A judge must not modify the sample. The wording of each decision is in
// Definitions(req.Sample.Variant()).
type Request struct {
	Sample *Sample
	// Decisions lists what to estimate. ChunkRelevance, when listed, asks for
	// one estimate per context. Correctness is only listed when the sample has
	// a reference.
	Decisions []Decision
}

// Wants reports whether d is among the requested decisions.
func (r *Request) Wants(d Decision) bool {
	for _, x := range r.Decisions {
		if x == d {
			return true
		}
	}
	return false
}

// A Judge estimates decisions for a sample. It returns exactly one Estimate
// per requested decision, one per context for ChunkRelevance, and none for
// a decision that was not asked. An estimate it cannot give is returned
// with Abstained set and a Reason (see Abstain), so that the result says
// why. A returned error makes every requested decision uncertain.
// Implementations must honour ctx and be safe for concurrent use.
// guardtest.TestJudge checks this contract.
//
// The guard is lenient where the contract is strict: an estimate left out
// reads as an abstention ("no judge estimated it"), never as a pass.
//
// The returned slice belongs to the guard. It fills in empty Judge names
// and keeps the slice in Result.Estimates. So return a new slice on every
// call, never one the judge keeps or reuses, such as a cached answer.
type Judge interface {
	Judge(ctx context.Context, req Request) ([]Estimate, error)
}

// JudgeFunc adapts a function to the Judge interface.
type JudgeFunc func(ctx context.Context, req Request) ([]Estimate, error)

// Judge calls f(ctx, req).
func (f JudgeFunc) Judge(ctx context.Context, req Request) ([]Estimate, error) { return f(ctx, req) }

// JudgeInfo names a judge and its version in results. Judges may implement
// Describer to provide it.
type JudgeInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Describer is implemented by judges that can name themselves.
type Describer interface {
	Describe() JudgeInfo
}

// Inline is implemented by judges that do no I/O and return within a bounded
// time, such as the embedded lexical judges. The guard calls them on the
// caller's goroutine. Other judges run on a goroutine of their own, so that
// one that ignores cancellation cannot hold the caller past its deadline.
type Inline interface {
	Inline() bool
}

// ContextHonourer is implemented by an escalator that returns soon after its
// context ends, such as a cascade.Cascade. When HonoursContext reports true,
// the guard calls it on the caller's goroutine. An escalator that does not
// implement it runs on a goroutine of its own, like a judge that is not
// Inline. Either way, an answer given after the context ended is refused.
type ContextHonourer interface {
	HonoursContext() bool
}

// ClaimJudge is a groundedness judge that can judge all claims of one sample
// in one call (see WithClaims), analysing the contexts once. JudgeClaims
// returns one Groundedness estimate per claim, in order. The estimate for
// claims[i] is the one Judge would return for s with Answer set to
// claims[i]. Claims mode uses it when the judge bound to Groundedness
// implements it, and calls Judge once per claim otherwise.
type ClaimJudge interface {
	Judge
	JudgeClaims(ctx context.Context, s *Sample, claims []string) ([]Estimate, error)
}

// Call asks j for the estimates of req. A panic becomes a *PanicError. An
// estimate of a decision that was not asked, of an unknown context, or with
// a NaN or out-of-range probability makes the whole answer an error; the
// answer is returned beside it. The guard recovers and checks its judges
// and its escalator the same way, with the same code. It also refuses an
// answer given after ctx ended. An escalator that calls a judge of its own
// should use Call (package cascade does).
func Call(ctx context.Context, j Judge, req Request) ([]Estimate, error) {
	out, err := safeJudge(ctx, j, req)
	if err == nil {
		err = checkEstimates(out, &req)
	}
	return out, err
}

// safeJudge calls j, turning a panic into a *PanicError.
func safeJudge(ctx context.Context, j Judge, req Request) (out []Estimate, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, &PanicError{Value: v}
		}
	}()
	return j.Judge(ctx, req)
}

// checkEstimates rejects a judge's whole answer when any estimate is
// malformed. A judge that returns garbage for one decision is not trusted
// for the others.
func checkEstimates(out []Estimate, req *Request) error {
	s := req.Sample
	var ids map[string]struct{}
	if len(s.Contexts) > 32 {
		ids = make(map[string]struct{}, len(s.Contexts))
		for i := range s.Contexts {
			ids[s.Contexts[i].ID] = struct{}{}
		}
	}
	for i := range out {
		e := &out[i]
		if !req.Wants(e.Decision) {
			return fmt.Errorf("estimate %d is for %v, which was not asked", i, e.Decision)
		}
		if e.Decision == ChunkRelevance {
			known := false
			if ids != nil {
				_, known = ids[e.ContextID]
			} else {
				known = hasContext(s, e.ContextID)
			}
			if !known {
				return fmt.Errorf("chunk_relevance estimate for unknown context %q", e.ContextID)
			}
		} else if e.ContextID != "" {
			return fmt.Errorf("%v estimate names context %q", e.Decision, e.ContextID)
		}
		if why := e.check(); why != "" {
			return fmt.Errorf("%v estimate: %s", e.Decision, why)
		}
		for k := range e.Evidence {
			if !e.Evidence[k].Decision.Valid() {
				return fmt.Errorf("%v estimate: evidence %d names no valid decision", e.Decision, k)
			}
		}
	}
	return nil
}

func hasContext(s *Sample, id string) bool {
	for i := range s.Contexts {
		if s.Contexts[i].ID == id {
			return true
		}
	}
	return false
}

// ErrJudge is wrapped by every JudgeError.
var ErrJudge = errors.New("judge failed")

// JudgeError reports that a judge failed (returned an error, panicked,
// returned a malformed estimate, or ignored cancellation). The decisions it
// was asked are uncertain in the result.
type JudgeError struct {
	Judge     string     `json:"judge"`
	Decisions []Decision `json:"decisions"`
	Err       error      `json:"-"`
	Message   string     `json:"error"`
	// Cause is CauseJudgeFailed for one of the guard's own judges and the
	// claim extractor. For the escalator, it is the cause its error wraps.
	// Else it is CauseDeadline or CauseCancelled when the request ended
	// first, else CauseFallbackFailed. (A cascade never fails; another
	// escalator may.)
	Cause Cause `json:"cause,omitempty"`
}

func newJudgeError(judge string, ds []Decision, cause Cause, err error) *JudgeError {
	return &JudgeError{Judge: judge, Decisions: slices.Clone(ds), Err: err, Message: err.Error(), Cause: cause}
}

func (e *JudgeError) Error() string {
	names := make([]string, len(e.Decisions))
	for i, d := range e.Decisions {
		names[i] = d.String()
	}
	return fmt.Sprintf("guard: judge %s (%s): %v", e.Judge, strings.Join(names, ","), e.Err)
}

// Unwrap returns ErrJudge, the sentinel of the error's Cause and the judge's
// own error, so that errors.Is(err, ErrJudge), errors.Is(err,
// ErrFallbackFailed) and errors.Is(err, context.DeadlineExceeded) work. (A
// JudgeError read back from JSON has no judge's error: its Cause still
// unwraps.)
func (e *JudgeError) Unwrap() []error {
	errs := make([]error, 1, 3)
	errs[0] = ErrJudge
	if s := e.Cause.Err(); s != nil && s != ErrJudge {
		errs = append(errs, s)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// PanicError is the error a panicking judge is reported with.
type PanicError struct {
	Value any
}

func (e *PanicError) Error() string { return fmt.Sprintf("judge panicked: %v", e.Value) }
