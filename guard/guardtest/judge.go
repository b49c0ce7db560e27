package guardtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// Time limits of TestJudge.
const (
	// CancelGrace is how long a judge may take to return once its context
	// is done.
	CancelGrace = time.Second
	// CallTimeout bounds each call TestJudge makes with a live context.
	CallTimeout = 10 * time.Second
	// Goroutines is how many goroutines share one judge in the concurrency
	// check.
	Goroutines = 8
)

// TestJudge checks that the judges newJudge returns keep the [guard.Judge]
// contract. It runs each check as a subtest, with a judge of its own from
// newJudge (the concurrency check shares one judge between goroutines):
//
//   - Valid: for each built-in sample (with and without a reference, with
//     zero, one and many contexts, Unicode text, empty answer, question,
//     reference and context text, a long context) asked every decision of its
//     variant, the judge returns no error and exactly one estimate per
//     requested decision (one per context for chunk relevance: an estimate
//     the judge cannot give must come back as an abstention, not be left
//     out), context IDs that name the sample's contexts (and only on chunk
//     relevance), P in [0, 1] and never NaN unless abstaining, evidence and
//     citation decisions that are valid, quotes whose offsets select their
//     text within the quoted source, estimates that encode as JSON, and a
//     sample it did not modify.
//   - OnlyAsked: the same checks when asked one decision at a time and a few
//     pairs: no estimate for a decision that was not asked.
//   - Cancelled and DeadlineExceeded: with a context that is cancelled (or
//     past its deadline) before the call, the judge returns an error within
//     CancelGrace and never a successful result. The error should wrap
//     ctx.Err() (logged when it does not).
//   - Concurrent: Goroutines goroutines judge the built-in samples with one
//     shared judge at the same time; every output must be valid, and when two
//     sequential runs of a sample agree (the judge is deterministic for it),
//     every concurrent run must agree with them. Run with -race.
//
// Errors. Every error the judge returns in Cancelled and DeadlineExceeded must
// be one a caller can inspect with errors.Is or errors.As rather than by its
// text. TestJudge accepts an error when it wraps another (an Unwrap method
// returns a non-nil error or a non-empty list), when it is a sentinel (the
// judge returned the identical value on a second identical call, as with
// context.Canceled), or when it has a type of its own (anything but the type
// errors.New and fmt.Errorf without %w return). A fresh errors.New string is
// rejected. In Valid, OnlyAsked and Concurrent any error is a failure.
//
// A panic in the judge is reported as a failure, not propagated. A judge that
// never returns leaks a goroutine.
func TestJudge(t *testing.T, newJudge func() guard.Judge) {
	t.Helper()
	if newJudge == nil {
		panic("guardtest: TestJudge: nil newJudge")
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, newJudge) })
	}
}

// reporter is the part of testing.T the checks use; it lets guardtest's own
// tests record failures instead of failing. Errorf and Logf must be safe for
// concurrent use.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

type check struct {
	name string
	run  func(r reporter, newJudge func() guard.Judge)
}

var checks = []check{
	{"Valid", checkValid},
	{"OnlyAsked", checkOnlyAsked},
	{"Cancelled", checkCancelled},
	{"DeadlineExceeded", checkDeadline},
	{"Concurrent", checkConcurrent},
}

// outcome is what one call of a judge came to.
type outcome struct {
	ests     []guard.Estimate
	err      error
	panicked bool
	value    any  // the panic value
	returned bool // false: the judge did not return in time
	elapsed  time.Duration
}

// call runs j on a goroutine and waits for it until ctx is done and grace
// has passed since.
func call(ctx context.Context, j guard.Judge, req guard.Request, grace time.Duration) outcome {
	start := time.Now()
	ch := make(chan outcome, 1)
	go func() {
		o := outcome{returned: true}
		defer func() {
			if v := recover(); v != nil {
				o = outcome{returned: true, panicked: true, value: v}
			}
			ch <- o
		}()
		o.ests, o.err = j.Judge(ctx, req)
	}()
	finish := func(o outcome) outcome {
		o.elapsed = time.Since(start)
		return o
	}
	select {
	case o := <-ch:
		return finish(o)
	case <-ctx.Done():
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case o := <-ch:
		return finish(o)
	case <-timer.C:
		return finish(outcome{})
	}
}

// judgeLive calls j with a fresh live context and reports a failure (and
// false) when the call did not return estimates.
func judgeLive(r reporter, j guard.Judge, req guard.Request, what string) ([]guard.Estimate, bool) {
	r.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	o := call(ctx, j, req, CancelGrace)
	switch {
	case !o.returned:
		r.Errorf("%s: judge did not return within %v, nor within %v of its context's deadline", what, CallTimeout, CancelGrace)
	case o.panicked:
		r.Errorf("%s: judge panicked: %v", what, o.value)
	case o.err != nil:
		r.Errorf("%s: judge returned error %q; want estimates for a valid sample", what, o.err)
	default:
		return o.ests, true
	}
	return nil, false
}

func describe(name string, ds []guard.Decision) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.String()
	}
	return fmt.Sprintf("sample %q, decisions [%s]", name, strings.Join(names, " "))
}

func checkValid(r reporter, newJudge func() guard.Judge) {
	r.Helper()
	j := newJudge()
	for _, ns := range samples() {
		s := &ns.s
		before := cloneSample(s)
		ds := allDecisions(s)
		what := describe(ns.name, ds)
		ests, ok := judgeLive(r, j, request(s, ds), what)
		if !ok {
			continue
		}
		for _, p := range validate(request(s, ds), ests) {
			r.Errorf("%s: %s", what, p)
		}
		if !reflect.DeepEqual(before, *s) {
			r.Errorf("%s: judge modified the sample:\nbefore %+v\nafter  %+v", what, before, *s)
		}
	}
}

func checkOnlyAsked(r reporter, newJudge func() guard.Judge) {
	r.Helper()
	j := newJudge()
	for _, ns := range samples() {
		switch ns.name {
		case "contexts+reference", "no-contexts", "unicode":
		default:
			continue
		}
		s := &ns.s
		for _, ds := range subsets(s) {
			what := describe(ns.name, ds)
			req := request(s, ds)
			ests, ok := judgeLive(r, j, req, what)
			if !ok {
				continue
			}
			for _, p := range validate(req, ests) {
				r.Errorf("%s: %s", what, p)
			}
		}
	}
}

func checkCancelled(r reporter, newJudge func() guard.Judge) {
	r.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	checkDone(r, newJudge(), ctx, "a cancelled context")
}

func checkDeadline(r reporter, newJudge func() guard.Judge) {
	r.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	checkDone(r, newJudge(), ctx, "a context past its deadline")
}

// checkDone calls j with ctx, which is already done.
func checkDone(r reporter, j guard.Judge, ctx context.Context, how string) {
	r.Helper()
	for _, ns := range samples() {
		switch ns.name {
		case "contexts+reference", "no-contexts":
		default:
			continue
		}
		s := &ns.s
		req := request(s, allDecisions(s))
		what := fmt.Sprintf("sample %q with %s", ns.name, how)
		o := call(ctx, j, req, CancelGrace)
		switch {
		case !o.returned:
			r.Errorf("%s: judge did not return within %v", what, CancelGrace)
			return // it would not return the second time either
		case o.panicked:
			r.Errorf("%s: judge panicked: %v", what, o.value)
			continue
		case o.err == nil:
			r.Errorf("%s: judge returned %d estimates and no error; want an error (wrapping %v)", what, len(o.ests), ctx.Err())
			continue
		}
		if !errors.Is(o.err, ctx.Err()) {
			r.Logf("%s: error %q does not wrap %v (allowed, but callers cannot tell cancellation from failure)", what, o.err, ctx.Err())
		}
		again := call(ctx, j, req, CancelGrace)
		if why := uninspectable(o.err, again.err); why != "" {
			r.Errorf("%s: error %q (%T): %s", what, o.err, o.err, why)
		}
	}
}

var stringErrorType = reflect.TypeOf(errors.New(""))

// uninspectable says why err cannot be inspected with errors.Is or
// errors.As, or returns "". again is the error of a second identical call.
func uninspectable(err, again error) string {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if u.Unwrap() != nil {
			return ""
		}
	case interface{ Unwrap() []error }:
		if len(u.Unwrap()) > 0 {
			return ""
		}
	}
	if reflect.TypeOf(err) != stringErrorType {
		return "" // a type of its own: errors.As can find it
	}
	if again == err {
		return "" // a sentinel
	}
	return "a new errors.New value each call that wraps nothing: wrap the cause with %w, or return a sentinel or a typed error"
}

// key is the part of an estimate that must not depend on timing.
type key struct {
	d         guard.Decision
	contextID string
	p         uint64
	abstained bool
}

func keys(ests []guard.Estimate) []key {
	out := make([]key, len(ests))
	for i, e := range ests {
		out[i] = key{e.Decision, e.ContextID, math.Float64bits(e.P), e.Abstained}
		if e.Abstained {
			out[i].p = 0
		}
	}
	return out
}

func checkConcurrent(r reporter, newJudge func() guard.Judge) {
	r.Helper()
	j := newJudge()
	all := samples()
	type job struct {
		name string
		req  guard.Request
		want []key // nil: not deterministic
	}
	jobs := make([]job, 0, len(all))
	for i := range all {
		s := &all[i].s
		req := request(s, allDecisions(s))
		what := describe(all[i].name, req.Decisions) + ", sequential"
		a, ok := judgeLive(r, j, req, what)
		if !ok {
			continue
		}
		b, ok := judgeLive(r, j, req, what)
		if !ok {
			continue
		}
		jb := job{name: all[i].name, req: req}
		if ka, kb := keys(a), keys(b); reflect.DeepEqual(ka, kb) {
			jb.want = ka
		} else {
			r.Logf("%s: two sequential runs differ; not checking determinism for it", what)
		}
		jobs = append(jobs, jb)
	}
	if len(jobs) == 0 {
		r.Errorf("no sample could be judged sequentially; nothing to run concurrently")
		return
	}
	const rounds = 2
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed = map[string]bool{} // report each sample's first problem only
	)
	fail := func(name, format string, args ...any) {
		mu.Lock()
		first := !failed[name]
		failed[name] = true
		mu.Unlock()
		if first {
			r.Errorf(format, args...)
		}
	}
	for g := range Goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range rounds * len(jobs) {
				jb := &jobs[(g+k)%len(jobs)] // each goroutine starts elsewhere
				ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
				o := call(ctx, j, jb.req, CancelGrace)
				cancel()
				what := fmt.Sprintf("sample %q, goroutine %d", jb.name, g)
				switch {
				case !o.returned:
					fail(jb.name, "%s: judge did not return within %v", what, CallTimeout+CancelGrace)
				case o.panicked:
					fail(jb.name, "%s: judge panicked: %v", what, o.value)
				case o.err != nil:
					fail(jb.name, "%s: judge returned error %q", what, o.err)
				default:
					if ps := validate(jb.req, o.ests); len(ps) > 0 {
						fail(jb.name, "%s: %s", what, strings.Join(ps, "; "))
					} else if got := keys(o.ests); jb.want != nil && !reflect.DeepEqual(got, jb.want) {
						fail(jb.name, "%s: concurrent result differs from the sequential one:\ngot  %v\nwant %v", what, got, jb.want)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// validate lists what is wrong with the answer ests to req.
func validate(req guard.Request, ests []guard.Estimate) []string {
	v := newValidator(req)
	for i := range ests {
		e := &ests[i]
		at, ok := v.place(i, e)
		if !ok {
			continue
		}
		v.checkP(at, e)
		v.checkEvidence(at, e)
		v.checkCitations(at, e)
	}
	v.checkNoneMissing(req.Decisions)
	if _, err := json.Marshal(ests); err != nil {
		v.bad("estimates do not encode as JSON: %v", err)
	}
	return v.out
}

// slot is what one estimate answers: a decision, and for chunk relevance a
// context.
type slot struct {
	d  guard.Decision
	id string
}

// validator collects the problems of one answer.
type validator struct {
	s         *guard.Sample
	asked     map[guard.Decision]bool
	isContext map[string]bool
	seen      map[slot]bool // the slots answered so far
	out       []string
}

func newValidator(req guard.Request) *validator {
	v := &validator{s: req.Sample, asked: map[guard.Decision]bool{}, isContext: map[string]bool{}, seen: map[slot]bool{}}
	for _, d := range req.Decisions {
		v.asked[d] = true
	}
	for _, c := range req.Sample.Contexts {
		v.isContext[c.ID] = true
	}
	return v
}

func (v *validator) bad(format string, args ...any) {
	v.out = append(v.out, fmt.Sprintf(format, args...))
}

// place checks which slot estimate i answers: a valid decision that was
// asked, a context ID exactly on chunk relevance, and each slot once. It
// returns how problems name the estimate, and false when the estimate
// answers no slot of the request (its other checks are then skipped).
func (v *validator) place(i int, e *guard.Estimate) (at string, ok bool) {
	at = fmt.Sprintf("estimate %d (%v", i, e.Decision)
	if e.ContextID != "" {
		at += fmt.Sprintf(" of context %q", e.ContextID)
	}
	at += ")"
	switch {
	case !e.Decision.Valid():
		v.bad("%s: invalid decision", at)
		return at, false
	case !v.asked[e.Decision]:
		v.bad("%s: decision was not asked", at)
		return at, false
	case e.Decision == guard.ChunkRelevance && !v.isContext[e.ContextID]:
		v.bad("%s: context ID %q names no context of the sample", at, e.ContextID)
		return at, false
	case e.Decision != guard.ChunkRelevance && e.ContextID != "":
		v.bad("%s: context ID %q on a decision that is not chunk relevance", at, e.ContextID)
	}
	sl := slot{e.Decision, e.ContextID}
	if v.seen[sl] {
		v.bad("%s: more than one estimate for it", at)
	}
	v.seen[sl] = true
	return at, true
}

// checkP checks that an estimate that does not abstain has a P in [0, 1].
func (v *validator) checkP(at string, e *guard.Estimate) {
	if e.Abstained {
		return
	}
	switch {
	case math.IsNaN(e.P):
		v.bad("%s: P is NaN", at)
	case e.P < 0 || e.P > 1:
		v.bad("%s: P = %v, outside [0, 1]", at, e.P)
	}
}

// checkEvidence checks the decision and the quotes of each evidence.
func (v *validator) checkEvidence(at string, e *guard.Estimate) {
	for k, ev := range e.Evidence {
		if !ev.Decision.Valid() {
			v.bad("%s: evidence %d has invalid decision %d", at, k, uint8(ev.Decision))
		}
		for _, q := range []struct {
			name string
			q    guard.Quote
		}{{"quote", ev.Quote}, {"counterpart", ev.Counterpart}} {
			if why := checkQuote(v.s, q.q); why != "" {
				v.bad("%s: evidence %d %s: %s", at, k, q.name, why)
			}
		}
	}
}

// checkCitations checks the support and the quotes of each citation.
func (v *validator) checkCitations(at string, e *guard.Estimate) {
	for k, c := range e.Citations {
		if math.IsNaN(c.Support) || c.Support < 0 || c.Support > 1 {
			v.bad("%s: citation %d support %v outside [0, 1]", at, k, c.Support)
		}
		if c.Sentence.IsZero() {
			v.bad("%s: citation %d has no sentence", at, k)
		}
		if why := checkQuote(v.s, c.Sentence); why != "" {
			v.bad("%s: citation %d sentence: %s", at, k, why)
		}
		if why := checkQuote(v.s, c.Context); why != "" {
			v.bad("%s: citation %d context: %s", at, k, why)
		}
	}
}

// checkNoneMissing checks that every slot asked for was answered: each valid
// decision, and chunk relevance for every context.
func (v *validator) checkNoneMissing(decisions []guard.Decision) {
	for _, d := range decisions {
		if !d.Valid() {
			continue
		}
		if d != guard.ChunkRelevance {
			if !v.seen[slot{d, ""}] {
				v.bad("no estimate for %v (return an abstention rather than leave it out)", d)
			}
			continue
		}
		for _, c := range v.s.Contexts {
			if !v.seen[slot{d, c.ID}] {
				v.bad("no %v estimate for context %q (return an abstention rather than leave it out)", d, c.ID)
			}
		}
	}
}

// checkQuote says why q does not select q.Text from its source in s, or
// returns "" (also for the zero quote).
func checkQuote(s *guard.Sample, q guard.Quote) string {
	if q.IsZero() {
		return ""
	}
	var text string
	switch q.Source {
	case guard.SourceQuestion:
		text = s.Question
	case guard.SourceAnswer:
		text = s.Answer
	case guard.SourceReference:
		if s.Reference == nil {
			return "quotes the reference of a sample that has none"
		}
		text = *s.Reference
	case guard.SourceContext:
		found := false
		for _, c := range s.Contexts {
			if c.ID == q.ContextID {
				text, found = c.Text, true
				break
			}
		}
		if !found {
			return fmt.Sprintf("quotes unknown context %q", q.ContextID)
		}
	default:
		return fmt.Sprintf("unknown source %q", q.Source)
	}
	if q.Start < 0 || q.Start > q.End || q.End > len(text) {
		return fmt.Sprintf("offsets [%d, %d) outside the %s's %d bytes", q.Start, q.End, q.Source, len(text))
	}
	if got := text[q.Start:q.End]; got != q.Text {
		return fmt.Sprintf("offsets [%d, %d) select %q, not %q", q.Start, q.End, got, q.Text)
	}
	return ""
}
