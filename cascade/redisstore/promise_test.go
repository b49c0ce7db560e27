package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/ragtriage/ragtriage/cascade/redisstore"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
	"github.com/ragtriage/ragtriage/internal/redistest"
)

// The promise monitors of a fleet share their tallies in a real Redis:
// every store of a subtest has its own client (a replica) and a prefix of
// its own.
func TestPromiseStoreRedis(t *testing.T) {
	srv := redistest.Start(t)
	var n atomic.Int64
	guardtest.TestPromiseStore(t, func(t *testing.T, replicas int) []guard.PromiseStore {
		opt := redisstore.Options{Prefix: fmt.Sprintf("promise-test-%d:", n.Add(1))}
		fleet := make([]guard.PromiseStore, replicas)
		for i := range fleet {
			fleet[i] = newStore(t, srv, opt)
		}
		return fleet
	})
}

// A promise hash holding what this version does not write is refused with
// the field named, not read as zero.
func TestPromiseStoreRedisCorrupt(t *testing.T) {
	srv := redistest.Start(t)
	st := newStore(t, srv, redisstore.Options{Prefix: "corrupt:"})
	other := newStore(t, srv, redisstore.Options{Prefix: "corrupt:"})
	ctx := context.Background()
	gp := guard.Side{Decision: guard.Groundedness, Verdict: guard.Pass}
	if _, err := st.AddTallies(ctx, "p", []guard.Tally{{Side: gp, Audits: 2, Disagreements: 1}}); err != nil {
		t.Fatal(err)
	}
	got, err := other.AddTallies(ctx, "p", nil)
	if err != nil || len(got.Sides) != 1 || got.Sides[0] != (guard.Tally{Side: gp, Audits: 2, Disagreements: 1}) {
		t.Fatalf("another replica reads %v, %v", got, err)
	}
	if _, err := st.AddTallies(ctx, "p", []guard.Tally{{Side: guard.Side{Decision: guard.Groundedness}, Audits: 1}}); err == nil {
		t.Error("AddTallies of an invalid side accepted")
	}
	rdb := redis.NewClient(redisstore.ClientOptions(srv.Addr))
	defer rdb.Close()
	if err := rdb.HSet(ctx, "corrupt:promise:p", "groundedness/pass:n", "many").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddTallies(ctx, "p", nil); err == nil || !strings.Contains(err.Error(), `"groundedness/pass:n" = "many"`) {
		t.Errorf("reading a corrupt hash: %v; want an error naming the field", err)
	}
}
