// Command shadow runs a wrapped RetrievalQA chain in shadow mode: answers go
// back unchanged and at once, while the guard evaluates them on a background
// queue and the spans (chain, retrieval, generation, evaluation) are
// exported. The guard is the quickstart's: the embedded judges under their
// shipped, calibrated policy, escalating what they leave uncertain through
// package cascade to the LLM judge of package guard/llmjudge.
//
//	go run ./examples/shadow                      # spans to stdout
//	go run ./examples/shadow -otlp 127.0.0.1:4318 # spans over OTLP/HTTP
//
// It runs offline: the retriever is an in-memory keyword search, the
// generator is a scripted LLM (a simulation that returns canned answers),
// and the fallback judge's model is a scripted stand-in for an LLM (a
// simulation that replies to the judge's prompts from a small script). User
// text stays out of the spans unless -content is given. What the guard found
// for each answer is printed to stderr once the queue has drained.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/tmc/langchaingo/chains"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ragtriage/ragtriage/examples/internal/demo"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/middleware"
	"github.com/ragtriage/ragtriage/record"
)

func main() {
	otlp := flag.String("otlp", "", "send spans over OTLP/HTTP to this host:port instead of printing them")
	content := flag.Bool("content", false, "put question, contexts and answer on the evaluation span")
	records := flag.String("records", "", "also write one JSON record per evaluation to this file")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, os.Stderr, *otlp, *content, *records); err != nil {
		log.Fatal(err)
	}
}

// run writes the spans to w (unless they go over OTLP) and what happened to
// info.
func run(ctx context.Context, w, info io.Writer, otlp string, content bool, records string) error {
	var exp sdktrace.SpanExporter
	var err error
	if otlp != "" {
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(otlp), otlptracehttp.WithInsecure())
	} else {
		exp, err = stdouttrace.New(stdouttrace.WithWriter(w), stdouttrace.WithPrettyPrint())
	}
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	defer tp.Shutdown(context.Background())

	g, standIn, err := demo.NewGuard()
	if err != nil {
		return err
	}
	defer g.Close(context.Background())
	fmt.Fprintln(info, "generator: scripted LLM (offline simulation: canned answers)")
	fmt.Fprintln(info, demo.StandInLabel)
	// Keep what the guard found, to print it after the queue has drained
	// (the shadow workers call the evaluator concurrently).
	found := &results{}
	sh, err := middleware.NewShadow(found.wrap(g), middleware.ShadowConfig{Workers: 2, QueueSize: 64})
	if err != nil {
		return err
	}
	opts := []middleware.Option{middleware.WithShadow(sh), middleware.WithTracerProvider(tp),
		middleware.WithDataSource("demo-kb"), middleware.WithModel("scripted", "canned")}
	if content {
		opts = append(opts, middleware.WithContent(middleware.NoRedaction))
	}
	if records != "" {
		f, err := os.Create(records)
		if err != nil {
			return err
		}
		defer f.Close()
		opts = append(opts, middleware.WithSink(record.NewWriter(f)))
	}
	chain, err := middleware.New(chains.NewRetrievalQAFromLLM(&demo.ScriptedLLM{}, demo.Retriever{K: 1}), opts...)
	if err != nil {
		return err
	}

	for _, c := range demo.Cases {
		start := time.Now()
		answer, err := chains.Run(ctx, chain, c.Question)
		if err != nil {
			return err
		}
		fmt.Fprintf(info, "Q: %s\nA: %s (returned in %v, judged in the background)\n", c.Question, answer, time.Since(start).Round(time.Microsecond))
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// The shadow first (its evaluations produce records), then the chain's
	// record queue (it writes them), before the file is closed.
	if err := sh.Shutdown(sctx); err != nil {
		return err
	}
	if err := chain.Shutdown(sctx); err != nil {
		return err
	}
	st := sh.Stats()
	fmt.Fprintf(info, "shadow: %d offered, %d evaluated, %d dropped, %d lost, %d timed out\n", st.Offered, st.Evaluated, st.Dropped, st.Lost, st.TimedOut)
	if records != "" {
		rs := chain.SinkStats()
		fmt.Fprintf(info, "records: %d written to %s, %d failed, %d dropped\n", rs.Written, records, rs.Failed, rs.Dropped)
	}
	found.print(info)
	fmt.Fprintf(info, "scripted stand-in: %d model calls from the fallback judge\n", standIn.Calls())
	return tp.ForceFlush(ctx)
}

// results keeps the question and result of every evaluation the shadow
// workers ran. Safe for concurrent use.
type results struct {
	mu  sync.Mutex
	out []string
}

func (r *results) wrap(e middleware.Evaluator) middleware.Evaluator {
	return evaluatorFunc(func(ctx context.Context, s guard.Sample) (guard.Result, error) {
		res, err := e.Evaluate(ctx, s)
		line := fmt.Sprintf("judged: %q → %s, route %s, action %s", s.Question, res.Diagnosis, res.Route, res.Action)
		if fb := res.Fallback; fb != nil {
			line += fmt.Sprintf(" (fallback settled %d, left %d", fb.Settled, fb.Unsettled)
			if fb.Reason != "" {
				line += ": " + fb.Reason
			}
			if fb.Cause != "" {
				line += " [" + string(fb.Cause) + "]" // a stable name: match causes, not reason texts
			}
			line += ")"
		}
		if err != nil {
			line += fmt.Sprintf(" no result: %v", err)
		} else if jerr := res.Err(); jerr != nil {
			line += fmt.Sprintf(" judge failed: %v", jerr)
		}
		r.mu.Lock()
		r.out = append(r.out, line)
		r.mu.Unlock()
		return res, err
	})
}

func (r *results) print(w io.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	lines := slices.Clone(r.out)
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

type evaluatorFunc func(ctx context.Context, s guard.Sample) (guard.Result, error)

func (f evaluatorFunc) Evaluate(ctx context.Context, s guard.Sample) (guard.Result, error) {
	return f(ctx, s)
}
