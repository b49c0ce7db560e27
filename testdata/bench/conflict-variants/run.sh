#!/usr/bin/env bash
# What the context-conflict comparison costs and what it buys: main (A) and
# five variants of it, each refitted on the shipped data and timed on fresh
# HotpotQA rows (BenchmarkEvaluateHotpotQARows, text cache off) in
# alternating rounds. None of the variants is shipped; README.md (issue 18)
# and testdata/bench/speed-2026-12-06.txt (section 25) say why.
#
#   A  main
#   B  number conflicts need a sentence similarity of 0.5, not 0.3 (B.patch)
#   C  a context sentence is relevant when it holds two distinct content
#      words of the question and the answer, not one (C.patch)
#   D  no number-conflict scan: number_conflict is always 0 (D.patch)
#   F  C and D together
#   E  no comparison of the contexts at all: every conflict feature is 0
#      (E.patch)
#
# Usage, from anywhere in the repository: testdata/bench/conflict-variants/run.sh [ROUNDS]
# (default 5 rounds, about 5 s a round and variant). It prints first how
# main's conflict features rank the real conflict labels each on its own
# (featauc.go), then each variant's context_conflict AUROC per source (out
# of fold, as testdata/quality/dev-report.md computes them), and last the
# benchmark's median ns/op with the median of its per-round ratios to A.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
here="$root/testdata/bench/conflict-variants"
rounds=${1:-5}
out=$(mktemp -d)
trap 'for w in "$out"/wt-*; do [ -d "$w" ] && git -C "$root" worktree remove --force "$w"; done; rm -rf "$out"' EXIT

# main's conflict features on the real conflict labels, each feature on its
# own (no model, no folds).
go build -o "$out/ragtriage" "$root/cmd/ragtriage"
for d in natural/natural dev/factcheckgpt_evidence; do
  echo "== main's features, $d"
  "$out/ragtriage" judge -features "$root/data/$d.jsonl" >"$out/features.jsonl"
  (cd "$root" && go run testdata/bench/conflict-variants/featauc.go -data "data/$d.jsonl" -features "$out/features.jsonl")
done

variants="A B C D F E"
for v in $variants; do
  wt="$out/wt-$v"
  git -C "$root" worktree add -q --detach "$wt" HEAD
  case $v in
  A) ;;
  F) git -C "$wt" apply "$here/C.patch" "$here/D.patch" ;;
  *) git -C "$wt" apply "$here/$v.patch" ;;
  esac
  (cd "$wt" && go run ./internal/refit -stage fit -profile "$out/$v.json" -report "$out/$v" >"$out/$v.log" 2>&1 &&
    go test -c -o "$out/$v.test" ./guard/lexical)
  printf '%s AUROC:' "$v"
  sed -n '/^### context_conflict/,/^### /p' "$out/$v.md" | awk -F'|' '/^\| [a-z]/ && $2 !~ /source/ {gsub(/ /, "", $2); gsub(/ /, "", $5); printf " %s %s;", $2, $5}'
  echo
  git -C "$root" worktree remove --force "$wt"
done

cd "$root/guard/lexical"
for r in $(seq "$rounds"); do
  for v in $variants; do
    ns=$(GOMAXPROCS=1 "$out/$v.test" -test.run '^$' -test.bench 'HotpotQARows$' -test.benchtime 2s |
      awk '/^BenchmarkEvaluateHotpotQARows/ {print $3}')
    echo "$r $v $ns"
  done
done | awk '
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
  }'
