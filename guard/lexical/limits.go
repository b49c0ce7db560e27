package lexical

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// Limits bounds what one call of a Judge may spend on one sample. Input
// beyond a limit is never read in part: every requested decision abstains
// with the cause guard.CauseInputTooLarge, and the reason names the limit
// and by how much it was passed. A zero field keeps its default (see
// DefaultLimits); a negative one removes that bound.
type Limits struct {
	// MaxBytes bounds the text of one sample: question, answer, reference
	// and contexts together, in bytes. It is checked before any work.
	MaxBytes int
	// MaxWork bounds the comparison work of one sample, in units: a
	// posting of the term index visited, a pair of quantities or of
	// sentences compared, a token compared with a set. The judges' cost
	// is linear in the text for ordinary input; MaxWork is the ceiling
	// for input built to defeat the indexes (thousands of near-equal
	// numbers, thousands of distinct sentences made of the same few
	// words).
	MaxWork int64
}

// DefaultLimits are the limits of a Judge built without WithLimits. They
// never trigger on the bundled development data (at most 14 KB and about
// 191,000 units of work a row, TestDefaultLimitsNeverTrigger): MaxBytes is
// 512 KiB and MaxWork 20 million units (about 0.2 s of work on one core).
var DefaultLimits = Limits{MaxBytes: 512 << 10, MaxWork: 20_000_000}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	if l.MaxBytes == 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.MaxWork == 0 {
		l.MaxWork = DefaultLimits.MaxWork
	}
	return l
}

// An Option configures a Judge built by New (or by WithProfile).
type Option func(*Judge)

// WithLimits sets the judge's Limits (zero fields keep their defaults):
//
//	j, err := lexical.New(nil, lexical.WithLimits(lexical.Limits{MaxWork: 5_000_000}))
//	g, err := lexical.NewGuard(lexical.WithProfile(nil, lexical.WithLimits(lexical.Limits{MaxBytes: 256 << 10})))
func WithLimits(l Limits) Option {
	return func(j *Judge) { j.limits = l.withDefaults() }
}

// WithoutFeatures leaves the raw feature vectors off the judge's estimates
// (Estimate.Features), and so off the guard's results (Result.Features).
// They cost an allocation or two per Evaluate, and about 60 numbers per
// result in its JSON form. By default they are on: records need them to
// calibrate from the fallback's verdicts. `ragtriage judge` turns them off
// unless -features is given.
func WithoutFeatures() Option {
	return func(j *Judge) { j.noFeatures = true }
}

// Limits returns the judge's limits, defaults filled in.
func (j *Judge) Limits() Limits { return j.limits }

// sampleBytes is the size of the texts of s that the judges read.
func sampleBytes(s *guard.Sample) int {
	n := len(s.Question) + len(s.Answer)
	if s.Reference != nil {
		n += len(*s.Reference)
	}
	for i := range s.Contexts {
		n += len(s.Contexts[i].Text)
	}
	return n
}

// tooLarge returns why s is over l.MaxBytes, or "".
func (l Limits) tooLarge(s *guard.Sample) string { return l.over(sampleBytes(s)) }

// over returns why n bytes of text are over l.MaxBytes, or "".
func (l Limits) over(n int) string {
	if l.MaxBytes < 0 || n <= l.MaxBytes {
		return ""
	}
	return "input too large: the sample's texts hold " + strconv.Itoa(n) + " bytes, " +
		strconv.Itoa(n-l.MaxBytes) + " over Limits.MaxBytes (" + strconv.Itoa(l.MaxBytes) + ")"
}

// checkEvery is how many units of work pass between two looks at the
// request's context: a few tens of microseconds.
const checkEvery = 1 << 13

// meter counts the work of one call and stops it at the work limit or when
// the request ends. Work loops call spend and give up as soon as it
// returns false; their partial results are then never used.
//
// The zero meter has no limit and no context: it never stops.
type meter struct {
	work, limit int64 // limit ≤ 0: none
	next        int64 // work count of the next look at the context
	ctx         context.Context
	deadline    time.Time // zero: none
	stop        guard.Cause
	stage       string       // what was being computed when the meter stopped
	onCheck     func(*meter) // test hook, called at each look at the context
}

// testCheckHook, when set, is installed as every new meter's onCheck.
var testCheckHook func(*meter)

// start arms m for one call under ctx with the given work limit.
func (m *meter) start(ctx context.Context, limit int64) {
	*m = meter{limit: max(limit, 0), next: checkEvery, onCheck: testCheckHook, stage: "reading the sample"}
	if ctx != nil {
		m.ctx = ctx // the context itself: a method value (ctx.Err) would be allocated
		m.deadline, _ = ctx.Deadline()
	}
	if m.limit > 0 && m.limit < m.next {
		m.next = m.limit + 1
	}
}

// unlimited arms m for work with no limit and no context (Features).
func (m *meter) unlimited() { *m = meter{} }

// spend counts n units of work and reports whether the call may go on.
func (m *meter) spend(n int) bool {
	m.work += int64(n)
	if m.work >= m.next {
		m.check()
	}
	return m.stop == ""
}

// ok reports whether the call may go on, without spending.
func (m *meter) ok() bool { return m.stop == "" }

// at names the stage that the work counted from now on belongs to.
func (m *meter) at(stage string) {
	if m.stop == "" {
		m.stage = stage
	}
}

// check looks at the work limit and the request's context.
func (m *meter) check() {
	if m.stop != "" {
		return
	}
	if m.onCheck != nil {
		m.onCheck(m)
	}
	switch {
	case m.limit > 0 && m.work > m.limit:
		m.stop = guard.CauseInputTooLarge
	case m.ctx != nil && m.ctx.Err() != nil:
		m.stop = guard.CauseCancelled
		if errors.Is(m.ctx.Err(), context.DeadlineExceeded) {
			m.stop = guard.CauseDeadline
		}
	case !m.deadline.IsZero() && !time.Now().Before(m.deadline):
		m.stop = guard.CauseDeadline
	}
	m.next = m.work + checkEvery
	if m.limit > 0 && m.limit < m.next && m.work <= m.limit {
		m.next = m.limit + 1
	}
}

// reason says why the meter stopped the call.
func (m *meter) reason() string {
	w := strconv.FormatInt(m.work, 10)
	switch m.stop {
	case guard.CauseInputTooLarge:
		return "input too large: " + m.stage + " needs more than Limits.MaxWork (" + strconv.FormatInt(m.limit, 10) +
			" units of work); stopped after " + w + " units"
	case guard.CauseDeadline:
		return "the request's deadline passed while the judge was " + m.stage + ", after " + w + " units of work"
	}
	return "the request was cancelled while the judge was " + m.stage + ", after " + w + " units of work"
}

// abstainAll is the answer to req when the judge stops: every requested
// decision (every context's, for chunk relevance) abstains with cause c.
func abstainAll(req guard.Request, c guard.Cause, why string) []guard.Estimate {
	s := req.Sample
	out := make([]guard.Estimate, 0, len(req.Decisions)+len(s.Contexts))
	for _, d := range req.Decisions {
		if d == guard.ChunkRelevance {
			for i := range s.Contexts {
				out = append(out, abstained(d, s.Contexts[i].ID, c, why))
			}
			continue
		}
		out = append(out, abstained(d, "", c, why))
	}
	return out
}

func abstained(d guard.Decision, id string, c guard.Cause, why string) guard.Estimate {
	e := guard.Abstain(d, id, why)
	e.Cause = c
	return e
}

// putAnalysis returns a to the pool, forgetting the call's context.
func putAnalysis(a *analysis) {
	a.m = meter{}
	a.cache = nil
	analysisPool.Put(a)
}
