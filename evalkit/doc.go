// Package evalkit reads labeled datasets and recorded traffic, replays them
// through a guard, and reports how well the guard decides.
//
// Its jobs live in subpackages, each with one reason to change:
// [github.com/ragtriage/ragtriage/evalkit/dataset] (dataset rows in: parser,
// checker, line reader, FileSource),
// [github.com/ragtriage/ragtriage/evalkit/otlp] (OpenTelemetry traces in) and
// [github.com/ragtriage/ragtriage/evalkit/report] (the report model, pricing,
// the baseline gate) and [github.com/ragtriage/ragtriage/evalkit/render]
// (Markdown and HTML). evalkit itself runs the replay
// (modes, escalator, simulated fallback, metrics collection) and reads
// record files. It forwards none of the subpackages' names: callers import
// the subpackage that owns a name.
//
// # Inputs
//
// dataset.ParseRow decodes one JSON line of the dataset shape (id, question,
// contexts[{id,text}], answer, referenceAnswer?, expected?), rejecting bad
// lines with an error that names the field; a label that is absent is
// unlabeled, never false. [ParseRecord] decodes one line of a record file
// (a record.Record, written by the middleware's record sink). A
// dataset.Source streams replay items: dataset.FileSource over dataset
// files, [RecordSource] over record files joined by id with the labels of
// [ReadLabels]. A bad line is an item with its file, line and reason, never
// silently dropped. OpenTelemetry traces (OTLP JSON from the Collector's
// file exporter) are read back into records by otlp.Read, and
// [NewTraceSource] replays them.
//
// # Replay
//
// [Run] judges every item with bounded concurrency, collects the results in
// input order, keeps only the numbers the metrics need, and returns a
// report.Report; cancelling its context yields a partial report. [BuildMode]
// builds the guard of a report.Mode — primary, fallback or cascade — with judges
// wrapped by [Metered] so that latency and usage are attributed to the
// primary and fallback legs. In cascade mode the fallback judge runs behind
// package cascade (breaker, cache, call collapsing, concurrency limit,
// budget; configured by a [cascade.Config], whose zero fields are cascade's
// defaults), and the report's cascade.runtime block holds the cascade's
// counts. [SimulatedJudge] is a deterministic,
// label-aware SIMULATION of a fallback judge for offline runs; reports made
// with it say so.
//
//	m, _ := evalkit.BuildMode(report.ModeCascade, evalkit.ModeConfig{Primary: judge, PrimaryPolicy: policy,
//		Fallback: llm, FallbackPolicy: fbPolicy, Cascade: cascade.Config{Limits: cascade.Limits{MaxConcurrent: 4}}})
//	defer m.Close(context.Background())
//	src := dataset.NewFileSource("testdata/eval/fixture.jsonl")
//	defer src.Close()
//	cfg := evalkit.Config{Mode: report.ModeCascade, PrimaryPolicy: &policy, FallbackPolicy: &fbPolicy}
//	m.Configure(&cfg) // the guard, and the cascade whose counts the report shows
//	rep, err := evalkit.Run(ctx, src, cfg)
//	if err != nil && rep == nil { … }
//	_ = rep.WriteJSON("report.json")
//	os.WriteFile("report.md", []byte(render.Markdown(rep)), 0o644)
//
// # Reports
//
// The report (package report) has a JSON schema (report.ReportSchema)
// documented field by field in docs/report-schema.md; package render draws
// it as Markdown and HTML, and report.Compare is
// the baseline gate of `ragtriage eval -baseline`, which fails closed (no
// labelled rows, a metric gone, a row count changed beyond tolerance are
// failures). An accuracy over no labelled row is null, never 0. Costs are
// priced from a versioned report.Pricing snapshot (report.DefaultPricing is
// built in) and are "unavailable", never 0, without a price. The fallback's
// failed calls are counted (report.FallbackErrors, report.CheckFallbackErrors); an LLM
// judge whose HTTP client goes through [MeteredTransport] has its transport
// failures told apart and quoted.
//
// # Cost
//
// BenchmarkReplay100k replays 100,000 rows through the lexical guard at
// about 4,900 rows/s on 2 cores (AMD EPYC), with about 25 MB of heap in use
// at peak and under 2% of the time spent on metrics and the report.
package evalkit
