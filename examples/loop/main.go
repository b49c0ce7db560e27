// Command loop runs the day-one loop end to end, offline, on data shipped in
// this repository (data/dev/halueval.jsonl), with a SIMULATED fallback
// judge as the teacher:
//
//  1. Shadow. The guard (embedded judges under the shipped profile, a
//     fallback behind a cascade) judges every answer of the stream S, with
//     explore draws: every answer also goes to the teacher (Guard.Teach),
//     whose verdicts sit beside the guard's own. One record per answer is
//     written with the record writer the middleware's sink uses, without
//     user text (feature vectors, verdicts, the draw and the teacher's
//     verdicts only).
//  2. Calibrate. `ragtriage calibrate -records R.jsonl -alpha 0.10` fits a
//     profile from those records alone: the teacher's verdicts are the
//     labels, the uniform draws certify the thresholds.
//  3. Enforce. The guard under that profile judges the held-out rows T with
//     audit draws (20% of the answers it decides on its own go to the
//     teacher too) and the promise monitor watching them. It prints how much
//     of T's groundedness the embedded judges decided on their own, their
//     error against T's TRUE labels, and whether the monitor tripped.
//  4. Drift. The same guard then meets traffic from other sources (the
//     SNLI, MultiNLI and FEVER-NLI dev files by default): what it decides
//     there, its error, when the monitor tripped, and the same traffic
//     through the same profile without a monitor.
//
// The teacher is evalkit.SimulatedJudge, a SIMULATION of an LLM judge: it
// reads each row's true labels and is wrong on 5% of them (seeded). No model
// runs. In production the fallback is an LLM judge (guard/llmjudge) and there
// are no true labels to compare with; the monitor's audits are what remain.
//
// Step 2 runs the CLI (`go run github.com/ragtriage/ragtriage/cmd/ragtriage
// calibrate …`, or the binary given with -ragtriage) as a separate process:
// calibrate -records lives in the command's package main, shares most of its
// code with calibrate -dataset, and is how a deployment runs it (on a
// schedule, from the records its sink wrote), so the example does what a
// user does rather than reach into it.
//
//	go run ./examples/loop                    # from the repository's root
//	go run ./examples/loop -dir /tmp/loop     # keep S, T, the records and the profile
//
// The split is the one of the dev measurement (testdata/bench/loop-teacher.md,
// `RAGTRIAGE_LOOP=1 go test ./cmd/ragtriage -run TestLoopMeasurement -v`):
// S is the first half of the file's rows shuffled with seed 20, T the rest.
// That run is the measurement's HaluEval row (73.6% of T decided, 0.3%
// wrong); its replicates, `-shuffle k -sim-seed k` for k = 1…5, decide 59%,
// 51%, 0%, 0% and 50%: at 500 rows, whether a side certifies against a
// 5%-wrong teacher is the teacher's luck. The dev streams are small.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ragtriage/ragtriage"
	"github.com/ragtriage/ragtriage/evalkit"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/record"
)

// config is what the example runs on.
type config struct {
	stream  string   // the labelled file split into S and T
	drift   []string // other sources' files for step 4 (none: no step 4)
	dir     string   // where S, T, the records and the profile go
	cli     string   // the ragtriage binary ("": go run the module's command)
	shuffle uint64   // the shuffle of S
	simSeed uint64   // the simulated teacher's seed (its errors)
	alpha   float64
	audit   float64
	maxRows int // drift rows read at most (0: all)
}

// defaultConfig is the run of the dev measurement, from the repository's
// root.
func defaultConfig() config {
	return config{stream: "data/dev/halueval.jsonl",
		drift:   []string{"data/dev/nli_snli.jsonl", "data/dev/nli_mnli.jsonl", "data/dev/nli_fever_nli.jsonl"},
		shuffle: 20, simSeed: 1, alpha: 0.10, audit: 0.2}
}

func main() {
	cfg := defaultConfig()
	flag.StringVar(&cfg.stream, "stream", cfg.stream, "labelled JSON Lines split into the stream S (first half, shuffled) and T (the rest)")
	drift := flag.String("drift", strings.Join(cfg.drift, ","),
		"labelled JSON Lines of other sources for the drift step, comma-separated (empty: no drift step)")
	flag.StringVar(&cfg.dir, "dir", "", "keep S, T, the records and the profile here (default: a temporary directory)")
	flag.Uint64Var(&cfg.shuffle, "shuffle", cfg.shuffle, "seed of S's shuffle (20: the dev measurement's run)")
	flag.Uint64Var(&cfg.simSeed, "sim-seed", cfg.simSeed, "seed of the simulated teacher's errors (1: ragtriage eval's default)")
	flag.IntVar(&cfg.maxRows, "drift-rows", 0, "drift rows read at most (0: all)")
	flag.StringVar(&cfg.cli, "ragtriage", "", "the ragtriage binary for the calibrate step (default: go run github.com/ragtriage/ragtriage/cmd/ragtriage)")
	flag.Parse()
	cfg.drift = nil
	if *drift != "" {
		cfg.drift = strings.Split(*drift, ",")
	}
	if _, err := run(context.Background(), os.Stdout, cfg); err != nil {
		log.Fatal(err)
	}
}

// summary is what run found.
type summary struct {
	shadowRows, records, drawn, taught int
	profileDecides                     bool
	enforce, drift, unmonitored        phase
}

// phase counts the groundedness verdicts of one enforced stream.
type phase struct {
	rows, labelled  int
	decided, wrong  int // by the embedded judges on their own, against the true labels
	escalated       int // answers that went to the fallback
	audits          int // audit draws taught
	tripped         []guard.Trip
	firstTripAtRow  int // 0: no trip
	withheldByTrips int // answers with a verdict withheld because a side was broken
	// decidedAfter and wrongAfter count the decided verdicts from the
	// first trip on.
	decidedAfter, wrongAfter int
}

// run runs the loop, printing what it does to w.
func run(ctx context.Context, w io.Writer, cfg config) (sum summary, err error) {
	dir := cfg.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "ragtriage-loop-"); err != nil {
			return sum, err
		}
		defer os.RemoveAll(dir)
	} else if err = os.MkdirAll(dir, 0o755); err != nil {
		return sum, err
	}
	S, T := filepath.Join(dir, "S.jsonl"), filepath.Join(dir, "T.jsonl")
	ns, nt, err := split(cfg.stream, S, T, cfg.shuffle)
	if err != nil {
		return sum, err
	}
	fmt.Fprintf(w, "teacher: evalkit.SimulatedJudge, a SIMULATION of an LLM fallback: it reads the true labels and is wrong on 5%% of them\n")
	fmt.Fprintf(w, "stream: %s, S = %d rows (the first half, shuffled with seed %d), T = %d rows (the rest)\n\n", cfg.stream, ns, cfg.shuffle, nt)

	// 1. Shadow, with explore draws: the records teach.
	R := filepath.Join(dir, "R.jsonl")
	if sum, err = shadow(ctx, w, S, R, cfg.simSeed); err != nil {
		return sum, err
	}

	// 2. Calibrate from the records (no text in them).
	P := filepath.Join(dir, "P.json")
	args := []string{"calibrate", "-records", R, "-alpha", fmt.Sprint(cfg.alpha), "-out", P, "-allow-undecided"}
	fmt.Fprintf(w, "\n2. calibrate: ragtriage %s\n", strings.Join(args, " "))
	if err = calibrateCmd(ctx, w, cfg.cli, args); err != nil {
		return sum, err
	}
	prof, err := lexical.LoadProfile(P)
	if err != nil {
		return sum, err
	}
	pol := prof.Policy
	sum.profileDecides = pol.Decides()
	fmt.Fprintf(w, "   profile %s: groundedness %s\n", prof.Version, thresholds(pol.Groundedness))

	// 3. Enforce on T, with audit draws and the promise monitor; 4. drift.
	mon, err := guard.NewPromiseMonitor(guard.PromiseConfig{Alpha: prof.PromiseAlpha(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}) // trips are printed below
	if err != nil {
		return sum, err
	}
	teacher, err := simulatedTeacher(cfg.simSeed)
	if err != nil {
		return sum, err
	}
	g, err := ragtriage.New(ragtriage.WithProfile(prof),
		ragtriage.WithFallback(teacher, guard.UniformPolicy(0.3, 0.7), guard.FailClosed),
		ragtriage.WithGuardOptions(guard.WithDraws(guard.Draws{Audit: cfg.audit, Seed: 1}), guard.WithMonitor(mon)))
	if err != nil {
		return sum, err
	}
	defer g.Close(context.Background())
	fmt.Fprintf(w, "\n3. enforce on T: the profile above, fallback = the simulated teacher, audit draws %.0f%%, promise monitor (alpha %.2f, delta %.2f)\n",
		100*cfg.audit, prof.PromiseAlpha(), mon.Config().Delta)
	if sum.enforce, err = enforce(ctx, g, mon, []string{T}, 0); err != nil {
		return sum, err
	}
	sum.enforce.print(w)
	if len(cfg.drift) > 0 {
		fmt.Fprintf(w, "\n4. drift: the same guard meets %s\n", strings.Join(cfg.drift, ", "))
		if sum.drift, err = enforce(ctx, g, mon, cfg.drift, cfg.maxRows); err != nil {
			return sum, err
		}
		sum.drift.print(w)
		_, promise := g.Unwrap().Monitor()
		for _, st := range mon.State(promise) {
			if st.Audits > 0 && st.Decision == guard.Groundedness {
				fmt.Fprintf(w, "   monitor evidence since step 3, %s: %d audits, %d disagreements, e-value %.2f (trips at %.0f)\n",
					st.Side, st.Audits, st.Disagreements, st.EValue, 1/mon.Config().Delta)
			}
		}
		// The same traffic without a monitor, for comparison.
		plain, err := ragtriage.New(ragtriage.WithProfile(prof),
			ragtriage.WithFallback(teacher, guard.UniformPolicy(0.3, 0.7), guard.FailClosed))
		if err != nil {
			return sum, err
		}
		defer plain.Close(context.Background())
		if sum.unmonitored, err = enforce(ctx, plain, nil, cfg.drift, cfg.maxRows); err != nil {
			return sum, err
		}
		fmt.Fprintf(w, "   without the monitor: decided %s, wrong on %s, i.e. a wrong automatic verdict on %s of the drifted rows (with it: %s)\n",
			pct(sum.unmonitored.decided, sum.unmonitored.labelled), pct(sum.unmonitored.wrong, sum.unmonitored.decided),
			pct(sum.unmonitored.wrong, sum.unmonitored.labelled), pct(sum.drift.wrong, sum.drift.labelled))
	}
	return sum, nil
}

// fixedTime stamps the records, so that the profile's version (a hash of
// its data) is the same on every run.
var fixedTime = time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)

// simulatedTeacher is the SIMULATED fallback judge: ErrorRate 0.05, the
// given seed (`ragtriage eval -sim-seed`, 1 by default), abstaining on decisions without a
// label (eval's -sim-unlabeled abstain). It reads the labels of the row it
// is asked about from the context (evalkit.ContextWithLabels).
func simulatedTeacher(seed uint64) (*evalkit.SimulatedJudge, error) {
	return evalkit.NewSimulatedJudge(evalkit.SimulatedConfig{ErrorRate: 0.05, Seed: seed})
}

// shadow judges every row of S with explore draws (every answer is drawn),
// has the teacher judge each drawn answer, and writes one record per row
// without user text, as the middleware's sink does by default.
func shadow(ctx context.Context, w io.Writer, S, R string, simSeed uint64) (summary, error) {
	var sum summary
	teacher, err := simulatedTeacher(simSeed)
	if err != nil {
		return sum, err
	}
	g, err := ragtriage.New( // the shipped profile
		ragtriage.WithFallback(teacher, guard.UniformPolicy(0.3, 0.7), guard.FailClosed),
		ragtriage.WithGuardOptions(guard.WithDraws(guard.Draws{Explore: 1, Seed: 1})))
	if err != nil {
		return sum, err
	}
	defer g.Close(context.Background())
	f, err := os.Create(R)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	rw := record.NewWriter(bw)
	err = eachRow([]string{S}, 0, func(s guard.Sample, labels *dataset.Expected) error {
		// The simulation reads the row's labels; a real fallback never does.
		lctx := evalkit.ContextWithLabels(ctx, labels)
		res, err := g.Evaluate(lctx, s)
		if err != nil {
			return err
		}
		sum.shadowRows++
		if res.Draw != nil && res.Draw.Drawn {
			sum.drawn++
			// Off the request path in production: the middleware's shadow
			// worker (or, inline, a bounded background goroutine) does it.
			if err := g.Unwrap().Teach(lctx, &s, &res); err != nil {
				return err
			}
			sum.taught++
		}
		// What the middleware's sink writes without WithContent: no
		// question, context or answer text.
		rec := &record.Record{Version: record.Version, ID: s.ID, Time: fixedTime, Result: record.WithoutText(&res),
			Legs: record.Legs(&res, fallbackUsage(&res))}
		return rw.WriteRecord(ctx, rec)
	})
	if err != nil {
		return sum, err
	}
	if err := bw.Flush(); err != nil {
		return sum, err
	}
	written, failed := rw.Counts()
	if failed > 0 {
		return sum, fmt.Errorf("records: %d failed to write", failed)
	}
	sum.records = int(written)
	fmt.Fprintf(w, "1. shadow on S: shipped profile, fallback = the simulated teacher, explore draws 100%%\n")
	fmt.Fprintf(w, "   %d answers judged, %d drawn for the teacher, %d taught, %d records written to R.jsonl (no text: feature vectors and verdicts)\n",
		sum.shadowRows, sum.drawn, sum.taught, sum.records)
	return sum, nil
}

// enforce judges the rows of file (at most max, 0: all) with g, teaching
// every audit draw, and counts what the embedded judges decided on their
// own against the true groundedness labels.
func enforce(ctx context.Context, g *ragtriage.Guard, mon *guard.PromiseMonitor, files []string, max int) (phase, error) {
	var ph phase
	trips := func() []guard.Trip {
		if mon == nil {
			return nil
		}
		return mon.Trips()
	}
	before := len(trips())
	err := eachRow(files, max, func(s guard.Sample, labels *dataset.Expected) error {
		lctx := evalkit.ContextWithLabels(ctx, labels)
		res, err := g.Evaluate(lctx, s)
		if err != nil {
			return err
		}
		ph.rows++
		if res.Fallback != nil {
			ph.escalated++
		}
		for _, wh := range res.Withheld {
			if wh.Cause == guard.CausePromiseBroken {
				ph.withheldByTrips++
				break
			}
		}
		if res.Draw != nil && res.Draw.Drawn {
			if err := g.Unwrap().Teach(lctx, &s, &res); err != nil {
				return err
			}
			ph.audits++
		}
		if ph.firstTripAtRow == 0 && len(trips()) > before {
			ph.firstTripAtRow = ph.rows
		}
		y, ok := labels.Label(guard.Groundedness)
		if !ok {
			return nil
		}
		ph.labelled++
		v, _ := res.Verdict(guard.Groundedness)
		escalated := res.Fallback != nil && slices.Contains(res.Fallback.Decisions, guard.Groundedness)
		if v == guard.Uncertain || escalated {
			return nil
		}
		ph.decided++
		wrong := (v == guard.Pass) != y
		if wrong {
			ph.wrong++
		}
		if ph.firstTripAtRow > 0 {
			ph.decidedAfter++
			if wrong {
				ph.wrongAfter++
			}
		}
		return nil
	})
	ph.tripped = trips()[before:]
	return ph, err
}

func (ph *phase) print(w io.Writer) {
	fmt.Fprintf(w, "   %d answers, %d escalated to the fallback, %d audit draws taught\n", ph.rows, ph.escalated, ph.audits)
	fmt.Fprintf(w, "   groundedness decided by the embedded judges alone: %s of %d labelled rows, wrong on %s (against the TRUE labels)\n",
		pct(ph.decided, ph.labelled), ph.labelled, pct(ph.wrong, ph.decided))
	if len(ph.tripped) == 0 {
		fmt.Fprintf(w, "   promise monitor: not tripped\n")
		return
	}
	for _, tr := range ph.tripped {
		fmt.Fprintf(w, "   promise monitor: TRIPPED %s after %d audits since step 3, %d disagreements (e-value %.0f ≥ 1/delta)\n",
			tr.Side, tr.Audits, tr.Disagreements, tr.EValue)
	}
	fmt.Fprintf(w, "   first trip at answer %d of %d; after it, %d answers had verdicts withheld (cause promise_broken) and escalated\n",
		ph.firstTripAtRow, ph.rows, ph.withheldByTrips)
	fmt.Fprintf(w, "   decided before the trip: %d, wrong on %s; from the trip on: %d, wrong on %s\n",
		ph.decided-ph.decidedAfter, pct(ph.wrong-ph.wrongAfter, ph.decided-ph.decidedAfter), ph.decidedAfter, pct(ph.wrongAfter, ph.decidedAfter))
}

// eachRow calls f with every row of files (at most max, 0: all), its
// sample ID set to the row's ID. A bad row is an error.
func eachRow(files []string, max int, f func(guard.Sample, *dataset.Expected) error) error {
	src := dataset.NewFileSource(files...)
	defer src.Close()
	for n := 0; max == 0 || n < max; n++ {
		it, err := src.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if it.Err != nil {
			return fmt.Errorf("%s: %w", it.Pos, it.Err)
		}
		s := *it.Sample
		if s.ID == "" {
			s.ID = it.ID
		}
		if err := f(s, it.Expected); err != nil {
			return fmt.Errorf("%s: %w", it.Pos, err)
		}
	}
	return nil
}

// split writes the first half of file's rows, shuffled with seed, to s and
// the rest to t, as the dev measurement does.
func split(file, s, t string, seed uint64) (int, int, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, 0, fmt.Errorf("%w (run from the repository's root, or give -stream)", err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	half := len(lines) / 2
	head := slices.Clone(lines[:half])
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(head), func(i, j int) { head[i], head[j] = head[j], head[i] })
	if err := os.WriteFile(s, []byte(strings.Join(head, "\n")+"\n"), 0o644); err != nil {
		return 0, 0, err
	}
	if err := os.WriteFile(t, []byte(strings.Join(lines[half:], "\n")+"\n"), 0o644); err != nil {
		return 0, 0, err
	}
	return half, len(lines) - half, nil
}

// calibrateCmd runs the ragtriage CLI with args, its output indented.
func calibrateCmd(ctx context.Context, w io.Writer, cli string, args []string) error {
	var cmd *exec.Cmd
	if cli != "" {
		cmd = exec.CommandContext(ctx, cli, args...)
	} else {
		cmd = exec.CommandContext(ctx, "go", append([]string{"run", "github.com/ragtriage/ragtriage/cmd/ragtriage"}, args...)...)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	for _, l := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		if l != "" {
			fmt.Fprintf(w, "   | %s\n", l)
		}
	}
	if err != nil {
		return fmt.Errorf("ragtriage calibrate: %w", err)
	}
	return nil
}

func thresholds(t guard.Thresholds) string {
	side := func(v float64, off bool) string {
		if off {
			return "undecided"
		}
		return fmt.Sprintf("%.3f", v)
	}
	return "fail ≤ " + side(t.Fail, t.NoFail) + ", pass ≥ " + side(t.Pass, t.NoPass)
}

func pct(n, d int) string {
	if d == 0 {
		return "– (0)"
	}
	return fmt.Sprintf("%.1f%% (%d)", 100*float64(n)/float64(d), n)
}

func fallbackUsage(r *guard.Result) guard.Usage {
	if r.Fallback != nil {
		return r.Fallback.Usage
	}
	return guard.Usage{}
}
