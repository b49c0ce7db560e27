package evalkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

// An Evaluator judges one sample; *guard.Guard is one. Like
// guard.Guard.Evaluate, it returns an error only when it gives no result
// (the row is then a failure of kind FailSample or FailEval); a judge that
// failed is part of the result.
type Evaluator interface {
	Evaluate(ctx context.Context, s guard.Sample) (guard.Result, error)
}

// Config configures a replay (Run).
type Config struct {
	// Mode is how rows are judged. ModeRecorded scores records from the
	// results they carry and needs no Guard.
	Mode report.Mode
	// Guard judges the rows (see BuildMode, which attributes latency and
	// usage to legs; any other Evaluator is attributed from its results).
	Guard Evaluator
	// Workers bounds the rows judged at once; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// Escalator is cascade mode's escalator (ModeSetup.Escalator). When it
	// keeps counts (as *cascade.Cascade does), the report's
	// cascade.runtime block shows them. With more than one worker, rows
	// that repeat a sample may share a fallback call or a cached estimate,
	// so those counts (and a label-reading fallback's estimates) can vary
	// between runs; the report then says so
	// (Reproducibility.Nondeterminism). One worker is deterministic.
	Escalator guard.Escalator
	// CascadeSettings, when set, is recorded in the report's
	// cascade.settings.
	CascadeSettings *cascade.Config
	// ClaimExtractor is the guard's claim extractor in claims mode
	// (ModeSetup.Claims). When it is set, or when a result carries claims,
	// the report has a claims section, and the extractor's name and version
	// (from guard.Describer, else its type) are in its reproducibility block.
	ClaimExtractor guard.ClaimExtractor

	// PrimaryJudge/FallbackJudge name the judges of each leg, and
	// PrimaryModel/FallbackModel the model IDs their usage is priced at
	// (see Pricing).
	PrimaryJudge, FallbackJudge string
	PrimaryModel, FallbackModel string
	// PrimaryPolicy and FallbackPolicy are recorded in the report; the
	// policy of the mode (fallback's in fallback mode, primary's otherwise)
	// is the one whose thresholds are shown per decision.
	PrimaryPolicy, FallbackPolicy *guard.Policy
	Degrade                       guard.Degrade
	ProfileVersion                string
	// Pricing prices token usage; nil makes every cost unavailable.
	Pricing *report.Pricing
	// Simulation describes the simulated fallback judge, when it is one.
	Simulation *report.SimulationInfo
	// Command is the command line, recorded for reproduction.
	Command []string

	// Bins is the number of reliability buckets (0 means 10); Confidence
	// the level of the Clopper–Pearson bounds (0 means 0.95).
	Bins       int
	Confidence float64

	// Draws, when set, are the teacher draws the guard was built with
	// (guard.WithDraws); the report's draws block records them. A Guard
	// that can Teach (as *guard.Guard does) is asked to right after
	// Evaluate, for every drawn row, with the row's labels in the context
	// (so that a simulated teacher reads them) but outside the legs: what
	// the teacher spends is counted in the draws block, not in the legs.
	Draws *guard.Draws
	// Records, when set, receives one record per row with a result, in
	// input order, once the row was taught: its id is the row's ID. Without
	// RecordsContent a record carries no user text (record.WithoutText),
	// as the middleware's sink writes by default; with it, the sample too.
	// A write error is not retried; record.Writer counts it.
	Records        RecordWriter
	RecordsContent bool

	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Progress, when set, is called on the collecting goroutine after each
	// row, with the rows done so far.
	Progress func(rows int)
}

// A RecordWriter receives records (Config.Records); *record.Writer is one.
type RecordWriter interface {
	WriteRecord(ctx context.Context, rec *record.Record) error
}

// teacher is an Evaluator that can ask the teacher about a drawn result
// (*guard.Guard).
type teacher interface {
	Teach(ctx context.Context, s *guard.Sample, res *guard.Result) error
}

// Run replays every item of src through cfg.Guard (or scores recorded
// results in ModeRecorded) and returns the report.
//
// Up to cfg.Workers goroutines judge the rows, at most 4 rows per worker in
// flight; the rows are collected in input order. Memory is the rows in
// flight plus a few dozen bytes per labeled decision. Bad lines, rejected
// samples and records that cannot be judged are counted and listed; the run
// goes on.
//
// When ctx is cancelled, Run stops reading and lets the rows in flight
// finish. It returns ctx's error and a report marked Partial: the rows
// collected before the first one the cancellation reached. An input that
// cannot be read to the end stops the run the same way, with its error. Any
// other error (a bad configuration) comes with a nil report.
//
// The goroutines Run starts end before it returns.
func Run(ctx context.Context, src dataset.Source, cfg Config) (*report.Report, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	start := cfg.Now()
	acc := newAccumulator(&cfg)
	jobs := make(chan job)
	results := make(chan outcome, cfg.Workers)
	// window bounds the rows read but not yet collected.
	window := make(chan struct{}, 4*cfg.Workers)
	startWorkers(ctx, &cfg, jobs, results)
	rd := &reader{src: src, window: window, jobs: jobs, done: make(chan struct{})}
	go rd.run(ctx)

	metricsTime := collectInOrder(results, window, acc, cfg.Progress)
	<-rd.done
	acc.notEvaluated += rd.dropped
	elapsed := cfg.Now().Sub(start)
	t0 := time.Now()
	rep := acc.report(src, elapsed)
	metricsTime += time.Since(t0)
	rep.Reproduce.MetricsSeconds = metricsTime.Seconds()
	return rep, markPartial(ctx, rep, rd.err)
}

// setDefaults checks cfg and fills in its defaults.
func (cfg *Config) setDefaults() error {
	if cfg.Mode == "" {
		return errors.New("evalkit: Run: no mode")
	}
	if _, err := report.ParseMode(string(cfg.Mode)); err != nil {
		return err
	}
	if cfg.Mode != report.ModeRecorded && cfg.Guard == nil {
		return fmt.Errorf("evalkit: Run: %s mode needs a guard", cfg.Mode)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Bins <= 0 {
		cfg.Bins = 10
	}
	if cfg.Confidence == 0 {
		cfg.Confidence = 0.95
	}
	if !(cfg.Confidence > 0 && cfg.Confidence < 1) {
		return fmt.Errorf("evalkit: Run: confidence %v not in (0, 1)", cfg.Confidence)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return nil
}

// job is one row handed to a worker, with its place in the input.
type job struct {
	seq  int
	item dataset.Item
}

// startWorkers starts cfg.Workers goroutines that evaluate the jobs, and
// closes results once they have all ended (when jobs is closed).
func startWorkers(ctx context.Context, cfg *Config, jobs <-chan job, results chan<- outcome) {
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				o := evaluate(ctx, cfg, j.item)
				o.seq = j.seq
				results <- o
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
}

// reader feeds the jobs until the input ends, fails, or ctx is done; it
// then closes jobs and done. err and dropped are set before done closes.
type reader struct {
	src    dataset.Source
	window chan<- struct{}
	jobs   chan<- job
	done   chan struct{}

	err     error // the input's error, other than io.EOF
	dropped int   // rows read but never handed to a worker
}

func (rd *reader) run(ctx context.Context) {
	defer close(rd.done)
	defer close(rd.jobs)
	for seq := 0; ; seq++ {
		select {
		case rd.window <- struct{}{}:
		case <-ctx.Done():
			return
		}
		if ctx.Err() != nil {
			return
		}
		it, err := rd.src.Next()
		if err != nil {
			if err != io.EOF {
				rd.err = err
			}
			return
		}
		select {
		case rd.jobs <- job{seq, it}:
		case <-ctx.Done():
			rd.dropped++
			return
		}
	}
}

// collectInOrder hands the outcomes to acc in input order, freeing a place
// in the window for each. From the first row the cancellation reached on,
// rows are counted as not evaluated. It returns the time acc spent.
func collectInOrder(results <-chan outcome, window <-chan struct{}, acc *accumulator, progress func(int)) time.Duration {
	pending := map[int]outcome{}
	next := 0
	var metricsTime time.Duration
	stopped := false
	for o := range results {
		pending[o.seq] = o
		for {
			o, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-window
			if o.cancelled {
				stopped = true
			}
			if stopped {
				acc.notEvaluated++
			} else {
				t0 := time.Now()
				acc.add(&o)
				metricsTime += time.Since(t0)
			}
			if progress != nil {
				progress(next)
			}
		}
	}
	return metricsTime
}

// markPartial marks a report whose input was not read to the end, or
// whose run was interrupted, and returns the error that ended it.
func markPartial(ctx context.Context, rep *report.Report, readErr error) error {
	switch {
	case readErr != nil:
		rep.Partial = true
		rep.PartialReason = "input could not be read to the end: " + readErr.Error()
		return readErr
	case ctx.Err() != nil:
		rep.Partial = true
		rep.PartialReason = fmt.Sprintf("interrupted (%v) after %d rows; %d read rows were not evaluated", ctx.Err(), rep.Input.RowsEvaluated+rep.Input.RowsFailed, rep.Input.RowsNotEvaluated)
		return ctx.Err()
	}
	return nil
}

// outcome is one row's evaluation, as the collector receives it.
type outcome struct {
	seq       int
	item      dataset.Item
	res       guard.Result
	hasResult bool
	err       error // evaluation failed without a result
	kind      string
	legs      [numLegs]legSample
	totalMs   float64
	measured  bool // the legs were timed here (not taken from a record)
	cancelled bool
	teachErr  error // Teach could not ask the teacher
}

// evaluate judges one item.
func evaluate(ctx context.Context, cfg *Config, it dataset.Item) outcome {
	o := outcome{item: it}
	if ctx.Err() != nil {
		o.cancelled = true
		return o
	}
	switch {
	case it.Err != nil:
		o.err, o.kind = it.Err, report.FailBadLine
		return o
	case cfg.Mode == report.ModeRecorded:
		if it.Record == nil {
			o.err, o.kind = errors.New("recorded mode needs record input"), report.FailEval
			return o
		}
		o.res, o.hasResult = it.Record.Result, true
		o.legs[legPrimary], o.legs[legFallback] = recordedLegs(it.Record)
		o.totalMs = addMs(o.legs[legPrimary].latencyMs, o.legs[legFallback].latencyMs)
		return o
	case it.Sample == nil:
		o.err, o.kind = errors.New("the record has no captured sample, so it cannot be judged again; replay it with -mode recorded"), report.FailNoSample
		return o
	}
	meter := &legMeter{}
	rctx := context.WithValue(ctx, meterKey{}, meter)
	if it.Expected != nil {
		rctx = ContextWithLabels(rctx, it.Expected)
	}
	t0 := time.Now()
	res, err := cfg.Guard.Evaluate(rctx, *it.Sample)
	wall := float64(time.Since(t0)) / float64(time.Millisecond)
	if ctx.Err() != nil {
		o.cancelled = true
		return o
	}
	if err != nil {
		// No result (Evaluator's contract): the guard rejected the sample,
		// or another evaluator failed. A judge that failed is part of a
		// result instead (counted as rowsWithJudgeErrors).
		o.err, o.kind = err, report.FailEval
		if errors.Is(err, guard.ErrInvalidSample) {
			o.kind = report.FailSample
		}
		return o
	}
	o.res, o.hasResult, o.measured = res, true, true
	if t, ok := cfg.Guard.(teacher); ok && res.Draw != nil && res.Draw.Drawn {
		// Off the legs: the teacher's cost is the draws'.
		tctx := ctx
		if it.Expected != nil {
			tctx = ContextWithLabels(tctx, it.Expected)
		}
		if err := t.Teach(tctx, it.Sample, &o.res); err != nil {
			o.teachErr = err
		}
		if ctx.Err() != nil {
			o.cancelled = true
			return o
		}
	}
	meter.mu.Lock()
	o.legs = meter.legs
	meter.mu.Unlock()
	if !o.legs[legPrimary].ran && !o.legs[legFallback].ran {
		// Not a metered guard: attribute from the result.
		leg := legPrimary
		if cfg.Mode == report.ModeFallback {
			leg = legFallback
		}
		o.legs[leg] = legSample{ran: true, latencyMs: wall, wallMs: wall, usage: res.Usage, failed: len(res.Errors) > 0}
		if fb := res.Fallback; fb != nil && leg == legPrimary {
			o.legs[legFallback] = legSample{ran: true, latencyMs: fb.LatencyMs, wallMs: fb.LatencyMs}
			o.legs[legPrimary].latencyMs = max(0, wall-fb.LatencyMs)
		}
		o.totalMs = wall
		return o
	}
	// Guard overhead goes to the leg that ran first.
	var legWall float64
	for _, l := range o.legs {
		legWall = addMs(legWall, l.wallMs)
	}
	overhead := max(0, wall-legWall)
	first := legPrimary
	if !o.legs[legPrimary].ran {
		first = legFallback
	}
	o.legs[first].latencyMs = addMs(o.legs[first].latencyMs, overhead)
	o.totalMs = addMs(o.legs[legPrimary].latencyMs, o.legs[legFallback].latencyMs)
	return o
}
