package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/ragtriage/ragtriage/guard"
)

// The promise monitors' tallies (guard.PromiseStore): one hash per promise
// under Prefix+"promise:"+key, with the fields "epoch" and, per side
// ("groundedness/pass"), "<side>:n" (audits), "<side>:k" (disagreements)
// and "<side>:t" ("n,k" when it tripped). Each operation is one script, so
// a replica's addition and its reading of the fleet's totals are one atomic
// step. The hash lives PromiseTTL after its last change.

var _ guard.PromiseStore = (*Store)(nil)

func (s *Store) promiseKey(key string) string { return s.opt.Prefix + "promise:" + key }

// addTalliesScript: KEYS[1] the hash; ARGV[1] its TTL in ms, then triples
// (side, audits, disagreements). Returns the whole hash.
var addTalliesScript = redis.NewScript(`
for i = 2, #ARGV, 3 do
  redis.call('HINCRBY', KEYS[1], ARGV[i] .. ':n', ARGV[i+1])
  redis.call('HINCRBY', KEYS[1], ARGV[i] .. ':k', ARGV[i+2])
end
if #ARGV > 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return redis.call('HGETALL', KEYS[1])
`)

// markTrippedScript: KEYS[1] the hash; ARGV[1] its TTL in ms, ARGV[2] the
// epoch, then pairs (side, "n,k"). A side's first record stays; nothing is
// written for another epoch.
var markTrippedScript = redis.NewScript(`
local e = redis.call('HGET', KEYS[1], 'epoch')
if not e then e = '0' end
if e ~= ARGV[2] then
  return 0
end
for i = 3, #ARGV, 2 do
  redis.call('HSETNX', KEYS[1], ARGV[i] .. ':t', ARGV[i+1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`)

// resetTalliesScript: KEYS[1] the hash; ARGV[1] its TTL in ms. Increments
// the epoch, deletes every other field, returns the new epoch.
var resetTalliesScript = redis.NewScript(`
local e = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if f ~= 'epoch' then
    redis.call('HDEL', KEYS[1], f)
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return e
`)

// AddTallies implements guard.PromiseStore with one script: the additions
// and the reading of the fleet's tallies are atomic.
func (s *Store) AddTallies(ctx context.Context, key string, add []guard.Tally) (guard.Tallies, error) {
	args := []any{s.opt.PromiseTTL.Milliseconds()}
	for _, a := range add {
		if !a.Valid() || a.Audits < 0 || a.Disagreements < 0 {
			return guard.Tallies{}, fmt.Errorf("redisstore: AddTallies: invalid tally %v", a)
		}
		args = append(args, a.Side.String(), a.Audits, a.Disagreements)
	}
	var flat []string
	err := s.do(ctx, func(ctx context.Context) error {
		var err error
		flat, err = addTalliesScript.Run(ctx, s.rdb, []string{s.promiseKey(key)}, args...).StringSlice()
		return err
	})
	if err != nil {
		return guard.Tallies{}, err
	}
	return parseTallies(key, flat)
}

// MarkTripped implements guard.PromiseStore.
func (s *Store) MarkTripped(ctx context.Context, key string, epoch int64, trips []guard.Tally) error {
	if len(trips) == 0 {
		return nil
	}
	args := []any{s.opt.PromiseTTL.Milliseconds(), strconv.FormatInt(epoch, 10)}
	for _, t := range trips {
		if !t.Valid() {
			return fmt.Errorf("redisstore: MarkTripped: invalid side %v", t.Side)
		}
		args = append(args, t.Side.String(), strconv.FormatInt(t.Audits, 10)+","+strconv.FormatInt(t.Disagreements, 10))
	}
	return s.do(ctx, func(ctx context.Context) error {
		return markTrippedScript.Run(ctx, s.rdb, []string{s.promiseKey(key)}, args...).Err()
	})
}

// ResetTallies implements guard.PromiseStore.
func (s *Store) ResetTallies(ctx context.Context, key string) (int64, error) {
	var e int64
	err := s.do(ctx, func(ctx context.Context) error {
		var err error
		e, err = resetTalliesScript.Run(ctx, s.rdb, []string{s.promiseKey(key)}, s.opt.PromiseTTL.Milliseconds()).Int64()
		return err
	})
	return e, err
}

// parseTallies reads a promise's hash (HGETALL's field, value pairs).
func parseTallies(key string, flat []string) (guard.Tallies, error) {
	var out guard.Tallies
	if len(flat)%2 != 0 {
		return out, fmt.Errorf("redisstore: promise %s: odd reply of %d values", key, len(flat))
	}
	sides := map[guard.Side]*guard.Tally{}
	var order []guard.Side
	tally := func(sd guard.Side) *guard.Tally {
		t, ok := sides[sd]
		if !ok {
			t = &guard.Tally{Side: sd}
			sides[sd] = t
			order = append(order, sd)
		}
		return t
	}
	bad := func(f, v string) error {
		return fmt.Errorf("redisstore: promise %s: field %q = %q is not what this version writes", key, f, v)
	}
	for i := 0; i < len(flat); i += 2 {
		f, v := flat[i], flat[i+1]
		if f == "epoch" {
			e, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return out, bad(f, v)
			}
			out.Epoch = e
			continue
		}
		name, kind, ok := strings.Cut(f, ":")
		sd, err := guard.ParseSide(name)
		if !ok || err != nil {
			return out, bad(f, v)
		}
		switch kind {
		case "n", "k":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return out, bad(f, v)
			}
			if t := tally(sd); kind == "n" {
				t.Audits = n
			} else {
				t.Disagreements = n
			}
		case "t":
			ns, ks, ok := strings.Cut(v, ",")
			n, err1 := strconv.ParseInt(ns, 10, 64)
			k, err2 := strconv.ParseInt(ks, 10, 64)
			if !ok || err1 != nil || err2 != nil {
				return out, bad(f, v)
			}
			out.Tripped = append(out.Tripped, guard.Tally{Side: sd, Audits: n, Disagreements: k})
		default:
			return out, bad(f, v)
		}
	}
	for _, sd := range order {
		out.Sides = append(out.Sides, *sides[sd])
	}
	return out, nil
}
