package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/internal/redistest"
)

// TestRun runs the example against a real redis-server and checks its last
// line: the fleet made no more fallback calls than one budget, shared
// answers between replicas, and spent what it called.
func TestRun(t *testing.T) {
	srv := redistest.Start(t)
	var buf bytes.Buffer
	cfg := config{redis: srv.Addr, dataset: "../../testdata/cli/halueval-sample.jsonl", replicas: 3, requests: 60, parallel: 4,
		budget: 15, window: time.Hour, latency: 5 * time.Millisecond, timeout: 30 * time.Second, seed: 1,
		storeTO: 10 * time.Second} // only a dead Redis may make a replica fall back here, not a busy machine
	if err := run(context.Background(), &buf, cfg); err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSpace(buf.String())
	lines := strings.Split(out, "\n")
	last := lines[len(lines)-1]
	var r, e, c, h, b, s int
	if n, err := fmt.Sscanf(last, "fleet: %d replicas, %d escalations, %d fallback calls, %d shared cache hits, budget %d, spent %d", &r, &e, &c, &h, &b, &s); err != nil || n != 6 {
		t.Fatalf("last line %q does not read as the fleet line: %v\n%s", last, err, out)
	}
	if r != 3 || b != 15 || e == 0 || c == 0 || c > b || s != c || h == 0 {
		t.Errorf("fleet line %q: want 3 replicas, some escalations, 0 < calls <= budget 15, spent = calls, some shared hits\n%s", last, out)
	}
	if !strings.Contains(out, "SIMULATION") {
		t.Errorf("the output does not name the fallback as a simulation:\n%s", out)
	}
	if strings.Contains(out, "served locally") && !strings.Contains(out, "0 store operations served locally") {
		t.Logf("some store operations fell back with Redis up (a loaded machine):\n%s", out)
	}
	t.Log(out)
}

func TestRunNeedsRedis(t *testing.T) {
	if err := run(context.Background(), &bytes.Buffer{}, config{}); err == nil || !strings.Contains(err.Error(), "-redis") {
		t.Errorf("run without -redis: %v; want an error naming -redis", err)
	}
}
