# Fleet mode on Redis (docs/reliability.md, "Fleet mode"): the fault and
# fleet tests of cascade/redisstore against real redis-server processes
# (started by the tests on free loopback ports), repeated to catch timing
# flakiness; then examples/fleet against a Redis this step starts, checking
# its last line. Sourced by .ci/run (bash, set -euo pipefail, cwd = repo
# root), after .ci/run installed redis-server. Under a minute.

go test -race -count=3 -run 'Fault|Fleet|Shared|Budget|Bounds' ./cascade/redisstore/

fr_dir=$(mktemp -d)
fr_port=""
for p in $(seq 16379 16479); do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then fr_port=$p; break; fi
done
[ -n "$fr_port" ] || { echo "fleet: no free loopback port in 16379-16479" >&2; exit 1; }
redis-server --port "$fr_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$fr_dir" \
  --daemonize yes --pidfile "$fr_dir/redis.pid" --logfile "$fr_dir/redis.log"
for _ in $(seq 100); do redis-cli -p "$fr_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
fr_status=0
# A generous store timeout: on a loaded CI machine a 50 ms cap could send a
# replica to its own budget, and the check below is of the shared one.
go run ./examples/fleet -redis "127.0.0.1:$fr_port" -store-timeout 5s | tee "$fr_dir/out.txt" || fr_status=$?
kill "$(cat "$fr_dir/redis.pid")" 2>/dev/null || true
[ "$fr_status" = 0 ] || { echo "fleet: examples/fleet failed" >&2; exit 1; }
# fleet: R replicas, E escalations, C fallback calls, H shared cache hits, budget B, spent S
fr_last=$(tail -n 1 "$fr_dir/out.txt")
if ! echo "$fr_last" | grep -Eq '^fleet: [0-9]+ replicas, [0-9]+ escalations, [0-9]+ fallback calls, [0-9]+ shared cache hits, budget [0-9]+, spent [0-9]+$'; then
  echo "fleet: unexpected last line: $fr_last" >&2; exit 1
fi
fr_calls=$(echo "$fr_last" | sed -E 's/.* ([0-9]+) fallback calls.*/\1/')
fr_budget=$(echo "$fr_last" | sed -E 's/.*budget ([0-9]+),.*/\1/')
if [ "$fr_calls" -gt "$fr_budget" ]; then
  echo "fleet: $fr_calls fallback calls over a budget of $fr_budget" >&2; exit 1
fi
rm -rf "$fr_dir"
unset fr_dir fr_port fr_status fr_last fr_calls fr_budget
