package evalkit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// judgeEscalator adapts any guard.Judge to a guard.Escalator: it asks the
// judge for the escalated decisions and keeps only the estimates the
// escalation asked for (chunk relevance of the listed contexts). It adds no
// breaker, cache or budget; package cascade does that. A judgeEscalator is
// safe for concurrent use when its judge is.
type judgeEscalator struct {
	j    guard.Judge
	info guard.JudgeInfo
}

// newJudgeEscalator returns an escalator asking j.
func newJudgeEscalator(j guard.Judge) *judgeEscalator {
	e := &judgeEscalator{j: j}
	if d, ok := j.(guard.Describer); ok {
		e.info = d.Describe()
	}
	if e.info.Name == "" {
		e.info.Name = fmt.Sprintf("%T", j)
	}
	return e
}

// Describe names the escalator after its judge.
func (e *judgeEscalator) Describe() guard.JudgeInfo { return e.info }

// Escalate implements guard.Escalator.
func (e *judgeEscalator) Escalate(ctx context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
	out, err := e.j.Judge(ctx, esc.Request)
	if err != nil {
		return nil, err
	}
	kept := out[:0]
	for _, est := range out {
		if !esc.Wants(est.Decision) {
			continue
		}
		if est.Decision == guard.ChunkRelevance && len(esc.ContextIDs) > 0 && !slices.Contains(esc.ContextIDs, est.ContextID) {
			continue
		}
		if est.Judge == "" {
			est.Judge, est.JudgeVersion = e.info.Name, e.info.Version
		}
		kept = append(kept, est)
	}
	return kept, nil
}

// legKind names one leg of an evaluation: the guard's own judges, or the
// fallback.
type legKind uint8

// The legs.
const (
	legPrimary legKind = iota
	legFallback
	numLegs
)

func (l legKind) String() string {
	if l == legFallback {
		return "fallback"
	}
	return "primary"
}

// legMeter gathers, for one evaluation, what each leg's judges spent. The
// runner puts a fresh one in each row's context; metered judges add to it.
type legMeter struct {
	mu   sync.Mutex
	legs [numLegs]legSample
}

// escSpan gathers the fallback calls made for one escalation: they may run
// in parallel (the cascade asks about chunks apart from the rest), so the
// escalation's latency is the longest of them, not their sum.
type escSpan struct {
	calls     int
	latencyMs float64 // the longest max(wall, reported) of the calls
}

type spanKey struct{}

// legSample is one row's cost on one leg.
type legSample struct {
	ran       bool
	latencyMs float64 // max(wall time, the longest latency a judge reported)
	wallMs    float64
	usage     guard.Usage
	failed    bool // a judge of the leg returned an error

	// Calls of the leg's judges made for the row; of them, those that
	// returned an error (not the caller's cancellation), and those among
	// the failed that got no HTTP response (MeteredTransport); the
	// estimates the calls gave (not abstained); the first errors.
	calls, callErrors, transportErrors, estimates int
	errs                                          []string
}

// maxRowErrors bounds the error messages one row keeps per leg.
const maxRowErrors = 2

// maxErrorText bounds the length of a quoted error message.
const maxErrorText = 400

// callState is what MeteredTransport found out about the HTTP requests of
// one judge call.
type callState struct {
	mu        sync.Mutex
	transport error // the first request that got no response
}

type callKey struct{}

// MeteredTransport wraps the HTTP transport of an LLM judge's client. A
// replay then tells apart the failed calls that got no HTTP response
// (connection refused, DNS, TLS, a timeout) and quotes the transport's own
// error, which clients often leave out. It only observes: requests and
// responses pass unchanged. Outside a replay it only forwards. nil means
// http.DefaultTransport.
func MeteredTransport(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &meteredTransport{rt: rt}
}

type meteredTransport struct{ rt http.RoundTripper }

func (m *meteredTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := m.rt.RoundTrip(req)
	// A request the caller cancelled (a sibling request of the same call
	// failed, or the run was interrupted) says nothing about the transport;
	// a deadline that ran out does.
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(req.Context().Err(), context.Canceled) {
		if cs, _ := req.Context().Value(callKey{}).(*callState); cs != nil {
			cs.mu.Lock()
			if cs.transport == nil {
				cs.transport = err
			}
			cs.mu.Unlock()
		}
	}
	return resp, err
}

// CloseIdleConnections forwards to the wrapped transport.
func (m *meteredTransport) CloseIdleConnections() {
	if c, ok := m.rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// callError is the message a failed call is quoted with: the judge's error,
// and the transport's when the judge's does not already say it, on one line.
func callError(err, transport error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if transport != nil {
		if t := transport.Error(); !strings.Contains(msg, t) {
			msg += " (" + t + ")"
		}
	}
	if r := []rune(msg); len(r) > maxErrorText {
		msg = string(r[:maxErrorText-1]) + "…"
	}
	return msg
}

type meterKey struct{}

func meterFrom(ctx context.Context) *legMeter {
	m, _ := ctx.Value(meterKey{}).(*legMeter)
	return m
}

// metered wraps a judge so that the runner can attribute its latency and
// usage to a leg of the evaluation. It keeps the judge's name, its Inline
// property and its JudgeClaims (a guard.ClaimJudge stays one), and costs
// one time.Now pair per call. Outside a replay it only forwards.
func metered(j guard.Judge, leg legKind) guard.Judge {
	m := &meteredJudge{j: j, leg: leg}
	if in, ok := j.(guard.Inline); ok {
		m.inline = in.Inline()
	}
	if cj, ok := j.(guard.ClaimJudge); ok {
		return &meteredClaimJudge{meteredJudge: m, cj: cj}
	}
	return m
}

type meteredJudge struct {
	j      guard.Judge
	leg    legKind
	inline bool
}

// meteredClaimJudge is a meteredJudge around a guard.ClaimJudge.
type meteredClaimJudge struct {
	*meteredJudge
	cj guard.ClaimJudge
}

// JudgeClaims meters one call of the wrapped judge's JudgeClaims.
func (m *meteredClaimJudge) JudgeClaims(ctx context.Context, s *guard.Sample, claims []string) ([]guard.Estimate, error) {
	return m.measure(ctx, func(ctx context.Context) ([]guard.Estimate, error) {
		return m.cj.JudgeClaims(ctx, s, claims)
	})
}

func (m *meteredJudge) Describe() guard.JudgeInfo {
	if d, ok := m.j.(guard.Describer); ok {
		if info := d.Describe(); info.Name != "" {
			return info
		}
	}
	return guard.JudgeInfo{Name: fmt.Sprintf("%T", m.j)}
}

func (m *meteredJudge) Inline() bool { return m.inline }

// FeaturesVersion forwards the wrapped judge's (guard.FeatureJudge), so
// that results carry its feature vectors; "" when it gives none.
func (m *meteredJudge) FeaturesVersion() string {
	if fj, ok := m.j.(guard.FeatureJudge); ok {
		return fj.FeaturesVersion()
	}
	return ""
}

func (m *meteredJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	return m.measure(ctx, func(ctx context.Context) ([]guard.Estimate, error) {
		return m.j.Judge(ctx, req)
	})
}

// measure runs one call of the wrapped judge and counts it in its leg.
func (m *meteredJudge) measure(ctx context.Context, call func(context.Context) ([]guard.Estimate, error)) ([]guard.Estimate, error) {
	meter := meterFrom(ctx)
	if meter == nil {
		return call(ctx)
	}
	var cs *callState
	if m.leg == legFallback {
		// Only the fallback is expected to call a server.
		cs = &callState{}
		ctx = context.WithValue(ctx, callKey{}, cs)
	}
	start := time.Now()
	out, err := call(ctx)
	wall := float64(time.Since(start)) / float64(time.Millisecond)
	reported := 0.0
	var u guard.Usage
	given := 0
	for i := range out {
		reported = max(reported, float64(out[i].Latency)/float64(time.Millisecond))
		u = u.Add(out[i].Usage)
		if !out[i].Abstained {
			given++
		}
	}
	meter.mu.Lock()
	s := &meter.legs[m.leg]
	s.ran = true
	s.calls++
	s.estimates += given
	if err != nil && !errors.Is(err, context.Canceled) {
		s.failed = true
		s.callErrors++
		var terr error
		if cs != nil {
			cs.mu.Lock()
			terr = cs.transport
			cs.mu.Unlock()
		}
		if terr != nil {
			s.transportErrors++
		}
		if len(s.errs) < maxRowErrors {
			s.errs = append(s.errs, callError(err, terr))
		}
	}
	if sp, _ := ctx.Value(spanKey{}).(*escSpan); sp != nil {
		// Inside an escalation: its latency is counted when it returns.
		sp.calls++
		sp.latencyMs = max(sp.latencyMs, wall, reported)
	} else {
		s.wallMs += wall
		s.latencyMs += max(wall, reported)
	}
	s.usage = s.usage.Add(u)
	meter.mu.Unlock()
	return out, err
}

// meterEscalations wraps cascade mode's escalator so that the fallback
// calls one escalation makes count in the fallback leg's latency once, at
// the escalation's wall time or the longest latency a call reported,
// whichever is larger. An escalation that called nothing (every estimate
// from the cache, or refused) adds nothing to the fallback leg; its time is
// guard overhead. An escalation that shared a call another row started
// (collapsed) counts that call's latency, which its estimates carry, but
// not its usage.
//
// It keeps the escalator's guard.ContextHonourer answer, so that the guard
// calls a cascade on the caller's goroutine here as in production.
func meterEscalations(e guard.Escalator) guard.Escalator {
	m := &meteredEscalator{e: e, info: describeAny(e)}
	if h, ok := e.(guard.ContextHonourer); ok {
		m.honours = h.HonoursContext()
	}
	return m
}

type meteredEscalator struct {
	e       guard.Escalator
	info    guard.JudgeInfo
	honours bool
}

// HonoursContext reports what the wrapped escalator reports.
func (m *meteredEscalator) HonoursContext() bool { return m.honours }

func describeAny(v any) guard.JudgeInfo {
	if d, ok := v.(guard.Describer); ok {
		if info := d.Describe(); info.Name != "" {
			return info
		}
	}
	return guard.JudgeInfo{Name: fmt.Sprintf("%T", v)}
}

func (m *meteredEscalator) Describe() guard.JudgeInfo { return m.info }

func (m *meteredEscalator) Escalate(ctx context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
	meter := meterFrom(ctx)
	if meter == nil {
		return m.e.Escalate(ctx, esc)
	}
	sp := &escSpan{}
	start := time.Now()
	out, err := m.e.Escalate(context.WithValue(ctx, spanKey{}, sp), esc)
	wall := float64(time.Since(start)) / float64(time.Millisecond)
	shared := 0.0
	for i := range out {
		if !out[i].Abstained {
			shared = max(shared, float64(out[i].Latency)/float64(time.Millisecond))
		}
	}
	meter.mu.Lock()
	defer meter.mu.Unlock()
	if sp.calls == 0 && shared == 0 {
		return out, err
	}
	s := &meter.legs[legFallback]
	s.ran = true
	s.wallMs += wall
	s.latencyMs += max(wall, sp.latencyMs, shared)
	return out, err
}
