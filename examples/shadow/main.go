// Command shadow runs a wrapped RetrievalQA chain in shadow mode: answers go
// back unchanged and at once, while the embedded judges evaluate them on a
// background queue and the spans (chain, retrieval, generation, evaluation)
// are exported.
//
//	go run ./examples/shadow                      # spans to stdout
//	go run ./examples/shadow -otlp 127.0.0.1:4318 # spans over OTLP/HTTP
//
// It runs offline: the retriever is an in-memory keyword search and the LLM
// is scripted (a simulation that returns canned answers). User text stays
// out of the spans unless -content is given.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/tmc/langchaingo/chains"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ragtriage/ragtriage/evalkit"
	"github.com/ragtriage/ragtriage/examples/internal/demo"
	"github.com/ragtriage/ragtriage/middleware"
)

func main() {
	otlp := flag.String("otlp", "", "send spans over OTLP/HTTP to this host:port instead of printing them")
	content := flag.Bool("content", false, "put question, contexts and answer on the evaluation span")
	records := flag.String("records", "", "also write one JSON record per evaluation to this file")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *otlp, *content, *records); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer, otlp string, content bool, records string) error {
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

	g, err := demo.NewGuard()
	if err != nil {
		return err
	}
	sh, err := middleware.NewShadow(g, middleware.ShadowConfig{Workers: 2, QueueSize: 64})
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
		opts = append(opts, middleware.WithSink(evalkit.NewRecordWriter(f)))
	}
	chain := middleware.Wrap(chains.NewRetrievalQAFromLLM(&demo.ScriptedLLM{}, demo.Retriever{K: 1}), opts...)

	for _, c := range demo.Cases {
		start := time.Now()
		answer, err := chains.Run(ctx, chain, c.Question)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "Q: %s\nA: %s (returned in %v, judged in the background)\n", c.Question, answer, time.Since(start).Round(time.Microsecond))
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := sh.Shutdown(sctx); err != nil {
		return err
	}
	st := sh.Stats()
	fmt.Fprintf(os.Stderr, "shadow: %d offered, %d evaluated, %d dropped, %d lost\n", st.Offered, st.Evaluated, st.Dropped, st.Lost)
	return tp.ForceFlush(ctx)
}
