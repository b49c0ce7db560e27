package cascade_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// benchSample is a sample of about n bytes of context text (two contexts),
// like the dev data: ~600 B for a HaluEval row, ~5 KB for a HotpotQA row
// with its ten paragraphs.
func benchSample(n int) *guard.Sample {
	para := "The Oberoi Group is a hotel company with its head office in Delhi, founded in 1934, operating thirty hotels in seven countries. "
	text := strings.Repeat(para, max(1, n/2/len(para)))
	return &guard.Sample{
		Question: "The Oberoi family is part of a hotel company that has a head office in what city?",
		Contexts: []guard.Context{{ID: "c1", Text: text}, {ID: "c2", Text: text + " Extra."}},
		Answer:   "Delhi",
	}
}

// BenchmarkCacheHit measures an escalation of one decision answered from
// the cache: hashing the sample and an LRU lookup.
func BenchmarkCacheHit(b *testing.B) {
	for _, size := range []int{600, 5000} {
		b.Run(fmt.Sprintf("context=%dB", size), func(b *testing.B) {
			c, err := cascade.New(guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
				return []guard.Estimate{{Decision: req.Decisions[0], P: 0.9}}, nil
			}))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close(context.Background())
			esc := escalation(benchSample(size), guard.Groundedness)
			ctx := context.Background()
			if out, _ := c.Escalate(ctx, esc); out[0].Abstained {
				b.Fatal(out[0].Reason)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out, _ := c.Escalate(ctx, esc)
				if out[0].Abstained {
					b.Fatal("miss")
				}
			}
			b.StopTimer()
			if st := c.Stats(); st.CacheHits < uint64(b.N) {
				b.Fatalf("hits %d < %d", st.CacheHits, b.N)
			}
		})
	}
}

// BenchmarkOverhead measures what the cascade adds around a fallback that
// answers at once (cache off, so every escalation reaches the fallback
// through the breaker, the collapsing, the slot and the budget): the
// difference between the two sub-benchmarks.
func BenchmarkOverhead(b *testing.B) {
	// A stateless fallback that answers at once.
	f := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{{Decision: req.Decisions[0], P: 0.9}}, nil
	})
	esc := escalation(benchSample(600), guard.Groundedness)
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := f.Judge(ctx, esc.Request); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cascade", func(b *testing.B) {
		c, err := cascade.New(f, cascade.WithCacheSize(-1), cascade.WithBudget(cascade.Budget{Window: time.Minute, MaxCalls: 1 << 30}))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(context.Background())
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if out, _ := c.Escalate(ctx, esc); out[0].Abstained {
				b.Fatal(out[0].Reason)
			}
		}
	})
}

// BenchmarkConcurrent64 runs 64 concurrent callers in a closed loop against
// a fallback that takes 50 ms, with at most 8 calls at once (so at most 160
// calls/s). "degrade": nobody waits; a caller beyond the limit abstains at
// once and, in this closed loop, comes straight back, so most operations
// are fast refusals. "wait": up to 64 callers wait for a slot until their
// 1 s deadline, so every escalation is settled. Reported: the share of
// escalations the fallback settled, the most calls ever under way (must not
// exceed 8), and fallback calls per second.
func BenchmarkConcurrent64(b *testing.B) {
	for _, mode := range []struct {
		name    string
		waiting int
	}{{"degrade", 0}, {"wait", 64}} {
		b.Run(mode.name, func(b *testing.B) {
			var inflight, peak atomic.Int64
			f := &fake{P: 0.9, Hook: func(ctx context.Context, _ guard.Request) error {
				n := inflight.Add(1)
				defer inflight.Add(-1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				t := time.NewTimer(50 * time.Millisecond)
				defer t.Stop()
				select {
				case <-t.C:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}}
			c, err := cascade.New(f, cascade.WithCacheSize(-1),
				cascade.WithLimits(cascade.Limits{MaxConcurrent: 8, MaxWaiting: mode.waiting}))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close(context.Background())
			var seq, settled atomic.Int64
			b.SetParallelism(max(1, 64/runtimeProcs())) // 64 goroutines
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					s := benchSample(300)
					s.Question = fmt.Sprint("question ", seq.Add(1)) // unique: no cache, no collapsing
					ctx, cancel := context.WithTimeout(context.Background(), time.Second)
					out, _ := c.Escalate(ctx, escalation(s, guard.Groundedness))
					cancel()
					if !out[0].Abstained {
						settled.Add(1)
					}
				}
			})
			el := time.Since(start)
			b.StopTimer()
			if p := peak.Load(); p > 8 {
				b.Fatalf("%d calls under way; the limit is 8", p)
			}
			b.ReportMetric(float64(settled.Load())/float64(b.N), "settled/op")
			b.ReportMetric(float64(peak.Load()), "peak-inflight")
			b.ReportMetric(float64(f.Calls())/el.Seconds(), "calls/s")
			checkStatsB(b, c.Stats())
		})
	}
}

func checkStatsB(b *testing.B, s cascade.Stats) {
	if s.Requested != s.CacheHits+s.Settled+s.Abstained {
		b.Fatalf("counts do not add up: %+v", s)
	}
}
