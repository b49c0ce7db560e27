// Command fleet runs several replicas of a guarded service against one
// Redis, so that they share the fallback cache and one budget (package
// cascade/redisstore), and prints what the fleet spent:
//
//	redis-server --port 6390 --save '' &      # any Redis; fleet starts none
//	go run ./examples/fleet -redis 127.0.0.1:6390
//
// Each replica is a guard of its own — the embedded judges, and a cascade
// with its own Redis client and its own in-process store — as separate
// processes would have. The replicas judge the rows of a dataset (default:
// the HaluEval sample in testdata/cli) in a shuffled order, several requests
// at a time, and escalate what the embedded judges leave uncertain.
//
// The fallback judge is a SIMULATION (evalkit.SimulatedJudge, named
// "simulated-fallback"): no model runs; it reads the row's labels, takes
// -fallback-latency per call, and answers unlabeled decisions with the
// embedded judges. What it shows is the fleet's bookkeeping — how many
// calls N replicas make under one budget, how many answers one replica
// takes from another's — not judging quality.
//
// The last line is
//
//	fleet: R replicas, E escalations, C fallback calls, H shared cache hits, budget B, spent S
//
// read from the fleet-wide counters in Redis: E escalations over all
// replicas, C fallback calls made, H estimates one replica took from the
// shared cache (settled by another), B the budget (calls per window) and S
// the calls charged to it in the current window. C never exceeds B while
// Redis is up.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/cascade/redisstore"
	"github.com/ragtriage/ragtriage/evalkit"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/examples/internal/demo"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

type config struct {
	redis    string
	dataset  string
	prefix   string
	replicas int
	requests int
	parallel int
	budget   int
	window   time.Duration
	latency  time.Duration
	timeout  time.Duration
	storeTO  time.Duration
	seed     uint64
}

func main() {
	var c config
	flag.StringVar(&c.redis, "redis", "", "address of the Redis the replicas share (required; fleet starts none)")
	flag.StringVar(&c.dataset, "dataset", "testdata/cli/halueval-sample.jsonl", "rows to judge, in the dataset shape of `ragtriage eval`")
	flag.StringVar(&c.prefix, "prefix", "", "key prefix in Redis (default: a new one per run, so runs do not share state)")
	flag.IntVar(&c.replicas, "replicas", 3, "replicas (each its own guard, cascade and Redis client)")
	flag.IntVar(&c.requests, "requests", 200, "requests per replica")
	flag.IntVar(&c.parallel, "parallel", 4, "requests under way at once per replica")
	flag.IntVar(&c.budget, "budget", 25, "fallback calls the whole fleet may make per window")
	flag.DurationVar(&c.window, "window", time.Minute, "budget window")
	flag.DurationVar(&c.latency, "fallback-latency", 20*time.Millisecond, "simulated fallback latency per call")
	flag.DurationVar(&c.timeout, "timeout", 2*time.Second, "deadline of each request")
	flag.DurationVar(&c.storeTO, "store-timeout", 50*time.Millisecond, "cap on each Redis operation (cascade.Limits.StoreTimeout); past it a replica uses its own store")
	flag.Uint64Var(&c.seed, "seed", 1, "seed of the request order")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, c); err != nil {
		log.Fatal(err)
	}
}

// replica is one guarded service.
type replica struct {
	g   *guard.Guard
	c   *cascade.Cascade
	st  *redisstore.Store
	rdb *redis.Client
}

func run(ctx context.Context, w io.Writer, c config) error {
	if err := c.check(); err != nil {
		return err
	}
	rows, err := readRows(c.dataset)
	if err != nil {
		return err
	}
	if c.prefix == "" {
		c.prefix = fmt.Sprintf("ragtriage-fleet-example:%d:", time.Now().UnixNano())
	}
	primary, err := lexical.New(lexical.DefaultProfile())
	if err != nil {
		return err
	}
	fallback, err := evalkit.NewSimulatedJudge(evalkit.SimulatedConfig{Latency: c.latency, Sleep: true, InputTokens: 300, OutputTokens: 5, Unlabeled: primary})
	if err != nil {
		return err
	}
	budget := cascade.Budget{Window: c.window, MaxCalls: c.budget}
	fmt.Fprintf(w, "fallback judge: %s (a SIMULATION: no model runs; it reads the labels and takes %v per call)\n", fallback.Describe().Name, c.latency)
	fmt.Fprintf(w, "shared store: Redis at %s, prefix %q; budget %d calls per %v for the fleet\n", c.redis, c.prefix, c.budget, c.window)

	reps, err := startReplicas(c, primary, fallback, budget)
	defer closeReplicas(reps)
	if err != nil {
		return err
	}
	if err := reps[0].rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("fleet: Redis at %s: %w", c.redis, err)
	}
	start := time.Now()
	if err := serveAll(ctx, reps, rows, c); err != nil {
		return err
	}
	elapsed := time.Since(start)
	if err := reportReplicas(ctx, w, reps); err != nil {
		return err
	}
	return reportFleet(ctx, w, reps[0].st, c, budget, elapsed)
}

// check refuses a config the fleet cannot run.
func (c config) check() error {
	if c.redis == "" {
		return errors.New("fleet: -redis is required (the address of a running Redis; fleet starts none)")
	}
	if c.replicas <= 0 || c.requests <= 0 || c.parallel <= 0 || c.budget <= 0 || c.window <= 0 {
		return errors.New("fleet: -replicas, -requests, -parallel, -budget and -window must be positive")
	}
	return nil
}

// startReplicas builds c.replicas guards, each with its own Redis client,
// store and cascade around fallback. On an error it returns the replicas
// built so far, for closeReplicas.
func startReplicas(c config, primary *lexical.Judge, fallback guard.Judge, budget cascade.Budget) ([]*replica, error) {
	var reps []*replica
	for range c.replicas {
		rdb := redis.NewClient(redisstore.ClientOptions(c.redis))
		st, err := redisstore.New(rdb, redisstore.Options{Prefix: c.prefix, TTL: time.Hour})
		if err != nil {
			rdb.Close()
			return reps, err
		}
		cas, err := cascade.New(fallback, cascade.WithStore(st), cascade.WithBudget(budget),
			cascade.WithLimits(cascade.Limits{MaxConcurrent: c.parallel, MaxWaiting: c.parallel, StoreTimeout: c.storeTO}))
		if err != nil {
			rdb.Close()
			return reps, err
		}
		reps = append(reps, &replica{c: cas, st: st, rdb: rdb})
		if reps[len(reps)-1].g, err = guard.New(guard.WithJudge(primary), guard.WithPolicy(primary.Policy()),
			guard.WithEscalator(cas, demo.FallbackPolicy(), guard.FailClosed)); err != nil {
			return reps, err
		}
	}
	return reps, nil
}

// closeReplicas closes every replica's cascade and Redis client.
func closeReplicas(reps []*replica) {
	for _, r := range reps {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := r.c.Close(cctx); err != nil {
			log.Printf("fleet: closing a cascade: %v", err)
		}
		cancel()
		r.rdb.Close()
	}
}

// serveAll runs every replica's requests at once and waits for them.
func serveAll(ctx context.Context, reps []*replica, rows []dataset.Row, c config) error {
	var wg sync.WaitGroup
	errs := make([]error, len(reps))
	for i, r := range reps {
		wg.Go(func() { errs[i] = r.serve(ctx, rows, c, uint64(i)) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// reportReplicas closes each replica's cascade (which waits for the shared
// writes of calls under way), flushes its store and prints its counts.
func reportReplicas(ctx context.Context, w io.Writer, reps []*replica) error {
	for i, r := range reps {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := r.c.Close(cctx) // waits for the shared writes of calls under way
		cancel()
		if err != nil {
			return err
		}
		if err := r.st.Flush(ctx); err != nil {
			return err
		}
		s, h := r.c.Stats(), r.st.Health()
		fmt.Fprintf(w, "replica %d: %d escalations, %d estimates asked, %d from the cache (%d shared), %d fallback calls, %d refused by the budget, %d store operations served locally\n",
			i+1, s.Escalations, s.Requested, s.CacheHits, s.SharedHits, s.Calls, s.RefusedBudget, s.StoreFallbacks)
		if h.Failures > 0 {
			fmt.Fprintf(w, "replica %d: Redis failed %d times, rejoined %d times\n", i+1, h.Failures, h.Rejoins)
		}
	}
	return nil
}

// reportFleet prints the time taken and the fleet line, read from the
// fleet-wide counters in Redis.
func reportFleet(ctx context.Context, w io.Writer, st *redisstore.Store, c config, budget cascade.Budget, elapsed time.Duration) error {
	counts, err := st.Counts(ctx)
	if err != nil {
		return err
	}
	spent, _, err := st.Usage(ctx, budget)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d requests in %v\n", c.replicas*c.requests, elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "fleet: %d replicas, %d escalations, %d fallback calls, %d shared cache hits, budget %d, spent %d\n",
		c.replicas, counts.Escalations, counts.FallbackCalls, counts.SharedHits, c.budget, spent)
	return nil
}

// serve judges requests rows in a shuffled order, parallel at a time.
func (r *replica) serve(ctx context.Context, rows []dataset.Row, c config, id uint64) error {
	rng := rand.New(rand.NewPCG(c.seed, id))
	next := make(chan dataset.Row)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range c.parallel {
		wg.Go(func() {
			for row := range next {
				rctx, cancel := context.WithTimeout(evalkit.ContextWithLabels(ctx, row.Expected), c.timeout)
				_, err := r.g.Evaluate(rctx, row.Sample)
				cancel()
				if err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("fleet: row %s: %w", row.Sample.ID, err)
					}
					mu.Unlock()
				}
			}
		})
	}
	for range c.requests {
		next <- rows[rng.IntN(len(rows))]
	}
	close(next)
	wg.Wait()
	return first
}

func readRows(path string) ([]dataset.Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("fleet: dataset: %w", err)
	}
	defer f.Close()
	var rows []dataset.Row
	dec := newLineReader(f)
	for n := 1; ; n++ {
		line, err := dec()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("fleet: %s: %w", path, err)
		}
		if len(line) == 0 {
			continue
		}
		row, err := dataset.ParseRow(line)
		if err != nil {
			return nil, fmt.Errorf("fleet: %s:%d: %w", path, n, err)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("fleet: %s: no rows", path)
	}
	return rows, nil
}

// newLineReader returns a function giving the lines of r one by one.
func newLineReader(r io.Reader) func() ([]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	return func() ([]byte, error) {
		if sc.Scan() {
			return sc.Bytes(), nil
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
}
