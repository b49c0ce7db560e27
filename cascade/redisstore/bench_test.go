package redisstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/cascade/redisstore"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/internal/redistest"
)

// latencies collects one duration per operation and reports the p50 and
// p99 in microseconds.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	s := slices.Clone(l)
	slices.Sort(s)
	q := func(p float64) float64 { return float64(s[min(len(s)-1, int(p*float64(len(s))))].Nanoseconds()) / 1e3 }
	b.ReportMetric(q(0.50), "p50-µs")
	b.ReportMetric(q(0.99), "p99-µs")
}

// BenchmarkSharedCacheHit is an escalation of one decision answered by the
// shared cache over loopback (the in-process cache is off, so every
// escalation asks Redis): key hashing, one MGET, decoding.
func BenchmarkSharedCacheHit(b *testing.B) {
	srv := redistest.Start(b)
	r := newReplica(b, srv, &judge{P: 0.9}, redisstore.Options{}, slow, cascade.WithCacheSize(-1))
	ctx := context.Background()
	esc := escalation(sample(1), guard.Groundedness)
	if _, err := r.c.Escalate(ctx, esc); err != nil {
		b.Fatal(err)
	}
	waitEntriesB(b, r.st, 1)
	lat := make(latencies, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t := time.Now()
		out, err := r.c.Escalate(ctx, esc)
		lat = append(lat, time.Since(t))
		if err != nil || out[0].Abstained {
			b.Fatal(err, out)
		}
	}
	b.StopTimer()
	if st := r.c.Stats(); st.SharedHits < uint64(len(lat)) || st.StoreFallbacks != 0 {
		b.Fatalf("%d shared hits for %d escalations, %d store fallbacks", st.SharedHits, len(lat), st.StoreFallbacks)
	}
	lat.report(b)
}

// BenchmarkBudgetCheck is one Reserve on the shared budget over loopback:
// the atomic check-and-count script.
func BenchmarkBudgetCheck(b *testing.B) {
	srv := redistest.Start(b)
	st := newStore(b, srv, redisstore.Options{})
	bud := cascade.Budget{Window: time.Minute, MaxCalls: 1 << 40}
	ctx := context.Background()
	lat := make(latencies, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t := time.Now()
		_, err := st.Reserve(ctx, bud)
		lat = append(lat, time.Since(t))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	lat.report(b)
}

// BenchmarkEscalation measures the cost Redis adds to an escalation that
// reaches the fallback (a new sample each time: a cache miss, a budget
// check, the call, the shared write), against the in-process store in the
// same run: the difference between "redis" and "memory". The fallback
// answers at once; the shared write runs after the caller has its answer,
// so it is in ns/op (the loop waits for nothing) but not in the p50/p99 a
// caller sees.
func BenchmarkEscalation(b *testing.B) {
	srv := redistest.Start(b)
	bud := cascade.Budget{Window: time.Minute, MaxCalls: 1 << 40}
	fb := &judge{P: 0.9}
	samples := make([]*guard.Sample, 4096)
	for i := range samples {
		samples[i] = sample(i)
	}
	run := func(b *testing.B, c *cascade.Cascade) {
		ctx := context.Background()
		lat := make(latencies, 0, b.N)
		i := 0
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			s := *samples[i%len(samples)]
			s.Answer = s.Answer + " " + time.Now().String() // never cached
			i++
			t := time.Now()
			out, err := c.Escalate(ctx, escalation(&s))
			lat = append(lat, time.Since(t))
			if err != nil || out[0].Abstained {
				b.Fatal(err, out)
			}
		}
		b.StopTimer()
		lat.report(b)
	}
	b.Run("memory", func(b *testing.B) {
		c, err := cascade.New(fb, slow, cascade.WithBudget(bud))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(context.Background())
		run(b, c)
	})
	b.Run("redis", func(b *testing.B) {
		r := newReplica(b, srv, fb, redisstore.Options{}, slow, cascade.WithBudget(bud))
		run(b, r.c)
		if st := r.c.Stats(); st.StoreFallbacks != 0 {
			b.Fatalf("%d store fallbacks", st.StoreFallbacks)
		}
	})
}

func waitEntriesB(b *testing.B, st *redisstore.Store, n int64) {
	end := time.Now().Add(10 * time.Second)
	for {
		if got, err := st.Entries(context.Background()); err == nil && got >= n {
			return
		}
		if time.Now().After(end) {
			b.Fatal("the shared cache did not fill")
		}
		time.Sleep(time.Millisecond)
	}
}
