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
// answer given after ctx ended is an error that wraps ctx.Err(): a late
// answer is a deadline (or a cancellation), not a result. An estimate of a
// decision that was not asked, of an unknown context, a second estimate of
// one decision (or one chunk), a NaN or out-of-range probability, or a
// negative usage count makes the whole answer an error. In both cases the
// answer is returned beside the error, so that what it spent can be counted.
// The guard recovers and checks its judges and its escalator the same way,
// with the same code. An escalator that calls a judge of its own should use
// Call (package cascade does).
func Call(ctx context.Context, j Judge, req Request) ([]Estimate, error) {
	out, err := safeJudge(ctx, j, req)
	if err == nil {
		if e := ctx.Err(); e != nil {
			return out, fmt.Errorf("judge answered after its context ended: %w", e)
		}
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
// malformed or repeats one given before. A judge that returns garbage for
// one decision is not trusted for the others.
func checkEstimates(out []Estimate, req *Request) error {
	return checkAnswer(out, req, false)
}

// checkAnswer is checkEstimates. perClaim allows one Groundedness estimate
// per claim (ClaimJudge.JudgeClaims answers that way).
func checkAnswer(out []Estimate, req *Request, perClaim bool) error {
	var seen estimateSet
	seen.init(req.Sample)
	var wants [4]uint64 // req.Wants, a bit for each of the 256 values of a Decision
	for _, d := range req.Decisions {
		wants[d>>6] |= 1 << (d & 63)
	}
	for i := range out {
		e := &out[i]
		if wants[e.Decision>>6]&(1<<(e.Decision&63)) == 0 {
			return fmt.Errorf("estimate %d is for %v, which was not asked", i, e.Decision)
		}
		if e.Decision == ChunkRelevance {
			if why := seen.addChunk(e.ContextID, i); why != "" {
				return errors.New(why)
			}
		} else if e.ContextID != "" {
			return fmt.Errorf("%v estimate names context %q", e.Decision, e.ContextID)
		} else if !perClaim {
			if why := seen.addDecision(e.Decision, i); why != "" {
				return errors.New(why)
			}
		}
		if why := e.check(); why != "" {
			return fmt.Errorf("%v estimate: %s", e.Decision, why)
		}
		for k := range e.Evidence {
			if d := e.Evidence[k].Decision; d < ChunkRelevance || d > Correctness { // !d.Valid()
				return fmt.Errorf("%v estimate: evidence %d names no valid decision", e.Decision, k)
			}
		}
	}
	return nil
}

// estimateSet is what one answer has estimated so far: its decisions and,
// for chunk relevance, its contexts by index. It allocates only for a
// sample of more than 64 contexts.
type estimateSet struct {
	s      *Sample
	at     [numDecisions + 1]int32 // 1 + the index of the decision's estimate, by decision
	ids    map[string]int          // context index by ID, for many contexts
	small  uint64                  // contexts estimated, a bit per context index, for up to 64
	chunks []uint64                // the same for more
}

func (z *estimateSet) init(s *Sample) {
	z.s = s
	n := len(s.Contexts)
	if n > 32 {
		z.ids = make(map[string]int, n)
		for i := range s.Contexts {
			z.ids[s.Contexts[i].ID] = i
		}
	}
	if n > 64 {
		z.chunks = make([]uint64, (n+63)/64)
	}
}

// addDecision notes estimate i of d, or says why d was already estimated.
func (z *estimateSet) addDecision(d Decision, i int) string {
	if int(d) >= len(z.at) {
		return ""
	}
	if k := z.at[d]; k > 0 {
		return fmt.Sprintf("estimate %d repeats the %v estimate %d: one estimate per decision", i, d, k-1)
	}
	z.at[d] = int32(i) + 1
	return ""
}

// addChunk notes estimate i of the chunk id, or says why it cannot be
// taken: the sample has no such context, or the chunk was estimated.
func (z *estimateSet) addChunk(id string, i int) string {
	k := -1
	if z.ids != nil {
		if j, ok := z.ids[id]; ok {
			k = j
		}
	} else {
		k = contextIndex(z.s, id)
	}
	if k < 0 {
		return fmt.Sprintf("chunk_relevance estimate for unknown context %q", id)
	}
	word := &z.small
	if z.chunks != nil {
		word = &z.chunks[k/64]
	}
	b := uint64(1) << (k % 64)
	if *word&b != 0 {
		return fmt.Sprintf("estimate %d repeats the chunk_relevance estimate for context %q: one estimate per chunk", i, id)
	}
	*word |= b
	return ""
}

// contextIndex returns the index of the context with the ID, or -1.
func contextIndex(s *Sample, id string) int {
	for i := range s.Contexts {
		if s.Contexts[i].ID == id {
			return i
		}
	}
	return -1
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
	// Cause, for one of the guard's own judges and the claim extractor, is
	// CauseDeadline or CauseCancelled when the judge did not answer before
	// the request ended (or answered after), else CauseJudgeFailed. For the
	// escalator, it is the cause its error wraps. Else it is CauseDeadline
	// or CauseCancelled when the request ended first, else
	// CauseFallbackFailed. (A cascade never fails; another escalator may.)
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
