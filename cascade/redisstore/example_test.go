package redisstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/cascade/redisstore"
	"github.com/ragtriage/ragtriage/guard"
)

// Every replica builds its cascade the same way, on the same Redis and
// prefix; the budget is then the fleet's. (Not run: it needs a Redis.)
func ExampleNew() {
	rdb := redis.NewClient(redisstore.ClientOptions("127.0.0.1:6379"))
	defer rdb.Close()
	st, err := redisstore.New(rdb, redisstore.Options{Prefix: "myapp:", TTL: 24 * time.Hour, MaxEntries: 100_000})
	if err != nil {
		fmt.Println(err)
		return
	}
	var fallback guard.Judge = &judge{P: 0.9} // an LLM judge in production
	c, err := cascade.New(fallback, cascade.WithStore(st),
		cascade.WithBudget(cascade.Budget{Window: time.Minute, MaxCalls: 600}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(context.Background())
	// … guard.New(…, guard.WithEscalator(c, guard.UniformPolicy(0.3, 0.7), guard.FailClosed))
	st.Flush(context.Background())
	fleet, _ := st.Counts(context.Background())
	fmt.Println(fleet.FallbackCalls, c.Stats().StoreFallbacks)
}
