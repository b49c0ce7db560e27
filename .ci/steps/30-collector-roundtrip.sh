# Collector round trip: a real OpenTelemetry Collector (OTLP/HTTP receiver +
# file exporter) built in-process from its Go modules receives the spans of a
# wrapped chain, and evalkit/otlp.ReadOTLP rebuilds the records from its file.
# It lives in a nested module (examples/collector) so the library's
# dependency graph stays small; `go test ./...` at the root does not enter it.
# Cost: ~300 modules to download and build on a cold machine (a few minutes
# on 2 cores); run without -race to stay well inside the CI budget (the
# middleware's own concurrency is tested under -race by the main test run).
(
  cd examples/collector
  go mod download
  go vet ./...
  go test -count=1 ./...
)
