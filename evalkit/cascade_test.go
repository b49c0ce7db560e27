package evalkit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/render"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
)

// unsurePrimary answers every decision with P = 0.5, except the relevance
// of chunk "c2" (0.1), so that under uncertainPolicy every row escalates
// everything but that chunk, and the cascade asks about the chunks apart.
var unsurePrimary = guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
	var out []guard.Estimate
	for _, d := range req.Decisions {
		if d == guard.ChunkRelevance {
			for _, c := range req.Sample.Contexts {
				p := 0.5
				if c.ID == "c2" {
					p = 0.1
				}
				out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: p})
			}
			continue
		}
		out = append(out, guard.Estimate{Decision: d, P: 0.5})
	}
	return out, nil
})

func uncertainPolicy() guard.Policy {
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.3, Pass: 0.7})
	}
	return p
}

// cascadeRows writes n rows: row i has the text of row i%distinct, so the
// rows from distinct on repeat earlier samples under new ids.
func cascadeRows(t *testing.T, n, distinct int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		k := i % distinct
		fmt.Fprintf(&b, `{"id":"r%d","question":"How long do refunds take, case %d?","contexts":[{"id":"c1","text":"Refunds take %d days."},{"id":"c2","text":"Shipping is free."}],"answer":"%d days.","expected":{"diagnosis":"PASS","generation":{"groundedness":true},"retrieval":{"chunkRelevance":{"c1":true,"c2":false}}}}`+"\n", i, k, k, k)
	}
	return writeFile(t, "rows.jsonl", b.String())
}

func runCascade(t *testing.T, path string, workers int, fallback guard.Judge, s cascade.Config, pricing *report.Pricing) *report.Report {
	t.Helper()
	pol := uncertainPolicy()
	m, err := BuildMode(report.ModeCascade, ModeConfig{Primary: unsurePrimary, PrimaryPolicy: pol, Fallback: fallback, FallbackPolicy: pol, Cascade: s})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := m.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	cfg := Config{Mode: report.ModeCascade, Workers: workers, PrimaryPolicy: &pol, FallbackPolicy: &pol,
		FallbackJudge: "fb", FallbackModel: "m", PrimaryModel: "p", Pricing: pricing}
	m.Configure(&cfg)
	src := dataset.NewFileSource(path)
	defer src.Close()
	rep, err := Run(context.Background(), src, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// checkRuntime checks that the runtime counts add up and agree with the
// report's fallback leg.
func checkRuntime(t *testing.T, rep *report.Report) *report.CascadeRuntime {
	t.Helper()
	c := rep.Cascade
	if c == nil || c.Runtime == nil || c.Settings == nil {
		t.Fatalf("cascade report without runtime or settings: %+v", c)
	}
	rt := c.Runtime
	refusals := rt.RefusedBreaker + rt.RefusedDeadline + rt.RefusedBudget + rt.RefusedConcurrency + rt.RefusedClosed + rt.Cancelled + rt.Failed + rt.FallbackAbstained
	switch {
	case rt.Requested != rt.CacheHits+rt.CacheMisses:
		t.Errorf("requested %d != hits %d + misses %d", rt.Requested, rt.CacheHits, rt.CacheMisses)
	case rt.CacheMisses != rt.Settled+rt.Abstained:
		t.Errorf("misses %d != settled %d + abstained %d", rt.CacheMisses, rt.Settled, rt.Abstained)
	case rt.Abstained != refusals:
		t.Errorf("abstained %d != sum of reasons %d", rt.Abstained, refusals)
	case rt.Escalations != c.Escalated:
		t.Errorf("cascade saw %d escalations; the report counts %d escalated rows", rt.Escalations, c.Escalated)
	case rt.Requested != c.SettledDecisions+c.UnsettledDecisions:
		t.Errorf("requested %d != settled %d + unsettled %d decisions", rt.Requested, c.SettledDecisions, c.UnsettledDecisions)
	case rt.InputTokens != rep.Usage.Fallback.InputTokens || rt.OutputTokens != rep.Usage.Fallback.OutputTokens:
		t.Errorf("cascade counted %d+%d tokens; the fallback leg %d+%d", rt.InputTokens, rt.OutputTokens, rep.Usage.Fallback.InputTokens, rep.Usage.Fallback.OutputTokens)
	case rep.Input.RowsEvaluated != rep.Input.RowsRead:
		t.Errorf("%d of %d rows evaluated", rep.Input.RowsEvaluated, rep.Input.RowsRead)
	}
	return rt
}

// TestCascadeModeCache: repeated samples come from the cache at no cost and
// without a fallback leg; the first occurrences pay. The fallback's two
// calls per row (chunks apart, as the cascade splits them) run in parallel
// and count once in the row's fallback latency.
func TestCascadeModeCache(t *testing.T) {
	const n, distinct = 30, 10
	path := cascadeRows(t, n, distinct)
	// Unlabeled decisions get a confident answer too, so that every
	// estimate settles (abstained ones are never cached).
	confident := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		out, _ := unsurePrimary(context.Background(), req)
		for i := range out {
			out[i].P = 0.9
		}
		return out, nil
	})
	sim, err := NewSimulatedJudge(SimulatedConfig{Latency: 300 * time.Millisecond, InputTokens: 100, OutputTokens: 5, Seed: 3, Unlabeled: confident})
	if err != nil {
		t.Fatal(err)
	}
	pricing := &report.Pricing{Version: "test", Currency: "USD", Models: map[string]report.Price{"m": {Input: 1, Output: 2}, "p": {}}}
	rep := runCascade(t, path, 1, sim, cascade.Config{}, pricing)
	rt := checkRuntime(t, rep)
	perRow := rt.Requested / n
	if rt.Escalations != n || rt.CacheHits != (n-distinct)*perRow || rt.CacheMisses != distinct*perRow {
		t.Errorf("escalations %d, hits %d, misses %d; want %d, %d, %d", rt.Escalations, rt.CacheHits, rt.CacheMisses, n, (n-distinct)*perRow, distinct*perRow)
	}
	if rep.Usage.Fallback.Rows != distinct || rep.Latency.Fallback.N != distinct {
		t.Errorf("fallback leg ran on %d rows (latency n %d); want %d (the rest came from the cache)", rep.Usage.Fallback.Rows, rep.Latency.Fallback.N, distinct)
	}
	wantTokens := distinct * perRow * 100
	if rep.Usage.Fallback.InputTokens != wantTokens {
		t.Errorf("fallback input tokens %d; want %d (cache hits are free)", rep.Usage.Fallback.InputTokens, wantTokens)
	}
	want := (float64(wantTokens)*1 + float64(distinct*perRow*5)*2) / 1e6
	if a := rep.Cost.Fallback.Amount; a == nil || *a != want {
		t.Errorf("fallback cost %+v; want %v", rep.Cost.Fallback, want)
	}
	// Two calls in parallel per row (chunk relevance apart from the rest):
	// the leg's latency is the longer (at most 1.2 × 300 ms), not the sum.
	if rt.FallbackCalls != 2*distinct {
		t.Errorf("%d fallback calls; want %d (two per distinct row)", rt.FallbackCalls, 2*distinct)
	}
	if max := rep.Latency.Fallback.Max; max < 240 || max > 400 {
		t.Errorf("fallback leg latency max %.1f ms; want about 300 (parallel calls count once)", max)
	}
	if rt.BreakerState != "closed" || rt.BreakerTrips != 0 {
		t.Errorf("breaker %s with %d trips", rt.BreakerState, rt.BreakerTrips)
	}
	md, h := render.Markdown(rep), render.HTML(rep)
	for _, want := range []string{"Cascade runtime (`cascade(simulated-fallback)`", "Cascade settings: 8 calls at once, no call waits for a slot, 30s per call, cache of 4096 estimates"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if !strings.Contains(h, "<h2>Cascade</h2>") || !strings.Contains(h, "breaker trips") {
		t.Error("HTML lacks the cascade section")
	}

	// Without the cache every row pays.
	off := runCascade(t, path, 1, sim, cascade.Config{CacheSize: cascade.CacheOff}, pricing)
	if rt := checkRuntime(t, off); rt.CacheHits != 0 || off.Usage.Fallback.Rows != n || off.Cascade.Settings.CacheSize != 0 {
		t.Errorf("cache off: %d hits, fallback rows %d, cacheSize %d", rt.CacheHits, off.Usage.Fallback.Rows, off.Cascade.Settings.CacheSize)
	}
}

// TestCascadeModeBreaker: a failing fallback opens the breaker after the
// configured number of failures; later escalations are refused without a
// call, every row still gets its result, and the report counts the trip.
func TestCascadeModeBreaker(t *testing.T) {
	path := cascadeRows(t, 12, 12)
	var calls atomic.Int64
	failing := guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) {
		calls.Add(1)
		return nil, errors.New("model server says 500")
	})
	rep := runCascade(t, path, 1, failing, cascade.Config{BreakerFailures: 3, BreakerCooldown: time.Hour}, nil)
	rt := checkRuntime(t, rep)
	if rt.BreakerTrips != 1 || rt.BreakerState != "open" {
		t.Errorf("breaker trips %d, state %s; want 1, open", rt.BreakerTrips, rt.BreakerState)
	}
	// A row makes two calls at once (chunk relevance apart from the rest),
	// and the breaker admits both while it is closed: the call that brings
	// the third failure may have a sibling already under way, so the
	// breaker opens after 3 or 4 calls, never more.
	if n := rt.FallbackCalls; int(calls.Load()) != n || n < 3 || n > 4 || rt.FallbackCallErrors != n {
		t.Errorf("fallback called %d times, cascade counted %d calls and %d errors; want 3 or 4, all errors", calls.Load(), rt.FallbackCalls, rt.FallbackCallErrors)
	}
	if rt.RefusedBreaker == 0 || rt.Settled != 0 || rt.Failed == 0 {
		t.Errorf("refused by breaker %d, settled %d, failed %d", rt.RefusedBreaker, rt.Settled, rt.Failed)
	}
	c := rep.Cascade
	if c.StillUncertain != 12 || c.UnsettledDecisions != rt.Requested {
		t.Errorf("still uncertain %d of 12 rows, unsettled %d of %d", c.StillUncertain, c.UnsettledDecisions, rt.Requested)
	}
	// The fallback leg holds the rows whose calls really went out (and
	// failed); the refused ones did not call.
	if rep.Usage.Fallback.Failures == 0 || rep.Usage.Fallback.Rows >= 12 || c.FallbackFailures != rep.Usage.Fallback.Failures {
		t.Errorf("fallback leg rows %d, failures %d, cascade fallback failures %d", rep.Usage.Fallback.Rows, rep.Usage.Fallback.Failures, c.FallbackFailures)
	}
	if md := render.Markdown(rep); !strings.Contains(md, "| open |") {
		t.Error("Markdown does not show the open breaker")
	}
}

// TestCascadeModeBudget: a call budget refuses the calls beyond it.
func TestCascadeModeBudget(t *testing.T) {
	path := cascadeRows(t, 10, 10)
	sim, err := NewSimulatedJudge(SimulatedConfig{InputTokens: 10, OutputTokens: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep := runCascade(t, path, 2, sim, cascade.Config{Budget: cascade.Budget{MaxCalls: 4, Window: time.Hour}}, nil)
	rt := checkRuntime(t, rep)
	if rt.FallbackCalls != 4 || rt.RefusedBudget == 0 {
		t.Errorf("%d calls, %d budget refusals; want 4 calls and some refusals", rt.FallbackCalls, rt.RefusedBudget)
	}
	if s := rep.Cascade.Settings; s.BudgetCalls != 4 || s.BudgetWindowMs != float64(time.Hour/time.Millisecond) {
		t.Errorf("settings %+v", s)
	}
	if md := render.Markdown(rep); !strings.Contains(md, "budget of 4 calls per 1h0m0s") {
		t.Error("Markdown does not describe the budget")
	}
}

func TestCascadeSettings(t *testing.T) {
	for _, tc := range []struct {
		s    cascade.Config
		want string
	}{
		{cascade.Config{Limits: cascade.Limits{MaxConcurrent: -1}}, "MaxConcurrent"},
		{cascade.Config{Limits: cascade.Limits{CallTimeout: -time.Second}}, "CallTimeout"},
		{cascade.Config{BreakerFailures: -2}, "BreakerFailures"},
		{cascade.Config{Budget: cascade.Budget{MaxCalls: 5}}, "needs a positive Window"},
		{cascade.Config{Budget: cascade.Budget{MaxTokens: -1, Window: time.Second}}, "negative field"},
	} {
		if _, err := tc.s.Effective(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Effective(%+v) = %v; want an error naming %q", tc.s, err, tc.want)
		}
		if _, err := BuildMode(report.ModeCascade, ModeConfig{Primary: unsurePrimary, PrimaryPolicy: uncertainPolicy(), Fallback: unsurePrimary, FallbackPolicy: uncertainPolicy(), Cascade: tc.s}); err == nil {
			t.Errorf("BuildMode accepted %+v", tc.s)
		}
	}
	e, err := cascade.Config{}.Effective()
	if err != nil || e.Limits.MaxConcurrent != 8 || e.CacheSize != 4096 || e.BreakerFailures != 5 || e.Limits.CallTimeout != 30*time.Second || e.Limits.MaxWaiting != 0 {
		t.Errorf("defaults %+v, %v", e, err)
	}
	// A caller's own escalator replaces the cascade; the fallback it gets
	// is metered.
	var got guard.Judge
	m, err := BuildMode(report.ModeCascade, ModeConfig{Primary: unsurePrimary, PrimaryPolicy: uncertainPolicy(), Fallback: unsurePrimary, FallbackPolicy: uncertainPolicy(),
		NewEscalator: func(fb guard.Judge) (guard.Escalator, error) { got = fb; return newJudgeEscalator(fb), nil }})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.(*meteredJudge); !ok || m.Cascade != nil {
		t.Errorf("NewEscalator got %T; setup cascade %+v", got, m.Cascade)
	}
	if _, ok := m.Escalator.(cascadeStatser); ok {
		t.Error("a judgeEscalator claims to keep counts")
	}
}

// TestCascadeModeCollapsed: two rows with the same sample escalated at the
// same time share one fallback call. The second row waited for it, so its
// fallback leg ran, but it spent no tokens.
func TestCascadeModeCollapsed(t *testing.T) {
	row := `{"id":"r%d","question":"Refund window?","contexts":[{"id":"c1","text":"Refunds within 30 days."}],"answer":"30 days.","expected":{"generation":{"groundedness":true}}}` + "\n"
	path := writeFile(t, "dup.jsonl", fmt.Sprintf(row, 1)+fmt.Sprintf(row, 2))
	var casc cascadeStatser
	ready := make(chan struct{})
	var calls atomic.Int64
	fallback := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		calls.Add(1)
		<-ready
		// Answer once the other row has joined this call (no clock: should
		// it never join, the test's own timeout ends it).
		for casc.Stats().Collapsed == 0 {
			runtime.Gosched()
		}
		out, _ := unsurePrimary(ctx, req)
		for i := range out {
			out[i].P, out[i].Usage = 0.9, guard.Usage{InputTokens: 10, OutputTokens: 1, Calls: 1}
		}
		return out, nil
	})
	pol := uncertainPolicy()
	m, err := BuildMode(report.ModeCascade, ModeConfig{Primary: unsurePrimary, PrimaryPolicy: pol, Fallback: fallback, FallbackPolicy: pol})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	casc = m.Escalator.(cascadeStatser)
	close(ready)
	cfg := Config{Mode: report.ModeCascade, Workers: 2, PrimaryPolicy: &pol, FallbackPolicy: &pol}
	m.Configure(&cfg)
	src := dataset.NewFileSource(path)
	defer src.Close()
	rep, err := Run(context.Background(), src, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rt := checkRuntime(t, rep)
	if rt.Collapsed != 1 || rt.FallbackCalls != 1 || calls.Load() != 1 || rt.CacheHits != 0 {
		t.Errorf("collapsed %d, calls %d (judge saw %d), hits %d; want 1, 1, 1, 0", rt.Collapsed, rt.FallbackCalls, calls.Load(), rt.CacheHits)
	}
	if u := rep.Usage.Fallback; u.Rows != 2 || u.InputTokens != rt.Requested/2*10 {
		t.Errorf("fallback leg: %d rows, %d input tokens; want 2 rows and one call's tokens (%d)", u.Rows, u.InputTokens, rt.Requested/2*10)
	}
}
