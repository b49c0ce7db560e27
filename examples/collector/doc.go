// Package collector proves that traces leave a fleet and come back: its test
// builds a minimal OpenTelemetry Collector in-process from the Collector's
// own Go modules (the OTLP receiver and the contrib file exporter), sends it
// the spans of a wrapped RetrievalQA chain over OTLP/HTTP on 127.0.0.1, and
// rebuilds the evaluation records from the file with evalkit/otlp.Read.
//
// It is a module of its own so that the Collector's ~300 modules stay out of
// the library's dependency graph. Run it with
//
//	cd examples/collector && go test ./...
package collector
