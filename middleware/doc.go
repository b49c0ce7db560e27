// Package middleware wraps langchaingo chains so that a guard judges every
// answer, inline or in shadow mode. It traces each call with OpenTelemetry
// and can write a record of each evaluation to a sink.
//
// # Capture
//
// [Wrap] returns a chains.Chain that behaves like the one it wraps. It has
// the same input and output keys, memory, outputs, errors and callbacks.
// It also captures the question, the retrieved documents and the answer of
// every call. langchaingo's callbacks cannot carry a context, and
// RetrievalQA fires none. So capture wraps the retriever ([WrapRetriever])
// and the model ([WrapLLM]), and the call's context ties what they see to
// the call. Wrap does this itself for chains.RetrievalQA and
// chains.ConversationalRetrievalQA, on a copy of the chain. A hand-built
// chain must use a wrapped retriever. For ConversationalRetrievalQA the
// guard judges the condensed question, and the user's original question is
// recorded beside it. Only the outermost wrapped chain of a call captures,
// so wrapping twice does not capture twice.
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
// goroutine. The guard's Result.Action says whether to allow, block or
// review the answer. A [Gate] says what happens to an answer that is not
// allowed. It can return a [*GateError] carrying the result, replace the
// answer with a fallback text, or only annotate. The outcome is reachable
// through [WithOutcome], and optionally through an output key
// ([WithResultKey]).
//
// With [WithShadow] the output is never changed or delayed. A [Shadow]
// evaluates samples on a bounded queue with its own workers. It drops (and
// counts) what does not fit, and drains or reports what it lost on
// [Shadow.Shutdown]. Each evaluation has a deadline (ShadowConfig.Timeout,
// 10 s by default). One that runs out is counted ([ShadowStats].TimedOut,
// the ragtriage.shadow.timeouts metric) and marked on its span and record.
// Sampling rate and a filter are in [ShadowConfig].
//
// A judge that ignores cancellation cannot hold a caller or a worker past
// the deadline either. *guard.Guard abandons such a call and counts it.
// Past a bound, it stops calling the judge until its calls return (see
// guard.WithAbandonLimit and (*guard.Guard).Abandoned).
//
// # Telemetry
//
// Each call makes a chain span (ragtriage.chain). Each retrieval
// ("retrieval <source>") and generation ("chat <model>") nests under it,
// and so does an evaluation span (ragtriage.evaluate). The evaluation span
// has one gen_ai.evaluation.result event per decision. The event carries
// gen_ai.evaluation.name, gen_ai.evaluation.score.value and
// gen_ai.evaluation.score.label, the verdict: pass, fail or uncertain.
// "pass" is healthy for every decision, context_conflict and contradiction
// included. The span's attributes hold the diagnosis, route, action and
// decision ID and version, and ragtriage.verdicts = "answer" says so.
//
// The span, each event and each record also say why, without text:
// ragtriage.evidence.kinds lists the kinds of the judges' evidence as
// "decision:kind" names, such as "groundedness:number_mismatch" for "90
// days" against a context's "30 days" (Record.EvidenceKinds in records).
// They are written with or without content capture. The names come from
// fixed lists, and a custom judge's kind outside them reads "other".
//
// Metrics count evaluations by route, diagnosis, action and mode. They
// also record the guard's latency, shadow drops and sink errors. Every name
// is in package [github.com/ragtriage/ragtriage/otelkeys]. The global
// providers are used unless [WithTracerProvider] or [WithMeterProvider] say
// otherwise.
//
// By default no user text (question, contexts, answer, prompts) goes on a
// span or into a record. [WithContent] opts in, through a [Redactor]. The
// Redactor sees each text of a call once per field. The spans and the
// record then share the redacted copy.
//
// A span keeps 128 events by default. With more than about 120 retrieved
// documents, raise the SDK's span limits, or some chunk-relevance events
// are dropped. evalkit/otlp.Read reports such records as incomplete.
//
// # Records
//
// [WithSink] writes one record.Record per evaluated answer to a [Sink].
// record.Writer writes JSON Lines that `ragtriage eval -records` replays.
// A sink's failure goes to the error handler ([WithErrorHandler],
// otel.Handle by default). It never changes what the chain returns.
//
// Records are written on a goroutine of the chain's, never on the caller's,
// in inline and in shadow mode. Each goes on a bounded queue
// ([WithSinkQueue], 1024 records by default) without waiting, so a slow or
// blocked sink delays no call. A record that does not fit is dropped and
// counted ([Chain.SinkStats], the ragtriage.sink.dropped metric).
// [Chain.Shutdown] writes what is queued, within its context. It reports
// what was dropped or lost in a [*ShutdownError]. Call it before closing
// the sink's file, and after [Shadow.Shutdown] in shadow mode:
//
//	chain, _ := middleware.New(qa, middleware.WithGuard(g, gate),
//		middleware.WithSink(record.NewWriter(f)))
//	...
//	if err := chain.Shutdown(ctx); err != nil {
//		log.Print(err) // counts of the records dropped and lost
//	}
//
// # Teacher draws
//
// An evaluator that draws answers for the teacher (guard.WithDraws) and can
// teach them (a [Teacher], as *guard.Guard is) has each drawn answer taught
// off the request path. In shadow mode the shadow worker teaches it right
// after evaluating it. Inline, the chain teaches it on a background
// goroutine of its own after the call has returned the answer, gated as it
// would be without draws. At most [TeachConfig].MaxInFlight (4) run at once
// ([WithTeach]); a draw beyond that is refused, recorded and counted, never
// retried. The record of a drawn answer is written once it was taught, with
// the teacher's verdicts (Result.Teacher) beside the result's own. Records
// carry the embedded judges' feature vectors (Result.Features, numbers
// only) with or without content capture: docs/telemetry.md says what they
// can reveal. [Chain.TeachStats] and the ragtriage.teacher.draws metric
// count the draws; Chain.Shutdown waits for the teaching under way before
// it ends the record queue.
//
// # Cost
//
// These figures come from the package's benchmarks on a shared 2-core Intel
// Xeon (medians of ten runs). They use the global no-op OpenTelemetry
// providers and a hand-built chain with one wrapped retriever and one
// wrapped LLM. The bare chain takes 1.07 µs and 17 allocations
// (BenchmarkBareChain).
//
//   - Guard off (capture and tracing only): +0.73 µs and +15 allocations
//     per call over the bare chain (BenchmarkWrapOff, 1.8 µs). 9 of them
//     are the global no-op tracer's own spans and contexts.
//   - Guard inline: the guard's own cost (BenchmarkGuardAlone, 1.6 µs with
//     the scripted test judge on this short sample) plus 2.2 µs and 31
//     allocations (BenchmarkWrapInline, 4.8 µs).
//   - Guard inline with a record sink: 8.1 µs (BenchmarkWrapInlineSink).
//     The caller builds the record and queues it. The chain's writer
//     goroutine encodes and writes it.
//   - Shadow mode: +1.9 µs on the caller's side (BenchmarkWrapShadow,
//     3.0 µs), for building the sample and handing it to the queue. It
//     makes 34 allocations more than the bare chain, the worker's included.
//
// The evidence kinds cost nothing when a result has no evidence. With
// evidence, on a recording span, they add about 0.25 µs of CPU and 4
// allocations (BenchmarkEvidenceKinds: two kinds, the span attribute and
// one event's).
//
// BenchmarkWrapInlineContent adds content capture and recording spans to
// the sink benchmark. Reproduce with
// `go test -run '^$' -bench . -benchmem ./middleware`.
//
// # Concurrency
//
// [Chain], [Retriever], [LLM] and [Shadow] are safe for concurrent use, if
// what they wrap is. An [Outcome] is filled by the call it was attached to.
// Read it after that call returns. A Shadow owns its workers, and
// Shadow.Shutdown ends them. A Chain owns its record writer goroutine. It
// runs only while records are queued, and Chain.Shutdown ends the queue. A
// Chain also owns its background Teach goroutines (inline mode), at most
// TeachConfig.MaxInFlight; Chain.Shutdown ends them.
package middleware
