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
// per requested decision (one per context for ChunkRelevance) and none for a
// decision that was not asked; an estimate it cannot give is returned with
// Abstained set and a Reason (see Abstain), so that the result says why. A
// returned error makes every requested decision uncertain. Implementations
// must honour ctx and be safe for concurrent use. guardtest.TestJudge checks
// this contract.
//
// The guard itself is lenient where the contract is strict: an estimate
// left out reads as an abstention ("no judge estimated it"), never as a
// pass.
//
// The returned slice belongs to the guard, which fills in empty Judge names
// and keeps it in Result.Estimates: return a new slice on every call (never
// one the judge keeps or reuses, such as a cached answer).
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
// time (such as the embedded lexical judges). The guard calls them on the
// caller's goroutine; other judges run on their own goroutine so that a judge
// that ignores cancellation cannot hold the caller past its deadline.
type Inline interface {
	Inline() bool
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
	// Cause is CauseJudgeFailed for one of the guard's own judges (and the
	// claim extractor); for the escalator, the cause its error wraps
	// (package cascade's never fail, but another escalator's may), else
	// CauseDeadline or CauseCancelled when the request ended first, else
	// CauseFallbackFailed.
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
