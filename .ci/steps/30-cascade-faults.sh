# Fault tests of the fallback path (cascade + LLM judge over real HTTP to the
# in-process fake OpenAI server), repeated to catch timing flakiness, and
# short fuzz runs of the LLM-output parsers and the cache-key normalization.
# Sourced by .ci/run (bash, set -euo pipefail, cwd = repo root). ~1 min.

go test -race -count=3 -run 'Fault|Injection|Breaker|Deadline|Concurrency|Collapses' ./cascade/ ./guard/llmjudge/
cf_fuzz() { go test -run='^$' -fuzz="^$1\$" -fuzztime="$2" -fuzzminimizetime=10x "$3"; }
cf_fuzz FuzzVerifyQuote 10s ./guard/llmjudge
cf_fuzz FuzzParse 10s ./guard/llmjudge
cf_fuzz FuzzTextNormalization 10s ./cascade
# The LLM judge package may import langchaingo; the cascade may not.
if go list -deps ./cascade/... | grep -q 'tmc/langchaingo'; then
  echo "boundary broken: cascade imports langchaingo" >&2; exit 1
fi
