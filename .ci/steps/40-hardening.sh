# Hardening (docs/reliability.md): the fault, sink, shadow-shutdown, stall, load
# (short form: 2,000 requests per run), soak (short form: 20,000
# evaluations), privacy and prompt-injection tests of internal/hardening, with
# -v so that their figures land in the CI log (.ci/run's go test ran them
# once already, without -v). (The CLI's
# bad-input tests, cmd/ragtriage's TestHardening*, run there.) Then bounded
# fuzz runs of the readers that no other step fuzzes. Each fuzz target starts
# from its committed corpus (testdata/fuzz/<name>). Sourced by .ci/run (bash,
# set -euo pipefail, cwd = repo root). About 1.5 minutes on 2 cores (3 under
# load).

go test -race -count=1 -v ./internal/hardening/ 2>&1 | grep -v '^=== \(RUN\|PAUSE\|CONT\)'

# As in .ci/run: a saved failing input fails at once; a failure without one
# (the fuzzing engine losing a worker under load) is run once more.
hd_fuzz() {
  local before after
  before=$( (ls "$3/testdata/fuzz/$1" 2>/dev/null || true) | wc -l)
  go test -run='^$' -fuzz="^$1\$" -fuzztime="$2" -fuzzminimizetime=10x "$3" && return 0
  after=$( (ls "$3/testdata/fuzz/$1" 2>/dev/null || true) | wc -l)
  if [ "$after" -gt "$before" ]; then return 1; fi
  echo "fuzz $1: failed without saving a failing input; running it once more"
  go test -run='^$' -fuzz="^$1\$" -fuzztime="$2" -fuzzminimizetime=10x "$3"
}
hd_fuzz FuzzParseRecord 100000x ./evalkit
hd_fuzz FuzzLoadPricing 15000x ./evalkit
hd_fuzz FuzzReadLabels 15000x ./evalkit
hd_fuzz FuzzSources 12000x ./evalkit
hd_fuzz FuzzReadOTLP 100000x ./evalkit/otlp
hd_fuzz FuzzParseRow 100000x ./evalkit/dataset
unset -f hd_fuzz
