# Fault tests of the fallback path (cascade + LLM judge over real HTTP to the
# in-process fake OpenAI server), repeated to catch timing flakiness, and
# short fuzz runs of the LLM-output parsers and the cache-key normalization.
# Sourced by .ci/run (bash, set -euo pipefail, cwd = repo root). ~1 min.

go test -race -count=3 -run 'Fault|Injection|Breaker|Deadline|Concurrency|Collapses' ./cascade/ ./guard/llmjudge/
# A saved failing input fails at once; a failure without one (the fuzzing
# engine losing a worker under load) is run once more.
cf_fuzz() {
  local before after
  before=$( (ls "$3/testdata/fuzz/$1" 2>/dev/null || true) | wc -l)
  go test -run='^$' -fuzz="^$1\$" -fuzztime="$2" -fuzzminimizetime=10x "$3" && return 0
  after=$( (ls "$3/testdata/fuzz/$1" 2>/dev/null || true) | wc -l)
  if [ "$after" -gt "$before" ]; then return 1; fi
  echo "fuzz $1: failed without saving a failing input; running it once more"
  go test -run='^$' -fuzz="^$1\$" -fuzztime="$2" -fuzzminimizetime=10x "$3"
}
cf_fuzz FuzzVerifyQuote 100000x ./guard/llmjudge
cf_fuzz FuzzParse 100000x ./guard/llmjudge
cf_fuzz FuzzTextNormalization 200000x ./cascade
# The LLM judge package may import langchaingo; the cascade may not.
if go list -deps ./cascade/... | grep -q 'tmc/langchaingo'; then
  echo "boundary broken: cascade imports langchaingo" >&2; exit 1
fi
