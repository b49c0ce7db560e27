package hardening

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/examples/httpserver/rag"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
	"github.com/ragtriage/ragtriage/middleware"
	"github.com/ragtriage/ragtriage/record"
)

// The load test: examples/httpserver's handler on 127.0.0.1, driven by a Go
// load generator with a bounded number of requests, once with the guard
// inline (embedded judges + a cascade whose LLM judge talks to a fake server
// that fails part of the time) and once with the guard replaced by an
// evaluator that allows everything at once (the guard "off": capture,
// tracing and the record sink still run). The difference in latency is what
// the guard adds.

const (
	loadRequestDeadline = 2 * time.Second // the server's per-request deadline
	loadConns           = 16
	loadTimeLimit       = 3 * time.Minute // a load run stops by itself
)

// loadRequests is the number of requests per run: 2,000 by default (CI),
// HARDENING_LOAD_REQUESTS to change it.
func loadRequests(t testing.TB) int {
	if v := os.Getenv("HARDENING_LOAD_REQUESTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("HARDENING_LOAD_REQUESTS=%q: want a positive integer", v)
		}
		return n
	}
	return 2000
}

// flakyModel answers like a competent judge, except that one request in
// four gets an HTTP 500, one in ten takes 300ms, and one in a hundred is
// slower than any request deadline (a simulation of a failing model
// server).
func flakyModel() fakeopenai.Model {
	var n atomic.Int64
	return func(r fakeopenai.Request) fakeopenai.Reply {
		k := n.Add(1)
		switch {
		case k%4 == 0:
			return fakeopenai.Reply{Status: 500, Message: "simulated failure"}
		case k%100 == 1:
			return fakeopenai.Reply{Delay: 2 * loadRequestDeadline, Choices: []string{"Yes"}}
		case k%10 == 1:
			rep := flakyFree(r)
			rep.Delay = 300 * time.Millisecond
			return rep
		}
		return flakyFree(r)
	}
}

// allowAll is the guard "off": it allows every answer at once.
type allowAll struct{}

func (allowAll) Evaluate(context.Context, guard.Sample) (guard.Result, error) {
	return guard.Result{DecisionID: "off", Diagnosis: guard.PassDiagnosis, Route: guard.Auto, Action: guard.Allow}, nil
}

// withDeadline gives every request a deadline, as a production server
// would, and records how long the handler took.
func withDeadline(h http.Handler, d time.Duration, lat *Latencies) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
		lat.Add(time.Since(t0))
	})
}

// loadResult is what one load run measured.
type loadResult struct {
	lat      Latencies // as the client saw it
	server   Latencies // in the handler
	fivexx   []string  // bodies of 5xx responses
	codes    map[int]int
	records  int64
	requests int
	elapsed  time.Duration
	errs     int // transport errors
}

// drive sends n POST /ask requests over conns connections, cycling
// through the knowledge base's questions, and stops by itself after
// loadTimeLimit.
func drive(t testing.TB, url string, n int) (*loadResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), loadTimeLimit)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: loadConns, MaxConnsPerHost: loadConns}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	res := &loadResult{codes: map[int]int{}}
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range loadConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				c := kbCases[i%len(kbCases)]
				q := c.question
				if c.name == "escalate" {
					// A new text each time: the cascade's cache cannot
					// answer for the fallback.
					q = fmt.Sprintf("%s Ticket %d.", q, i)
				}
				body, _ := json.Marshal(rag.Request{Question: q, ID: fmt.Sprint("load-", i)})
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
				s := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					mu.Lock()
					res.errs++
					mu.Unlock()
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				res.lat.Add(time.Since(s))
				mu.Lock()
				if resp.StatusCode >= 500 {
					res.fivexx = append(res.fivexx, string(b))
				}
				res.codes[resp.StatusCode]++
				res.requests++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(t0)
	return res, ctx.Err()
}

// countingRecords counts the records the sink receives and checks that each
// is well formed.
type countingRecords struct {
	n, bad atomic.Int64
}

func (c *countingRecords) WriteRecord(_ context.Context, rec *record.Record) error {
	if rec.ID == "" || rec.Result.DecisionID == "" {
		c.bad.Add(1)
	}
	if _, err := record.Marshal(rec); err != nil {
		c.bad.Add(1)
	}
	c.n.Add(1)
	return nil
}

// loadRun starts examples/httpserver's handler with ev inline (nil: the
// demo guard with a cascade over a flaky fake server), drives n requests
// through it and returns what it measured.
func loadRun(t testing.TB, n int, guardOn bool) *loadResult {
	t.Helper()
	sink := &countingRecords{}
	gate := middleware.Gate{Block: middleware.ReturnError, Review: middleware.ReturnError}
	var ev middleware.Evaluator = allowAll{}
	var st *stack
	if guardOn {
		br := gobreaker.Settings{MaxRequests: 1, Timeout: 200 * time.Millisecond,
			ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 5 }}
		st = newStack(t, flakyModel(), stackConfig{rule: guard.FailClosed, breaker: &br, cacheSize: 256,
			limits: cascade.Limits{MaxConcurrent: 32, LatencyMaxAge: time.Second}})
		// kbGuard inline (the embedded judges, the knowledge base's three
		// answers scripted), with the cascade as its escalator.
		ev = kbGuard(t, guard.WithEscalator(st.c, fallbackPolicy(), guard.FailClosed))
	}
	var handled atomic.Int64
	h, err := rag.NewHandler(middleware.WithGuard(ev, gate), middleware.WithSink(sink),
		middleware.WithErrorHandler(func(error) { handled.Add(1) }))
	if err != nil {
		t.Fatal(err)
	}
	// Close writes the records still queued for the sink (and releases the
	// demo guard's cascade): before the records are counted, and on every
	// way out.
	var closeErr error
	closeOnce := sync.OnceFunc(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		closeErr = h.Close(ctx)
	})
	defer closeOnce()
	var server Latencies
	srv := httptest.NewServer(withDeadline(h, loadRequestDeadline, &server)) // 127.0.0.1
	defer srv.Close()
	res, err := drive(t, srv.URL, n)
	res.server.d = server.d
	if err != nil {
		t.Errorf("load run stopped at its time limit (%v) after %d requests", loadTimeLimit, res.requests)
	}
	closeOnce()
	// A record the queue could not hold is dropped and counted, and Close
	// says so; the load test wants none.
	if closeErr != nil {
		t.Errorf("handler Close: %v", closeErr)
	}
	res.records = sink.n.Load()
	if sink.bad.Load() > 0 {
		t.Errorf("%d malformed records", sink.bad.Load())
	}
	if st != nil {
		cs := st.c.Stats()
		t.Logf("guard on: cascade escalations=%d settled=%d abstained=%d calls=%d callErrors=%d trips=%d; fake server requests=%d; middleware errors handled=%d",
			cs.Escalations, cs.Settled, cs.Abstained, cs.Calls, cs.CallErrors, cs.BreakerTrips, st.srv.Count(), handled.Load())
	}
	return res
}

func checkLoad(t testing.TB, name string, n int, r *loadResult) {
	t.Helper()
	fivexx := 0
	for code, k := range r.codes {
		if code >= 500 {
			fivexx += k
		}
	}
	t.Logf("%s: %d requests in %v (%.0f req/s), status codes %v, records %d, latency: client %v, handler %v",
		name, r.requests, r.elapsed.Round(time.Millisecond), float64(r.requests)/r.elapsed.Seconds(), r.codes, r.records, r.lat.Summary(), r.server.Summary())
	if r.errs > 0 || r.requests != n {
		t.Errorf("%s: %d of %d requests answered, %d transport errors", name, r.requests, n, r.errs)
	}
	if fivexx > 0 {
		t.Errorf("%s: %d responses with a 5xx status, the first: %s", name, fivexx, r.fivexx[0])
	}
	// The deadline bounds every request; the slack covers writing the
	// response and scheduling on a shared 2-core machine.
	if m := r.server.Summary().Max; m > loadRequestDeadline+500*time.Millisecond {
		t.Errorf("%s: the slowest request took %v in the handler; its deadline is %v", name, m, loadRequestDeadline)
	}
	if r.records != int64(r.requests) {
		t.Errorf("%s: %d records for %d requests: records lost", name, r.records, r.requests)
	}
}

func TestLoadHTTPServer(t *testing.T) {
	skipIfShort(t, "load")
	n := loadRequests(t)
	off := loadRun(t, n, false)
	checkLoad(t, "guard off", n, off)
	on := loadRun(t, n, true)
	checkLoad(t, "guard on ", n, on)
	so, sf := on.server.Summary(), off.server.Summary()
	t.Logf("added latency in the handler: p50 %v, p99 %v", (so.P50 - sf.P50).Round(time.Microsecond), (so.P99 - sf.P99).Round(time.Microsecond))
	// Each kind of answer came back: pass (200), fail (422) and the
	// escalated one, settled or blocked.
	for _, code := range []int{http.StatusOK, http.StatusUnprocessableEntity} {
		if on.codes[code] == 0 {
			t.Errorf("guard on: no %d response", code)
		}
	}
}

// BenchmarkLoadHTTPServer runs b.N requests with the guard on and off and
// reports the latency the guard adds.
func BenchmarkLoadHTTPServer(b *testing.B) {
	n := max(b.N, 100)
	off := loadRun(b, n, false)
	on := loadRun(b, n, true)
	b.StopTimer()
	checkLoad(b, "guard off", n, off)
	checkLoad(b, "guard on ", n, on)
	so, sf := on.server.Summary(), off.server.Summary()
	b.ReportMetric(float64(sf.P50.Microseconds()), "p50-off-µs")
	b.ReportMetric(float64(sf.P99.Microseconds()), "p99-off-µs")
	b.ReportMetric(float64(so.P50.Microseconds()), "p50-on-µs")
	b.ReportMetric(float64(so.P99.Microseconds()), "p99-on-µs")
	b.ReportMetric(float64((so.P50 - sf.P50).Microseconds()), "p50-added-µs")
	b.ReportMetric(float64((so.P99 - sf.P99).Microseconds()), "p99-added-µs")
}
