package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/evalkit"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/render"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
	"github.com/ragtriage/ragtriage/record"
)

var evalCommand = &command{
	name:    "eval",
	summary: "replay a labeled dataset or recorded traffic and write a deployment report",
	usage:   evalUsage,
	run:     runEval,
}

const evalUsage = `Usage: ragtriage eval -dataset FILE [-records FILE | -traces FILE] [-mode MODE] [-profile FILE]
                      -out report.json [-md report.md] [-html report.html]
                      [-baseline report.json -max-drop 0.02 -max-row-change 0.10] [flags]

Eval replays labeled rows through the guard and reports, per decision and for
the diagnosis, how much traffic each threshold decides automatically and with
what error, how primary-only, fallback-only and cascade compare, and what the
judging costs. The JSON report's schema is documented in docs/report-schema.md.

Input (-dataset, -records and -traces may be repeated, or given a comma-separated list):
  -dataset FILE   JSON Lines in the dataset shape (id, question, contexts,
                  answer, referenceAnswer?, expected?: the labels, described
                  in docs/labels.md and "ragtriage help labels"). Without
                  -records or -traces these are the rows replayed; with them
                  they only supply the labels, joined to the records by id
                  ("ragtriage export" writes records as rows to label).
  -records FILE   record files as the middleware's record sink writes them
                  (one ragtriage.record/2 line per evaluated request).
  -traces FILE    OTLP JSON as the OpenTelemetry Collector's file exporter
                  writes it; each ragtriage evaluation span is one record
                  (its sample only when content capture was on).

Bad lines are counted and listed (file:line and why) and the run goes on. An
input file that cannot be opened stops the run before anything is written.

Modes (the same rows in every mode):
  -mode primary   the lexical judges and the profile's policy (default)
  -mode fallback  the fallback judge alone, as the baseline
  -mode cascade   the primary decides what it is confident about and the
                  uncertain decisions go to the fallback judge
  -mode recorded  score records from the results they carry (-records or
                  -traces only)

Advanced groundedness (claims mode):
  -claims MODE    off (default): groundedness is judged on the whole answer.
                  sentences: each sentence of the answer is a claim (an
                    offline, deterministic, host-style extractor that gives
                    sentence-level claims, not atomic-claim extraction).
                  openai: an LLM splits the answer into atomic claims, on
                    the server of -fallback-base-url with -fallback-model
                    (key from OPENAI_API_KEY, checked before any request).
                    Its own calls and tokens are not in the report's usage
                    and cost.
                  Each claim is judged on its own by the mode's groundedness
                  judge (in cascade mode, when the row's diagnosis is
                  JUDGE_UNCERTAIN, a claim the primary leaves uncertain is
                  escalated on its own); a row's groundedness
                  is its weakest claim's. The report gains a claims section
                  listing the claims of the first 20 rows with a failed or
                  uncertain claim.

Fallback judge:
  -fallback NAME          the fallback judge: simulated (default) or openai
  -fallback-policy F,P    thresholds the fallback's probabilities are read
                          with, for every decision (default 0.3,0.7)
  -degrade RULE           fail_closed (default) or fail_open: what the host
                          should do when the fallback cannot settle a decision

  In cascade mode the fallback runs behind package cascade (circuit breaker,
  cache, concurrency limit, budget), as in production; the report's
  cascade.runtime block counts breaker trips, cache hits, shared calls and
  refusals. Its flags:
  -fallback-timeout D         cap on one fallback call (default 30s; for
                              openai also on each HTTP request)
  -fallback-concurrency N     fallback calls at once (default 8)
  -fallback-waiting N         calls that may wait for a free slot; the rest
                              abstain (default -1: no bound; 0: none wait)
  -fallback-cache N           estimates kept in the cache (default 4096;
                              0 also means 4096; -1 turns the cache off)
  -fallback-breaker-failures N  consecutive failed calls that open the
                              breaker (default 5)
  -fallback-breaker-cooldown D  how long it stays open (default 30s)
  -fallback-budget-calls N    at most N fallback calls per budget window
  -fallback-budget-tokens N   at most N tokens per budget window
  -fallback-budget-window D   the budget's sliding window (default 1m)
  -fallback-share R           send at most a share R in (0, 1] of the
                              escalated rows to the fallback, the riskiest
                              by rank and a uniform draw of the rest, each
                              with a known inclusion probability (default 0:
                              no bound; see docs/estimates.md)
  -fallback-share-window N    rows the share is counted over (default 1000)
  -fallback-share-uniform R   part of the share drawn uniformly (default
                              0: 0.1)
  -fallback-share-seed N      seed of the share's uniform draw (default 1)
  Identical rows escalated at the same time may share one call instead of
  hitting the cache, so with -workers above 1 the cache and shared-call
  counts can vary between runs on data that repeats a sample (and with the
  simulated fallback, which answers with the labels of the row that reached
  it, every fallback figure); -workers 1 makes them deterministic. That is
  why cascade mode with the simulated fallback runs one worker unless
  -workers says otherwise; a report made with more says so
  (reproducibility.nondeterminism).

  Failed fallback calls are counted in the report (fallbackErrors) and the
  first ones quoted on stderr. The run exits 1 when calls got no HTTP
  response (connection refused, DNS, TLS, timeout) and the fallback settled
  nothing, or when more than -max-fallback-errors of its calls failed:
  -max-fallback-errors R  largest share of failed fallback calls (default 0.05)
  -allow-fallback-errors  report them, but do not exit 1 for them

  The "openai" fallback is an LLM judge (package guard/llmjudge) on any
  OpenAI-compatible chat-completions server: OpenAI, vLLM, llama.cpp,
  Ollama's /v1 API (see docs/fallback.md). The API key is read from
  OPENAI_API_KEY and checked before any request (a local server that
  ignores it still needs a non-empty value). Its usage is priced as
  -fallback-model in the pricing snapshot (unavailable when not listed).
  -fallback-base-url URL  the API root (default https://api.openai.com/v1)
  -fallback-model M       the model name the server knows (required)

  The "simulated" fallback is a SIMULATION, not a model: it reads each row's
  labels and answers on the labeled side of 0.5 except for a configured error
  rate, and reports a configured latency and token usage. Every report made
  with it says so. Its flags:
  -sim-error-rate R       probability of a wrong estimate (default 0.05)
  -sim-latency D          latency reported per call (default 300ms)
  -sim-sleep              actually wait that long (default: only report it)
  -sim-tokens N           input tokens reported per call (default 400)
  -sim-output-tokens N    output tokens reported per call (default 8)
  -sim-seed N             seed of the deterministic draws (default 1)
  -sim-price-as MODEL     price the simulated tokens as this model of the
                          pricing snapshot (default gpt-4o-mini)
  -sim-unlabeled WHO      decisions without a label: "primary" (answered by
                          the lexical judge, default) or "abstain"

Teacher draws (the loop; cascade mode: the fallback is the teacher):
  -explore R       draw every row for the teacher with probability R (as
                   shadow mode does), whatever the embedded verdicts
  -audit R         draw the rows the embedded judges decided on their own
                   (no escalation) with probability R (as enforce mode does)
  -draw-seed N     seed of the draws (default 1): a row is drawn by a hash
                   of the seed and its id, so a rerun draws the same rows
  The guard asks the teacher about each drawn row right after evaluating
  it, every decision its own judges were asked, behind the cascade (its
  budget, breaker and concurrency apply; a refusal is recorded with its
  cause and never retried). The teacher never changes the row's verdicts:
  its own sit beside them in the record (result.teacher), and the report's
  draws block counts the draws, the refusals by cause and, for audits, the
  disagreements. What the teacher spends is counted there, not in the legs.
  -records-out FILE  write one record per row (the row's id; the result with
                   its feature vectors, draw and teacher) as the
                   middleware's record sink writes them by default: no user
                   text (question, contexts, answer, quotes) unless
                   -records-content. "ragtriage calibrate -records" learns
                   from them.
  -records-content also put the row's texts in each record
  -monitor         with -audit, a promise monitor watches the audits
                   (default true; -monitor=false turns it off): per
                   decision side, an anytime-valid test of "the embedded
                   verdicts disagree with the teacher at most alpha"; a side
                   it finds broken stops deciding (its verdicts are withheld,
                   cause promise_broken, and the row escalates) for the rest
                   of the run. The rows are then judged one at a time, and
                   the report's promise block says when (row, audits) and
                   where (decision, side) it tripped, with the wrong
                   automatic verdicts before and after.
  -monitor-alpha A the promise tested (default: the profile's alpha, which
                   ragtriage calibrate records; 0.05 for profiles without
                   one, such as the shipped profile)
  -monitor-delta D the chance a side keeping its promise ever trips (0.01)

Output:
  -out FILE        the JSON report (required)
  -md FILE         a Markdown summary
  -html FILE       a self-contained HTML page with plots (no network)
  -baseline FILE   compare with an earlier JSON report: exit 1 when a
                   quality metric got worse by more than -max-drop (0.02),
                   naming each such metric. Per decision the metrics are
                   coverage (the share decided automatically) and the error
                   rate of what was decided, beside the probabilities'
                   accuracy at 0.5, AUROC, Brier, ECE and AURC. When the two
                   reports used different profiles it says so, naming both,
                   and the probability metrics (two models) are notes, not
                   gated: a profile that decides more is not a regression
                   unless it errs more. The gate fails closed: it also
                   exits 1 when the current run (or the baseline) has no
                   labelled rows, when a metric of the baseline is missing
                   now, or when the rows evaluated or labelled differ from
                   the baseline's by more than -max-row-change
  -max-row-change R  largest relative change of those row counts (default
                   0.10: ±10%)
  -pricing FILE    token price snapshot (default: the snapshot built in,
                   2025-06-01, a copy of testdata/pricing/2025-06-01.json)

Other flags:
  -profile FILE    calibration profile of the lexical judges (default: embedded)
  -workers N       rows judged at once; 0 is one per CPU, the default except
                   in cascade mode with the simulated fallback, where it is
                   1 (see above)
  -progress WHEN   auto (a bar on a terminal for runs over 2s), always, never

Interrupting (Ctrl-C) writes a partial report, marked partial, covering the
rows evaluated so far.

Exit status: 0 on success; 1 when a row failed, the run was interrupted, the
baseline gate failed, the fallback's calls failed (see above), or the run
could not start (an input file that cannot be opened, or inputs that hold no
row: then no report is written); 2 on a usage
error (a bad flag, or a fallback that cannot be configured, such as openai
without OPENAI_API_KEY).
`

// listFlag is a repeatable flag that also splits on commas.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// evalFlags holds the parsed flags of eval.
type evalFlags struct {
	datasets, records, traces listFlag
	mode                      string
	profile                   string
	out, md, html             string
	baseline                  string
	maxDrop                   float64
	maxRowChange              float64
	pricing                   string
	workers                   int
	workersSet                bool
	progress                  string

	maxFallbackErrors   float64
	allowFallbackErrors bool

	fallback       string
	fallbackPolicy string
	degrade        string

	fallbackTimeout         time.Duration
	fallbackConcurrency     int
	fallbackWaiting         int
	fallbackCache           int
	fallbackBreakerFailures int
	fallbackBreakerCooldown time.Duration
	fallbackBudgetCalls     int
	fallbackBudgetTokens    int
	fallbackBudgetWindow    time.Duration
	fallbackShare           float64
	fallbackShareWindow     int
	fallbackShareUniform    float64
	fallbackShareSeed       uint64

	fallbackBaseURL string
	fallbackModel   string

	claims string

	simErrorRate    float64
	simLatency      time.Duration
	simSleep        bool
	simTokens       int
	simOutputTokens int
	simSeed         uint64
	simPriceAs      string
	simUnlabeled    string

	explore, audit float64
	drawSeed       uint64
	recordsOut     string
	recordsContent bool

	monitor                    bool
	monitorAlpha, monitorDelta float64
}

// fallbackSetup is what a fallback factory returns.
type fallbackSetup struct {
	judge      guard.Judge
	name       string
	model      string // the model its usage is priced at
	simulation *report.SimulationInfo
	// close, when set, releases what the judge holds (idle connections).
	close func()
}

// fallbackFactories builds fallback judges by name. A factory's error is a
// usage error (exit 2); it must make no request.
var fallbackFactories = map[string]func(f *evalFlags, primary guard.Judge) (fallbackSetup, error){
	"simulated": newSimulatedFallback,
	"openai":    newOpenAIFallback,
}

// fallbackNames lists the factories, for messages.
func fallbackNames() string {
	names := make([]string, 0, len(fallbackFactories))
	for n := range fallbackFactories {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// newOpenAIFallback builds an LLM judge on an OpenAI-compatible server. The
// API key comes from the environment and is checked here, before any
// request is made.
func newOpenAIFallback(f *evalFlags, _ guard.Judge) (fallbackSetup, error) {
	if f.fallbackModel == "" {
		return fallbackSetup{}, errors.New("-fallback openai needs -fallback-model (the model name the server knows)")
	}
	key := os.Getenv(llmjudge.APIKeyEnv)
	if strings.TrimSpace(key) == "" {
		return fallbackSetup{}, fmt.Errorf("-fallback openai: %w", llmjudge.ErrNoAPIKey)
	}
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: max(8, f.fallbackConcurrency)}
	// MeteredTransport lets the report tell calls that got no HTTP response
	// from other failures, and quote the transport's error (langchaingo's
	// says only "failed to reach API server").
	j, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{BaseURL: f.fallbackBaseURL, Model: f.fallbackModel, APIKey: key,
		Timeout: f.fallbackTimeout, Base: evalkit.MeteredTransport(tr)})
	if err != nil {
		return fallbackSetup{}, fmt.Errorf("-fallback openai: %w", err)
	}
	return fallbackSetup{judge: j, name: j.Describe().Name, model: f.fallbackModel, close: tr.CloseIdleConnections}, nil
}

// claimModes lists the values of -claims, for messages.
const claimModes = "off, sentences or openai"

// newClaimExtractor returns the claim extractor -claims asks for (nil for
// off) and, when set, a func that releases what it holds. Its error is a
// usage error (exit 2); it makes no request.
func newClaimExtractor(f *evalFlags) (guard.ClaimExtractor, func(), error) {
	switch f.claims {
	case "off":
		return nil, nil, nil
	case "sentences":
		return lexical.SentenceClaims{}, nil, nil
	case "openai":
	default:
		return nil, nil, fmt.Errorf("-claims %q: want %s", f.claims, claimModes)
	}
	if f.fallbackModel == "" {
		return nil, nil, errors.New("-claims openai needs -fallback-model (the model name the server knows)")
	}
	key := os.Getenv(llmjudge.APIKeyEnv)
	if strings.TrimSpace(key) == "" {
		return nil, nil, fmt.Errorf("-claims openai: %w", llmjudge.ErrNoAPIKey)
	}
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 8}
	x, err := llmjudge.NewOpenAIClaimExtractor(llmjudge.OpenAIConfig{BaseURL: f.fallbackBaseURL, Model: f.fallbackModel, APIKey: key,
		Timeout: f.fallbackTimeout, Base: tr}, guard.MaxClaims)
	if err != nil {
		return nil, nil, fmt.Errorf("-claims openai: %w", err)
	}
	return namedExtractor{x, guard.JudgeInfo{Name: "llmjudge/claims/" + f.fallbackModel, Version: llmjudge.PromptVersion}}, tr.CloseIdleConnections, nil
}

// namedExtractor gives a claim extractor a name and version for results
// and reports.
type namedExtractor struct {
	guard.ClaimExtractor
	info guard.JudgeInfo
}

func (n namedExtractor) Describe() guard.JudgeInfo { return n.info }

// cascadeSettings maps the cascade flags onto a cascade.Config. The flags
// share its convention: 0 is the default (-fallback-waiting 0: nobody
// waits; -fallback-cache 0: cascade.DefaultCacheSize) and -1 the named
// value beside it (cascade.NoLimit, cascade.CacheOff). The command's own
// default for -fallback-waiting is -1: a replay has no deadline to miss, so
// every call waits for its turn (the workers bound how many can).
func (f *evalFlags) cascadeSettings() (cascade.Config, error) {
	c := cascade.Config{
		Limits:          cascade.Limits{MaxConcurrent: f.fallbackConcurrency, MaxWaiting: f.fallbackWaiting, CallTimeout: f.fallbackTimeout},
		CacheSize:       f.fallbackCache,
		BreakerFailures: f.fallbackBreakerFailures, BreakerCooldown: f.fallbackBreakerCooldown,
		Budget: cascade.Budget{MaxCalls: f.fallbackBudgetCalls, MaxTokens: f.fallbackBudgetTokens},
	}
	switch {
	case f.fallbackTimeout <= 0:
		return c, fmt.Errorf("-fallback-timeout %v: want a positive duration", f.fallbackTimeout)
	case f.fallbackConcurrency <= 0:
		return c, fmt.Errorf("-fallback-concurrency %d: want 1 or more", f.fallbackConcurrency)
	case f.fallbackWaiting < -1:
		return c, fmt.Errorf("-fallback-waiting %d: want -1 (no bound), 0 (none wait) or more", f.fallbackWaiting)
	case f.fallbackCache < -1:
		return c, fmt.Errorf("-fallback-cache %d: want -1 (off), 0 (default %d) or more", f.fallbackCache, cascade.DefaultCacheSize)
	case f.fallbackBreakerFailures <= 0:
		return c, fmt.Errorf("-fallback-breaker-failures %d: want 1 or more", f.fallbackBreakerFailures)
	case f.fallbackBreakerCooldown <= 0:
		return c, fmt.Errorf("-fallback-breaker-cooldown %v: want a positive duration", f.fallbackBreakerCooldown)
	case f.fallbackBudgetCalls < 0 || f.fallbackBudgetTokens < 0:
		return c, errors.New("-fallback-budget-calls and -fallback-budget-tokens: want 0 (no cap) or more")
	case f.fallbackBudgetWindow <= 0:
		return c, fmt.Errorf("-fallback-budget-window %v: want a positive duration", f.fallbackBudgetWindow)
	}
	if c.Budget.MaxCalls > 0 || c.Budget.MaxTokens > 0 {
		c.Budget.Window = f.fallbackBudgetWindow
	}
	switch {
	case !(f.fallbackShare >= 0 && f.fallbackShare <= 1):
		return c, fmt.Errorf("-fallback-share %v: want a fraction in (0, 1], or 0 for no bound", f.fallbackShare)
	case f.fallbackShare > 0 && f.fallbackShareWindow <= 0:
		return c, fmt.Errorf("-fallback-share %v needs -fallback-share-window N > 0 (got %d): the number of recent rows the share is counted over", f.fallbackShare, f.fallbackShareWindow)
	case f.fallbackShare > 0:
		c.Limits.Share, c.Limits.ShareWindow = f.fallbackShare, f.fallbackShareWindow
		c.Limits.ShareUniform, c.Limits.ShareSeed = f.fallbackShareUniform, f.fallbackShareSeed
	}
	_, err := c.Effective()
	return c, err
}

func newSimulatedFallback(f *evalFlags, primary guard.Judge) (fallbackSetup, error) {
	cfg := evalkit.SimulatedConfig{ErrorRate: f.simErrorRate, Latency: f.simLatency, Sleep: f.simSleep,
		InputTokens: f.simTokens, OutputTokens: f.simOutputTokens, Seed: f.simSeed}
	unlabeled := "abstain"
	switch f.simUnlabeled {
	case "primary":
		cfg.Unlabeled = primary
		unlabeled = lexical.Name
	case "abstain":
	default:
		return fallbackSetup{}, fmt.Errorf("-sim-unlabeled %q: want primary or abstain", f.simUnlabeled)
	}
	j, err := evalkit.NewSimulatedJudge(cfg)
	if err != nil {
		return fallbackSetup{}, err
	}
	info := j.Describe()
	return fallbackSetup{judge: j, name: info.Name, model: f.simPriceAs, simulation: &report.SimulationInfo{
		Judge: info.Name, Version: info.Version, ErrorRate: cfg.ErrorRate,
		LatencyMs: float64(cfg.Latency) / float64(time.Millisecond), Slept: cfg.Sleep,
		InputTokens: cfg.InputTokens, OutputTokens: cfg.OutputTokens, Seed: cfg.Seed,
		PricedAs: f.simPriceAs, Unlabeled: unlabeled,
		Note: "SIMULATED fallback judge: it reads the labels and is wrong at the configured rate; its quality, latency, tokens and cost are simulated, not measured",
	}}, nil
}

// Test hooks.
var (
	evalNow    = time.Now
	evalSignal = func(ctx context.Context) (context.Context, context.CancelFunc) {
		return signal.NotifyContext(ctx, os.Interrupt)
	}
)

// usageError is an error that exits 2: a bad flag, or a fallback that
// cannot be configured.
type usageError struct{ error }

// evalRun is what runEval decides from its flags before reading anything.
type evalRun struct {
	f        evalFlags
	mode     report.Mode
	rule     guard.Degrade
	fbPolicy guard.Policy
}

func runEval(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	r, code := parseEvalFlags(args, stderr)
	if r == nil {
		return code
	}
	f := &r.f
	exit := func(err error) int {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "ragtriage eval: %v\n", ue.error)
			return 2
		}
		fmt.Fprintf(stderr, "ragtriage eval: %v\n", err)
		return 1
	}
	claims, closeClaims, err := newClaimExtractor(f)
	if err != nil {
		return exit(usageError{err})
	}
	if closeClaims != nil {
		defer closeClaims()
	}
	cfg, cleanup, err := r.config(args, claims, stderr)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		return exit(err)
	}
	src, progress, err := openEvalSource(f, stderr)
	if err != nil {
		return exit(err)
	}
	defer src.Close()
	ctx, stop := evalSignal(context.Background())
	defer stop()
	cfg.Progress = progress
	recs, err := openRecordsOut(f, &cfg)
	if err != nil {
		return exit(err)
	}
	rep, runErr := evalkit.Run(ctx, src, cfg)
	if recs != nil {
		if err := recs.finish(); err != nil {
			return exit(err)
		}
	}
	if rep == nil {
		return exit(runErr)
	}
	if cfg.Progress != nil {
		cfg.Progress(-1)
	}
	if rep.Input.RowsRead == 0 && runErr == nil {
		return exit(noRows(f))
	}
	if err := writeEvalOutputs(f, rep); err != nil {
		return exit(err)
	}
	printEvalSummary(stderr, rep, src)
	printCSVHints(stderr, "eval", rep.Input.Files, f.datasets, f.records, f.traces)
	status := 0
	if runErr != nil {
		fmt.Fprintf(stderr, "ragtriage eval: partial report: %s\n", rep.PartialReason)
		status = 1
	}
	if rep.Input.RowsFailed > 0 {
		status = 1
	}
	status = max(status, checkFallbackErrors(f, rep, stderr))
	if f.baseline != "" {
		s, err := gateOnBaseline(f, rep, stdout, stderr)
		if err != nil {
			return exit(err)
		}
		status = max(status, s)
	}
	return status
}

// defineEvalFlags declares eval's flags into f.
func defineEvalFlags(fset *flag.FlagSet, f *evalFlags) {
	fset.Var(&f.datasets, "dataset", "dataset `FILE`")
	fset.Var(&f.records, "records", "record `FILE`")
	fset.Var(&f.traces, "traces", "OTLP JSON `FILE`")
	fset.StringVar(&f.mode, "mode", "primary", "primary, fallback, cascade or recorded")
	fset.StringVar(&f.profile, "profile", "", "calibration profile `FILE`")
	fset.StringVar(&f.out, "out", "", "JSON report `FILE`")
	fset.StringVar(&f.md, "md", "", "Markdown summary `FILE`")
	fset.StringVar(&f.html, "html", "", "HTML report `FILE`")
	fset.StringVar(&f.baseline, "baseline", "", "baseline JSON report `FILE`")
	fset.Float64Var(&f.maxDrop, "max-drop", 0.02, "largest tolerated worsening of a metric")
	fset.Float64Var(&f.maxRowChange, "max-row-change", 0.10, "largest tolerated relative change of the rows compared with -baseline")
	fset.StringVar(&f.pricing, "pricing", "", "pricing snapshot `FILE` (default: the built-in snapshot)")
	fset.IntVar(&f.workers, "workers", 0, "rows judged at once (0: one per CPU; unset: also, but 1 in cascade mode with the simulated fallback)")
	fset.Float64Var(&f.maxFallbackErrors, "max-fallback-errors", 0.05, "largest tolerated share of failed fallback calls")
	fset.BoolVar(&f.allowFallbackErrors, "allow-fallback-errors", false, "do not exit 1 because fallback calls failed")
	fset.StringVar(&f.progress, "progress", "auto", "auto, always or never")
	fset.StringVar(&f.fallback, "fallback", "simulated", "fallback judge")
	fset.StringVar(&f.fallbackPolicy, "fallback-policy", "0.3,0.7", "fallback thresholds FAIL,PASS")
	fset.StringVar(&f.degrade, "degrade", "fail_closed", "fail_closed or fail_open")
	fset.DurationVar(&f.fallbackTimeout, "fallback-timeout", 30*time.Second, "cap on one fallback call")
	fset.IntVar(&f.fallbackConcurrency, "fallback-concurrency", 8, "fallback calls at once")
	fset.IntVar(&f.fallbackWaiting, "fallback-waiting", cascade.NoLimit, "calls that may wait for a slot (-1: no bound, 0: none)")
	fset.IntVar(&f.fallbackCache, "fallback-cache", cascade.DefaultCacheSize, "estimates cached (-1: off, 0: default)")
	fset.IntVar(&f.fallbackBreakerFailures, "fallback-breaker-failures", cascade.DefaultBreakerFailures, "consecutive failures that open the breaker")
	fset.DurationVar(&f.fallbackBreakerCooldown, "fallback-breaker-cooldown", cascade.DefaultBreakerCooldown, "how long the breaker stays open")
	fset.IntVar(&f.fallbackBudgetCalls, "fallback-budget-calls", 0, "fallback calls per budget window (0: no cap)")
	fset.IntVar(&f.fallbackBudgetTokens, "fallback-budget-tokens", 0, "fallback tokens per budget window (0: no cap)")
	fset.DurationVar(&f.fallbackBudgetWindow, "fallback-budget-window", time.Minute, "budget window")
	fset.Float64Var(&f.fallbackShare, "fallback-share", 0, "share of escalated rows sent to the fallback, riskiest first (0: no bound)")
	fset.IntVar(&f.fallbackShareWindow, "fallback-share-window", 1000, "rows the fallback share is counted over")
	fset.Float64Var(&f.fallbackShareUniform, "fallback-share-uniform", 0, "part of the fallback share drawn uniformly (0: 0.1)")
	fset.Uint64Var(&f.fallbackShareSeed, "fallback-share-seed", 1, "seed of the fallback share's uniform draw")
	fset.StringVar(&f.fallbackBaseURL, "fallback-base-url", llmjudge.DefaultBaseURL, "openai fallback: API root `URL`")
	fset.StringVar(&f.fallbackModel, "fallback-model", "", "openai fallback: `MODEL` name")
	fset.StringVar(&f.claims, "claims", "off", "claims mode: off, sentences or openai")
	fset.Float64Var(&f.simErrorRate, "sim-error-rate", 0.05, "simulated fallback: error rate")
	fset.DurationVar(&f.simLatency, "sim-latency", 300*time.Millisecond, "simulated fallback: latency per call")
	fset.BoolVar(&f.simSleep, "sim-sleep", false, "simulated fallback: wait the latency")
	fset.IntVar(&f.simTokens, "sim-tokens", 400, "simulated fallback: input tokens per call")
	fset.IntVar(&f.simOutputTokens, "sim-output-tokens", 8, "simulated fallback: output tokens per call")
	fset.Uint64Var(&f.simSeed, "sim-seed", 1, "simulated fallback: seed")
	fset.StringVar(&f.simPriceAs, "sim-price-as", "gpt-4o-mini", "simulated fallback: priced as `MODEL`")
	fset.StringVar(&f.simUnlabeled, "sim-unlabeled", "primary", "simulated fallback: primary or abstain")
	fset.Float64Var(&f.explore, "explore", 0, "teacher draws: share of every row")
	fset.Float64Var(&f.audit, "audit", 0, "teacher draws: share of the rows decided alone")
	fset.Uint64Var(&f.drawSeed, "draw-seed", 1, "teacher draws: seed")
	fset.StringVar(&f.recordsOut, "records-out", "", "write one record per row to `FILE`")
	fset.BoolVar(&f.recordsContent, "records-content", false, "put the rows' texts in -records-out")
	fset.BoolVar(&f.monitor, "monitor", true, "with -audit: a promise monitor watches the audits")
	fset.Float64Var(&f.monitorAlpha, "monitor-alpha", 0, "promise monitor: the alpha tested (0: the profile's)")
	fset.Float64Var(&f.monitorDelta, "monitor-delta", guard.DefaultPromiseDelta, "promise monitor: false-trip bound per side")
}

// parseEvalFlags parses and checks eval's flags. On a usage error or -help
// it returns nil and the exit status.
func parseEvalFlags(args []string, stderr io.Writer) (*evalRun, int) {
	r := &evalRun{}
	f := &r.f
	fset := newFlagSet("eval")
	defineEvalFlags(fset, f)
	if err := fset.Parse(args); err != nil {
		return nil, flagError(fset, evalUsage, err, stderr)
	}
	fset.Visit(func(fl *flag.Flag) {
		if fl.Name == "workers" {
			f.workersSet = true
		}
	})
	if msg := f.check(fset); msg != "" {
		fmt.Fprintf(stderr, "ragtriage eval: %s\n", msg)
		return nil, 2
	}
	usage := func(format string, a ...any) (*evalRun, int) {
		fmt.Fprintf(stderr, "ragtriage eval: "+format+"\n", a...)
		return nil, 2
	}
	var err error
	if r.mode, err = report.ParseMode(f.mode); err != nil {
		return usage("-mode %q: want primary, fallback, cascade or recorded", f.mode)
	}
	if r.mode == report.ModeRecorded && len(f.records) == 0 && len(f.traces) == 0 {
		return usage("-mode recorded needs -records or -traces")
	}
	if err := r.rule.UnmarshalText([]byte(f.degrade)); err != nil {
		return usage("-degrade %q: want fail_closed or fail_open", f.degrade)
	}
	if r.fbPolicy, err = parseFallbackPolicy(f.fallbackPolicy); err != nil {
		return usage("-fallback-policy %q: %v", f.fallbackPolicy, err)
	}
	if r.mode == report.ModeRecorded && f.claims != "off" {
		return usage("-claims %s: recorded mode judges nothing (records made in claims mode carry their claims)", f.claims)
	}
	if f.draws() != nil && r.mode != report.ModeCascade {
		return usage("-explore and -audit need -mode cascade: the fallback is the teacher")
	}
	return r, 0
}

// check says what is wrong with the inputs and numbers given, or "".
func (f *evalFlags) check(fset *flag.FlagSet) string {
	switch {
	case fset.NArg() > 0:
		return fmt.Sprintf("unexpected argument %q (inputs are given with -dataset, -records and -traces)", fset.Arg(0))
	case len(f.datasets) == 0 && len(f.records) == 0 && len(f.traces) == 0:
		return "-dataset, -records or -traces is required"
	case len(f.records) > 0 && len(f.traces) > 0:
		return "-records and -traces cannot be combined"
	case f.out == "":
		return "-out is required"
	case f.workers < 0:
		return fmt.Sprintf("-workers %d: want 0 or more", f.workers)
	case !(f.maxDrop >= 0):
		return fmt.Sprintf("-max-drop %v: want 0 or more", f.maxDrop)
	case !(f.maxRowChange >= 0) || math.IsInf(f.maxRowChange, 0):
		return fmt.Sprintf("-max-row-change %v: want a fraction, 0 or more (0.10: ±10%%)", f.maxRowChange)
	case !(f.maxFallbackErrors >= 0 && f.maxFallbackErrors <= 1):
		return fmt.Sprintf("-max-fallback-errors %v: want a share in [0, 1]", f.maxFallbackErrors)
	case f.progress != "auto" && f.progress != "always" && f.progress != "never":
		return fmt.Sprintf("-progress %q: want auto, always or never", f.progress)
	case !(f.explore >= 0 && f.explore <= 1):
		return fmt.Sprintf("-explore %v: want a share in [0, 1]", f.explore)
	case !(f.audit >= 0 && f.audit <= 1):
		return fmt.Sprintf("-audit %v: want a share in [0, 1]", f.audit)
	case f.monitorAlpha != 0 && !(f.monitorAlpha > 0 && f.monitorAlpha < 1):
		return fmt.Sprintf("-monitor-alpha %v: want the promise's error rate, in (0, 1)", f.monitorAlpha)
	case !(f.monitorDelta > 0 && f.monitorDelta < 1):
		return fmt.Sprintf("-monitor-delta %v: want a probability in (0, 1)", f.monitorDelta)
	case f.recordsContent && f.recordsOut == "":
		return "-records-content needs -records-out"
	case f.recordsOut != "" && (f.recordsOut == f.out || slices.Contains(f.datasets, f.recordsOut) || slices.Contains(f.records, f.recordsOut)):
		return fmt.Sprintf("-records-out %s: would overwrite an input or the report", f.recordsOut)
	}
	return ""
}

// draws returns the teacher draws the flags ask for, or nil.
func (f *evalFlags) draws() *guard.Draws {
	if f.explore == 0 && f.audit == 0 {
		return nil
	}
	return &guard.Draws{Explore: f.explore, Audit: f.audit, Seed: f.drawSeed}
}

// config checks that every input opens, loads the primary judge's profile
// and builds the mode's judges and the pricing. Its cleanup, when not nil,
// releases what the judges hold; it is returned even with an error.
func (r *evalRun) config(args []string, claims guard.ClaimExtractor, stderr io.Writer) (evalkit.Config, func(), error) {
	f := &r.f
	// Every input must open before anything is judged or written: a
	// missing file is an error, not a report of nothing.
	for _, in := range []struct {
		flag  string
		paths []string
	}{{"dataset", f.datasets}, {"records", f.records}, {"traces", f.traces}} {
		if err := checkInputs(in.flag, in.paths); err != nil {
			return evalkit.Config{}, nil, err
		}
	}
	prof := lexical.DefaultProfile()
	if f.profile != "" {
		var err error
		if prof, err = loadProfile("profile", f.profile); err != nil {
			return evalkit.Config{}, nil, err
		}
	}
	primary, err := lexical.New(prof)
	if err != nil {
		return evalkit.Config{}, nil, err
	}
	primaryPolicy := primary.Policy()
	cfg := evalkit.Config{
		Mode: r.mode, Workers: f.workers, Degrade: r.rule, ProfileVersion: prof.Version,
		PrimaryJudge: lexical.Name, PrimaryModel: lexical.Name, PrimaryPolicy: &primaryPolicy,
		Command: append([]string{"ragtriage", "eval"}, args...), Now: evalNow,
	}
	var cleanup func()
	switch r.mode {
	case report.ModeFallback, report.ModeCascade:
		cleanup, err = r.configureFallback(&cfg, primary, primaryPolicy, claims, stderr)
	case report.ModePrimary:
		var setup *evalkit.ModeSetup
		if setup, err = evalkit.BuildMode(r.mode, evalkit.ModeConfig{Primary: primary, PrimaryPolicy: primaryPolicy, Claims: claims}); err == nil {
			setup.Configure(&cfg)
		}
	}
	if err != nil {
		return cfg, cleanup, err
	}
	if f.pricing == "" {
		cfg.Pricing = report.DefaultPricing()
	} else if p, err := report.LoadPricing(f.pricing); err == nil {
		cfg.Pricing = p
	} else {
		return cfg, cleanup, fmt.Errorf("pricing: %w", err)
	}
	return cfg, cleanup, nil
}

// configureFallback builds the fallback judge -fallback names and the mode
// around it (the fallback alone, or the cascade) into cfg. Its cleanup
// closes the cascade, then the fallback.
func (r *evalRun) configureFallback(cfg *evalkit.Config, primary *lexical.Judge, primaryPolicy guard.Policy, claims guard.ClaimExtractor, stderr io.Writer) (func(), error) {
	f := &r.f
	factory, ok := fallbackFactories[f.fallback]
	if !ok {
		return nil, usageError{fmt.Errorf("-fallback %q: unknown (available: %s)", f.fallback, fallbackNames())}
	}
	cs, err := f.cascadeSettings()
	if err != nil {
		return nil, usageError{err}
	}
	fb, err := factory(f, primary)
	if err != nil {
		return nil, usageError{err}
	}
	closeFallback := func() {
		if fb.close != nil {
			fb.close()
		}
	}
	cfg.FallbackJudge, cfg.FallbackModel, cfg.Simulation = fb.name, fb.model, fb.simulation
	if r.mode == report.ModeCascade && fb.simulation != nil && !f.workersSet {
		// The simulation answers with the labels of the row that reaches
		// it; with one worker that order, and so the report, is the same
		// on every run.
		cfg.Workers = 1
	}
	cfg.FallbackPolicy = &r.fbPolicy
	var opts []guard.Option
	if d := f.draws(); d != nil {
		opts = append(opts, guard.WithDraws(*d))
		cfg.Draws = d
	}
	if f.audit > 0 && f.monitor && r.mode == report.ModeCascade {
		alpha := f.monitorAlpha
		if alpha == 0 {
			alpha = primary.Profile().PromiseAlpha()
		}
		m, err := guard.NewPromiseMonitor(guard.PromiseConfig{Alpha: alpha, Delta: f.monitorDelta,
			Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		if err != nil {
			return closeFallback, usageError{err}
		}
		opts = append(opts, guard.WithMonitor(m))
		cfg.Monitor = m
	}
	setup, err := evalkit.BuildMode(r.mode, evalkit.ModeConfig{Primary: primary, PrimaryPolicy: primaryPolicy,
		Fallback: fb.judge, FallbackPolicy: r.fbPolicy, Degrade: r.rule, Cascade: cs, Claims: claims, Options: opts})
	if err != nil {
		return closeFallback, err
	}
	setup.Configure(cfg)
	return func() {
		// Every row has its result by now; this only waits for calls an
		// interrupted run left under way.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := setup.Close(ctx); err != nil {
			fmt.Fprintf(stderr, "ragtriage eval: closing the cascade: %v\n", err)
		}
		closeFallback()
	}, nil
}

// openEvalSource opens the rows to judge: records or traces joined with
// the datasets' labels, or the datasets themselves. The progress func
// follows the bytes read.
func openEvalSource(f *evalFlags, stderr io.Writer) (dataset.Source, func(int), error) {
	var (
		src       dataset.Source
		bytesRead atomic.Int64
		total     int64
	)
	switch {
	case len(f.records) > 0 || len(f.traces) > 0:
		labels, err := evalkit.ReadLabels(f.datasets...)
		if err != nil {
			return nil, nil, err
		}
		if len(f.records) > 0 {
			src, total = evalkit.NewRecordSource(labels, f.records...), dataset.TotalBytes(f.records...)
		} else {
			src, total = evalkit.NewTraceSource(labels, f.traces...), dataset.TotalBytes(f.traces...)
		}
	default:
		ds := dataset.NewFileSource(f.datasets...)
		ds.BytesRead = bytesRead.Store
		src, total = ds, dataset.TotalBytes(f.datasets...)
	}
	return src, newEvalProgress(f.progress, stderr, total, &bytesRead), nil
}

// writeEvalOutputs writes the JSON report and, when asked, its Markdown
// and HTML renderings.
func writeEvalOutputs(f *evalFlags, rep *report.Report) error {
	if err := rep.WriteJSON(f.out); err != nil {
		return err
	}
	if f.md != "" {
		if err := os.WriteFile(f.md, []byte(render.Markdown(rep)), 0o644); err != nil {
			return err
		}
	}
	if f.html != "" {
		return os.WriteFile(f.html, []byte(render.HTML(rep)), 0o644)
	}
	return nil
}

// printEvalSummary says on stderr what was read and judged, which rows
// failed and what the source warned about.
func printEvalSummary(stderr io.Writer, rep *report.Report, src dataset.Source) {
	in := rep.Input
	acc := "n/a"
	if a := rep.Diagnosis.Accuracy; a != nil {
		acc = fmt.Sprintf("%.3f", *a)
	}
	fmt.Fprintf(stderr, "ragtriage eval: %s mode: %d rows read, %d evaluated, %d failed, %d not evaluated; diagnosis accuracy %s on %d labeled rows\n",
		rep.Mode, in.RowsRead, in.RowsEvaluated, in.RowsFailed, in.RowsNotEvaluated, acc, rep.Diagnosis.Attempted)
	for _, fl := range in.Failures {
		fmt.Fprintf(stderr, "ragtriage eval: %s: %s: %s\n", fl.Pos, fl.Kind, fl.Reason)
	}
	if in.FailuresTotal > in.FailuresListed {
		fmt.Fprintf(stderr, "ragtriage eval: … and %d more failures (see the report)\n", in.FailuresTotal-in.FailuresListed)
	}
	if ws, ok := src.(interface{ Warnings() []dataset.Warning }); ok {
		for _, w := range ws.Warnings() {
			fmt.Fprintf(stderr, "ragtriage eval: %s: %s\n", w.Pos, w.Message)
		}
	}
}

// checkFallbackErrors quotes the first failed fallback calls and returns 1
// when their share breaks -max-fallback-errors, unless
// -allow-fallback-errors accepts it.
func checkFallbackErrors(f *evalFlags, rep *report.Report, stderr io.Writer) int {
	fe := rep.FallbackErrors
	if fe == nil || fe.Failed == 0 {
		return 0
	}
	fmt.Fprintf(stderr, "ragtriage eval: %d of %d fallback calls failed (%d with no HTTP response); the first errors:\n", fe.Failed, fe.Calls, fe.Transport)
	for _, e := range fe.Errors[:min(len(fe.Errors), 3)] {
		fmt.Fprintf(stderr, "ragtriage eval:   %q\n", e)
	}
	status := 0
	for _, p := range report.CheckFallbackErrors(rep, f.maxFallbackErrors) {
		if f.allowFallbackErrors {
			fmt.Fprintf(stderr, "ragtriage eval: fallback: %s (allowed by -allow-fallback-errors)\n", p)
			continue
		}
		fmt.Fprintf(stderr, "ragtriage eval: fallback: %s\n", p)
		status = 1
	}
	return status
}

// gateOnBaseline compares the report with -baseline and returns 1 when a
// metric regressed beyond -max-drop or the gate found a problem.
func gateOnBaseline(f *evalFlags, rep *report.Report, stdout, stderr io.Writer) (int, error) {
	base, err := report.ReadReport(f.baseline)
	if err != nil {
		return 0, err
	}
	g := report.Compare(base, rep, report.GateOptions{MaxDrop: f.maxDrop, MaxRowChange: f.maxRowChange})
	for _, n := range g.Notes {
		fmt.Fprintf(stderr, "ragtriage eval: baseline: %s\n", n)
	}
	for _, p := range g.Problems {
		fmt.Fprintf(stderr, "ragtriage eval: gate: %s\n", p)
	}
	for _, r := range g.Regressions {
		fmt.Fprintf(stderr, "ragtriage eval: regression: %s\n", r)
	}
	if g.Failed() {
		return 1, nil
	}
	fmt.Fprintf(stdout, "ragtriage eval: no metric dropped by more than %g against %s\n", f.maxDrop, f.baseline)
	return 0, nil
}

// checkInputs opens each input file once, so that one that is missing,
// unreadable or a directory stops the run before anything is judged or
// written.
func checkInputs(flag string, paths []string) error {
	for _, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("-%s %s: %w", flag, p, err)
		}
		st, err := fh.Stat()
		fh.Close()
		switch {
		case err != nil:
			return fmt.Errorf("-%s %s: %w", flag, p, err)
		case st.IsDir():
			return fmt.Errorf("-%s %s: is a directory", flag, p)
		}
	}
	return nil
}

func parseFallbackPolicy(s string) (guard.Policy, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return guard.Policy{}, errors.New("want FAIL,PASS")
	}
	fail, err1 := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
	pass, err2 := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
	if err1 != nil || err2 != nil {
		return guard.Policy{}, errors.New("want two numbers FAIL,PASS")
	}
	th := guard.Thresholds{Fail: fail, Pass: pass}
	if th.IsZero() {
		return guard.Policy{}, errors.New("0,0 would leave every decision uncertain")
	}
	if err := th.Validate(); err != nil {
		return guard.Policy{}, err
	}
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, th)
	}
	return p, nil
}

// newEvalProgress returns the progress callback: a byte-based bar on stderr
// when it is a terminal (or when forced), shown only once the run has taken
// more than two seconds. Called with -1 it finishes the bar.
func newEvalProgress(when string, stderr io.Writer, total int64, read *atomic.Int64) func(int) {
	if when == "never" {
		return nil
	}
	out, isFile := stderr.(*os.File)
	if when == "auto" && (!isFile || !term.IsTerminal(int(out.Fd()))) {
		return nil
	}
	start := time.Now()
	delay := 2 * time.Second
	if when == "always" {
		delay = 0
	}
	var bar *progressbar.ProgressBar
	return func(rows int) {
		if rows < 0 {
			if bar != nil {
				_ = bar.Finish()
				fmt.Fprintln(stderr)
			}
			return
		}
		if bar == nil {
			if time.Since(start) < delay {
				return
			}
			bar = progressbar.NewOptions64(total,
				progressbar.OptionSetWriter(stderr),
				progressbar.OptionSetDescription("replaying"),
				progressbar.OptionShowBytes(true),
				progressbar.OptionShowCount(),
				progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(100*time.Millisecond),
			)
		}
		_ = bar.Set64(read.Load())
	}
}

// recordsOut is the -records-out file being written.
type recordsOut struct {
	path string
	file *os.File
	buf  *bufio.Writer
	w    *record.Writer
}

// openRecordsOut creates -records-out and points cfg.Records at it; nil
// without the flag.
func openRecordsOut(f *evalFlags, cfg *evalkit.Config) (*recordsOut, error) {
	if f.recordsOut == "" {
		return nil, nil
	}
	file, err := os.Create(f.recordsOut)
	if err != nil {
		return nil, fmt.Errorf("-records-out: %w", err)
	}
	ro := &recordsOut{path: f.recordsOut, file: file, buf: bufio.NewWriterSize(file, 1<<16)}
	ro.w = record.NewWriter(ro.buf)
	cfg.Records, cfg.RecordsContent = ro.w, f.recordsContent
	return ro, nil
}

// finish flushes and closes the file; an error names the records that
// could not be written.
func (ro *recordsOut) finish() error {
	written, failed := ro.w.Counts()
	err := errors.Join(ro.buf.Flush(), ro.file.Close())
	switch {
	case err != nil:
		return fmt.Errorf("-records-out %s: %w", ro.path, err)
	case failed > 0:
		return fmt.Errorf("-records-out %s: %d of %d records could not be written", ro.path, failed, written+failed)
	}
	return nil
}
