#!/usr/bin/env bash
# What the context-conflict comparison costs and what it buys: main (A) and
# five variants of it, each refitted on the shipped data and timed on fresh
# HotpotQA rows (BenchmarkEvaluateHotpotQARows, text cache off) in
# alternating rounds. None of the variants is shipped; README.md (issue 18)
# and testdata/bench/speed-2026-12-06.txt (section 25) say why.
#
#   A  main
#   B  number conflicts need a sentence similarity of 0.5, not 0.3 (B.patch)
#   C  a context sentence is relevant when the term index finds two
#      distinct content words of the question and the answer in it, not one
#      (main also counts a word that stands there as a function word); the
#      number scan leaves the quantities of other sentences out of its runs,
#      and so out of its pair and work counts; samples over relScanMax
#      keep main's one-word test (C.patch, chunks.go and analysis.go)
#   D  no number-conflict scan: number_conflict is always 0 (D.patch)
#   F  C and D together
#   E  no comparison of the contexts at all: every conflict feature is 0
#      (E.patch)
#
# Usage: testdata/bench/conflict-variants/run.sh [ROUNDS] (default 5 rounds,
# about 5 s a round and variant). Every variant is built from HEAD. It
# prints first how main's conflict features rank the real conflict labels,
# each on its own (featauc.go), then each variant's context_conflict AUROC
# per source (out of fold, as testdata/quality/dev-report.md computes them),
# and last the benchmark's median ns/op with the median of its per-round
# ratios to A.
set -euo pipefail
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
here="$root/testdata/bench/conflict-variants"
rounds=${1:-5}
out=$(mktemp -d)
trap 'for w in "$out"/wt-*; do [ -d "$w" ] && git -C "$root" worktree remove --force "$w"; done; rm -rf "$out"' EXIT

# fail NAME LOG: says which step failed, with its output, and stops.
fail() {
  echo "run.sh: $1 failed:" >&2
  cat "$2" >&2
  exit 1
}

variants="A B C D F E"
for v in $variants; do
  wt="$out/wt-$v"
  git -C "$root" worktree add -q --detach "$wt" HEAD
  case $v in
  A) ;;
  F) git -C "$wt" apply "$here/C.patch" "$here/D.patch" ;;
  *) git -C "$wt" apply "$here/$v.patch" ;;
  esac
  if [ "$v" = A ]; then
    (cd "$wt" && go build -o "$out/ragtriage" ./cmd/ragtriage)
    for d in natural/natural dev/factcheckgpt_evidence; do
      echo "== main's conflict features, each ranked alone (no model, no folds): $d"
      "$out/ragtriage" judge -features "$wt/data/$d.jsonl" >"$out/features.jsonl" 2>"$out/judge.log" ||
        fail "ragtriage judge -features on $d" "$out/judge.log"
      (cd "$wt" && go run testdata/bench/conflict-variants/featauc.go -data "data/$d.jsonl" -features "$out/features.jsonl")
    done
  fi
  (cd "$wt" && go run ./internal/refit -stage fit -profile "$out/$v.profile.json" -report "$out/$v" >"$out/$v.log" 2>&1) ||
    fail "the refit of variant $v" "$out/$v.log"
  (cd "$wt" && go test -c -o "$out/$v.test" ./guard/lexical)
  printf '%s AUROC:' "$v"
  sed -n '/^### context_conflict/,/^### /p' "$out/$v.md" |
    awk -F'|' '/^\| [a-z]/ && $2 !~ /source/ {gsub(/ /, "", $2); gsub(/ /, "", $5); print $2, $5}' |
    sort | awk '{printf " %s %s;", $1, $2}'
  echo
  git -C "$root" worktree remove --force "$wt"
done

cd "$root/guard/lexical"
for r in $(seq "$rounds"); do
  for v in $variants; do
    GOMAXPROCS=1 "$out/$v.test" -test.run '^$' -test.bench 'HotpotQARows$' -test.benchtime 2s >"$out/bench.txt" 2>&1 ||
      fail "the benchmark of variant $v" "$out/bench.txt"
    ns=$(awk '/^BenchmarkEvaluateHotpotQARows/ {print $3}' "$out/bench.txt")
    [ -n "$ns" ] || fail "the benchmark of variant $v (no result line)" "$out/bench.txt"
    echo "$r $v $ns" >>"$out/times.txt"
  done
done
awk '
  { t[$2, $1] = $3; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }; if ($1 > R) R = $1 }
  function median(a, k,   i, j, x) {
    for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    for (i = 1; i <= n; i++) {
      v = order[i]
      for (r = 1; r <= R; r++) { ns[r] = t[v, r]; ratio[r] = t[v, r] / t["A", r] }
      printf "%s HotpotQA row: median %.1f us, per-round ratio to A %.3f (%d rounds)\n", v, median(ns, R) / 1000, median(ratio, R), R
    }
  }' "$out/times.txt"
