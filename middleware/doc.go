// Package middleware wraps langchaingo chains so that every answer is
// captured, judged by a guard inline or in shadow mode, traced with
// OpenTelemetry, and optionally written to a record sink.
//
// # Capture
//
// [Wrap] returns a chains.Chain that behaves like the one it wraps — the
// same input and output keys, memory, outputs, errors and callbacks — and
// captures the question, the retrieved documents and the answer of every
// call. langchaingo's callbacks cannot carry a context and RetrievalQA fires
// none, so capture wraps the retriever ([WrapRetriever]) and the model
// ([WrapLLM]); the call's context ties what they see to the call. Wrap does
// this itself for chains.RetrievalQA and chains.ConversationalRetrievalQA
// (it instruments a copy); a hand-built chain must use a wrapped retriever.
// For ConversationalRetrievalQA the condensed question is judged and the
// user's original question is recorded beside it. Only the outermost wrapped
// chain of a call captures, so wrapping twice does not capture twice.
//
//	qa := chains.NewRetrievalQAFromLLM(llm, retriever)
//	g, err := ragtriage.New() // the embedded judges; ragtriage.WithFallback adds an LLM fallback
//	if err != nil { … }
//	defer g.Close(context.Background())
//	chain, err := middleware.New(qa, middleware.WithGuard(g, middleware.Gate{
//		Block:  middleware.ReturnError,   // a confident failure: *GateError
//		Review: middleware.ReplaceAnswer, // undecided: a safe fallback text
//	}))
//	if err != nil { … } // Wrap is the same, panicking on an error
//	ctx, out := middleware.WithOutcome(ctx)
//	ctx = middleware.WithReference(ctx, "30 days") // optional, per call
//	answer, err := chains.Run(ctx, chain, "How long do refunds take?")
//	// out.Result is the guard's result; errors.As(err, &gateErr) on a block.
//
// # Inline gating and shadow mode
//
// With [WithGuard] the guard runs after the answer, on the caller's
// goroutine, and a [Gate] says what happens to an answer the guard does not
// allow (its Result.Action): return a [*GateError] carrying the result, replace the
// answer with a fallback text, or only annotate. The outcome is reachable
// through [WithOutcome] and, optionally, an output key ([WithResultKey]).
//
// With [WithShadow] the output is never changed or delayed: a [Shadow]
// evaluates samples on a bounded queue with its own workers, drops (and
// counts) what does not fit, and drains or reports what it lost on
// [Shadow.Shutdown]. Each evaluation has a deadline (ShadowConfig.Timeout,
// 10 s by default): one that runs out is counted ([ShadowStats].TimedOut,
// the ragtriage.shadow.timeouts metric) and marked on its span and record.
// Sampling rate and a filter are in [ShadowConfig].
//
// A judge that ignores cancellation cannot hold a caller or a worker past
// the deadline either: *guard.Guard abandons such a call, counts it and,
// past a bound, stops calling the judge until its calls return (see
// guard.WithAbandonLimit and (*guard.Guard).Abandoned).
//
// # Telemetry
//
// Spans: the chain call (ragtriage.chain), each retrieval ("retrieval
// <source>") and generation ("chat <model>") nested under it, and an
// evaluation span (ragtriage.evaluate) with one gen_ai.evaluation.result
// event per decision (gen_ai.evaluation.name, gen_ai.evaluation.score.value,
// gen_ai.evaluation.score.label = pass/fail/uncertain, the verdict: "pass"
// is healthy for every decision, context_conflict and contradiction
// included) and the diagnosis, route, action, decision ID/version and
// ragtriage.verdicts = "answer" (saying so) as attributes. Metrics: evaluations
// by route, diagnosis, action and mode; the guard's latency; shadow drops;
// sink errors. Every name is in package
// [github.com/ragtriage/ragtriage/otelkeys]. The global providers are used
// unless [WithTracerProvider] / [WithMeterProvider] say otherwise. By default
// no user text (question, contexts, answer, prompts) goes on a span or into a
// record; [WithContent] opts in, through a [Redactor].
//
// A span keeps 128 events by default: with more than about 120 retrieved
// documents, raise the SDK's span limits or some chunk-relevance events are
// dropped (evalkit/otlp.Read reports such records as incomplete).
//
// # Records
//
// [WithSink] writes one record.Record per evaluated answer to a [Sink];
// record.Writer writes JSON Lines that `ragtriage eval -records`
// replays. A sink's failure goes to the error handler ([WithErrorHandler],
// otel.Handle by default) and never changes what the chain returns.
//
// Records are written on a goroutine of the chain's, never on the caller's,
// in inline mode as in shadow mode: each goes on a bounded queue
// ([WithSinkQueue], 1024 records by default) without waiting, so a slow or
// blocked sink delays no call; a record that does not fit is dropped and
// counted ([Chain.SinkStats], the ragtriage.sink.dropped metric).
// [Chain.Shutdown] writes what is queued, within its context, and reports
// what was dropped or lost in a [*ShutdownError]; call it (after
// [Shadow.Shutdown] in shadow mode) before closing the sink's file:
//
//	chain, _ := middleware.New(qa, middleware.WithGuard(g, gate),
//		middleware.WithSink(record.NewWriter(f)))
//	...
//	if err := chain.Shutdown(ctx); err != nil {
//		log.Print(err) // counts of the records dropped and lost
//	}
//
// # Cost
//
// Measured with the package's benchmarks on a shared 2-core Intel Xeon
// (medians of ten runs), with the global no-op OpenTelemetry providers and a
// hand-built chain (one wrapped retriever, one wrapped LLM;
// BenchmarkBareChain: 1.07 µs, 17 allocations):
//
//   - guard off (capture and tracing only): +0.73 µs and +15 allocations
//     per call over the bare chain (BenchmarkWrapOff, 1.8 µs), 9 of them the
//     global no-op tracer's own spans and contexts;
//   - guard inline: the guard's own cost (BenchmarkGuardAlone, 1.6 µs with
//     the scripted test judge on this short sample) plus 2.2 µs and 31
//     allocations (BenchmarkWrapInline, 4.8 µs);
//   - guard inline with a record sink: 8.1 µs (BenchmarkWrapInlineSink):
//     the caller builds the record and queues it; encoding and writing it
//     happen on the chain's writer goroutine;
//   - shadow mode: +1.9 µs on the caller's side (BenchmarkWrapShadow,
//     3.0 µs), including building the sample and handing it to the queue;
//     +34 allocations over the bare chain, the worker's included.
//
// Reproduce with `go test -run '^$' -bench . -benchmem ./middleware`.
//
// # Concurrency
//
// [Chain], [Retriever], [LLM] and [Shadow] are safe for concurrent use (if
// what they wrap is). An [Outcome] is filled by the call it was attached to
// and is read after that call returns. A Shadow owns its workers
// (Shadow.Shutdown ends them); a Chain owns its record writer goroutine,
// which runs only while records are queued (Chain.Shutdown ends the queue).
package middleware
