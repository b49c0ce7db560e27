package evalkit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/evalkit"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
)

// Cascade mode: a primary judge that is never sure escalates every row to a
// (simulated) fallback behind package cascade. The third row repeats the
// first under another id, so its six estimates come from the cache: it makes
// no fallback call and costs nothing. The report's cascade.runtime block
// counts what the cascade did.
func ExampleBuildMode() {
	unsure := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		var out []guard.Estimate
		for _, d := range req.Decisions {
			if d == guard.ChunkRelevance {
				for _, c := range req.Sample.Contexts {
					out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: 0.5})
				}
				continue
			}
			out = append(out, guard.Estimate{Decision: d, P: 0.5})
		}
		return out, nil
	})
	var policy guard.Policy
	for _, d := range guard.Decisions {
		policy.Set(d, guard.Thresholds{Fail: 0.3, Pass: 0.7})
	}
	// A SIMULATION of a fallback judge: it answers from the row's labels
	// (and from the unsure judge, which leaves them uncertain, for the
	// decisions without one), reporting 200 ms and 300+5 tokens per call.
	sim, err := evalkit.NewSimulatedJudge(evalkit.SimulatedConfig{Latency: 200 * time.Millisecond, InputTokens: 300, OutputTokens: 5, Unlabeled: unsure})
	if err != nil {
		panic(err)
	}
	m, err := evalkit.BuildMode(report.ModeCascade, evalkit.ModeConfig{Primary: unsure, PrimaryPolicy: policy,
		Fallback: sim, FallbackPolicy: policy, Cascade: cascade.Config{Limits: cascade.Limits{MaxConcurrent: 4}}})
	if err != nil {
		panic(err)
	}
	defer m.Close(context.Background())

	row := `{"id":"%s","question":"%s","contexts":[{"id":"c1","text":"Refunds take 5 days."}],"answer":"5 days.","expected":{"generation":{"groundedness":true}}}` + "\n"
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rows.jsonl")
	os.WriteFile(path, []byte(fmt.Sprintf(row, "a", "How long do refunds take?")+fmt.Sprintf(row, "b", "When is my refund paid?")+fmt.Sprintf(row, "a-again", "How long do refunds take?")), 0o644)
	src := dataset.NewFileSource(path)
	defer src.Close()

	cfg := evalkit.Config{Mode: report.ModeCascade, Workers: 1, PrimaryPolicy: &policy, FallbackPolicy: &policy}
	m.Configure(&cfg)
	rep, err := evalkit.Run(context.Background(), src, cfg)
	if err != nil {
		panic(err)
	}
	rt := rep.Cascade.Runtime
	fmt.Printf("escalated %d of %d rows; %d estimates asked, %d from the cache\n", rep.Cascade.Escalated, rep.Cascade.Rows, rt.Requested, rt.CacheHits)
	fmt.Printf("fallback calls %d, fallback leg on %d rows, %d input tokens, breaker %s\n", rt.FallbackCalls, rep.Usage.Fallback.Rows, rep.Usage.Fallback.InputTokens, rt.BreakerState)
	// Output:
	// escalated 3 of 3 rows; 18 estimates asked, 6 from the cache
	// fallback calls 2, fallback leg on 2 rows, 3600 input tokens, breaker closed
}
