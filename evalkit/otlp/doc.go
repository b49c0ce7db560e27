// Package otlp reads OpenTelemetry traces, as the Collector's file exporter
// writes them (OTLP JSON, one batch of spans per line), back into records
// (package record): one record per evaluation span the middleware wrote,
// with the sample when content capture was on, the result, the legs and
// their usage.
//
// It is the "traces in" job of the offline kit: evalkit's trace source
// (evalkit.NewTraceSource, ragtriage eval -traces) reads files through
// [Read] and replays or re-scores the records, and the Collector
// round-trip in examples/collector checks it against a real Collector.
// Bad lines and spans (a probability outside 0 to 1, a negative latency,
// a diagnosis that is not a name: see record.Check) are counted in [Stats] with where
// and why, never dropped silently; a span read twice (a batch exported
// again) counts once, and the repeat is listed. [Reader] remembers spans
// across files. Nothing here judges or reports.
//
//	st, err := otlp.Read(f, func(line int, rec record.Record) error {
//		fmt.Println(line, rec.ID, rec.Result.Diagnosis)
//		return nil
//	})
package otlp
