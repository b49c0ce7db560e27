package lexical

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// costRows reads up to n rows of every development file and the golden
// inputs, as samples.
func costRows(t *testing.T, n int) []guard.Sample {
	t.Helper()
	names, _ := filepath.Glob("../../data/dev/*.jsonl")
	names = append(names, "../../data/natural/natural.jsonl", "testdata/golden-rows.jsonl", "testdata/golden-planted.jsonl")
	var out []guard.Sample
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for k := 0; k < n && sc.Scan(); k++ {
			s, err := ParseSampleLine(sc.Bytes())
			if err != nil {
				continue
			}
			s.ID = ""
			out = append(out, s)
		}
		f.Close()
	}
	if len(out) == 0 {
		t.Skip("no development rows")
	}
	return out
}

// withThresholds runs fn with the cut-overs between the pairwise scans and
// the indexes set to lo (every index used) or hi (none used).
func withThresholds(all bool, fn func()) {
	saved := [...]int{quantIndexMin, postingsMin, groupedMin, groupedRunMin, memoMin, docSetMin, relScanMax}
	defer func() {
		quantIndexMin, postingsMin, groupedMin, groupedRunMin, memoMin, docSetMin, relScanMax = saved[0], saved[1], saved[2], saved[3], saved[4], saved[5], saved[6]
	}()
	if all {
		quantIndexMin, postingsMin, groupedMin, groupedRunMin, memoMin, docSetMin, relScanMax = 0, 0, -1, 0, 1, 0, -1
	} else {
		quantIndexMin, postingsMin, groupedMin, groupedRunMin, memoMin, docSetMin, relScanMax = math.MaxInt, math.MaxInt, math.MaxInt, math.MaxInt, math.MaxInt, math.MaxInt, math.MaxInt
	}
	fn()
}

// TestIndexesMatchScans computes the features and the estimates of
// development rows once with every index forced on and once with every
// pairwise scan, and requires the same bits: the indexes are a speed-up,
// never another answer.
func TestIndexesMatchScans(t *testing.T) {
	rows := costRows(t, 150)
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(s *guard.Sample) (Features, []guard.Estimate) {
		est, err := j.Judge(context.Background(), guard.Request{Sample: s, Decisions: guard.Decisions})
		if err != nil {
			t.Fatal(err)
		}
		return j.Features(s), est
	}
	for i := range rows {
		s := &rows[i]
		var fa, fb Features
		var ea, eb []guard.Estimate
		withThresholds(true, func() { fa, ea = run(s) })
		withThresholds(false, func() { fb, eb = run(s) })
		if !reflect.DeepEqual(fa, fb) {
			t.Errorf("row %d (%.40q): features with indexes %v; with scans %v", i, s.Question, fa, fb)
		}
		if !reflect.DeepEqual(ea, eb) {
			t.Errorf("row %d (%.40q): estimates with indexes differ from those with scans", i, s.Question)
		}
	}
}

// workOf is the work the meter counted for one call of Judge on s.
func workOf(t *testing.T, j *Judge, s guard.Sample, ds []guard.Decision) int64 {
	t.Helper()
	var last int64
	testCheckHook = func(m *meter) { last = m.work }
	defer func() { testCheckHook = nil }()
	if _, err := j.Judge(context.Background(), guard.Request{Sample: &s, Decisions: ds}); err != nil {
		t.Fatal(err)
	}
	return last
}

// TestWorkGrowsLinearly counts the work (occurrences visited, pairs
// compared) of issue 18's probes at n and 3n: it must grow about 3×, not 9×
// as a pairwise scan does. Counting work, not time, cannot be fooled by a
// busy machine. Chunk relevance is left out: its features are refitted
// apart (and will not read the answer).
func TestWorkGrowsLinearly(t *testing.T) {
	j, err := New(nil, WithLimits(Limits{MaxWork: -1, MaxBytes: -1}))
	if err != nil {
		t.Fatal(err)
	}
	var ds []guard.Decision
	for _, d := range guard.Decisions {
		if d != guard.ChunkRelevance {
			ds = append(ds, d)
		}
	}
	probes := []struct {
		name string
		make func(n int) guard.Sample
		n    int
	}{
		{"numbers", func(n int) guard.Sample {
			return guard.Sample{Question: "What number is it?", Answer: strings.Repeat("7 ", n),
				Contexts: []guard.Context{{ID: "c1", Text: strings.Repeat("8 ", n)}}}
		}, 1000},
		{"numbers near words", func(n int) guard.Sample {
			return guard.Sample{Question: "How long is the refund window?", Answer: strings.Repeat("Refunds take 7 days. ", n),
				Contexts: []guard.Context{{ID: "c1", Text: strings.Repeat("Refunds take 8 days. ", n)}, {ID: "c2", Text: strings.Repeat("Refunds take 9 days. ", n)}}}
		}, 300},
		{"sentences", func(n int) guard.Sample {
			text := strings.Repeat("Refund ok. ", n)
			return guard.Sample{Question: "Is the refund ok?", Answer: text, Contexts: []guard.Context{{ID: "c1", Text: text}}}
		}, 1000},
	}
	for _, p := range probes {
		w1 := workOf(t, j, p.make(p.n), ds)
		w3 := workOf(t, j, p.make(3*p.n), ds)
		if w1 <= 0 || float64(w3) > 4*float64(w1) {
			t.Errorf("%s: work %d at n=%d, %d at n=%d (%.1f×); want at most 4× for 3× the text", p.name, w1, p.n, w3, 3*p.n, float64(w3)/float64(w1))
		}
		t.Logf("%s: work %d at n=%d, %d at 3n", p.name, w1, p.n, w3)
	}
}

// TestDeadlineStopsWork cancels the request's context from inside the work
// loop, at the judge's first look at it: the judge must stop there (no
// further look, a fraction of the work) and give every decision as an
// abstention with cause deadline.
func TestDeadlineStopsWork(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := guard.Sample{Question: "What number is it?", Answer: strings.Repeat("7 ", 3000),
		Contexts: []guard.Context{{ID: "c1", Text: strings.Repeat("8 ", 3000)}, {ID: "c2", Text: strings.Repeat("9 ", 3000)}}}
	total := workOf(t, j, s, guard.Decisions)
	ctx := &expiring{Context: context.Background()}
	var checks []int64
	testCheckHook = func(m *meter) {
		checks = append(checks, m.work)
		ctx.expired = true
	}
	defer func() { testCheckHook = nil }()
	out, err := j.Judge(ctx, guard.Request{Sample: &s, Decisions: guard.Decisions})
	if err != nil {
		t.Fatalf("Judge = %v; want abstentions", err)
	}
	if len(checks) != 1 || checks[0] >= total/2 {
		t.Errorf("looks at the context at work %v of %d; want one, early", checks, total)
	}
	if len(out) != len(guard.Decisions)-1+len(s.Contexts) {
		t.Errorf("%d estimates; want one per decision and context", len(out))
	}
	for _, e := range out {
		if !e.Abstained || e.Cause != guard.CauseDeadline || !strings.Contains(e.Reason, "deadline") {
			t.Errorf("%v: %+v; want an abstention with cause deadline", e.Decision, e)
		}
	}
}

// expiring is a context whose deadline passes when expired is set.
type expiring struct {
	context.Context
	expired bool
}

func (c *expiring) Err() error {
	if c.expired {
		return context.DeadlineExceeded
	}
	return nil
}

func (c *expiring) Deadline() (time.Time, bool) { return time.Time{}, false }

// TestDefaultLimitsNeverTrigger reads every bundled row with the default
// limits: none may pass them, and the largest work stays far below
// MaxWork.
func TestDefaultLimitsNeverTrigger(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every development row")
	}
	rows := costRows(t, math.MaxInt)
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var most int64
	var bytes int
	for i := range rows {
		s := rows[i]
		w := workOf(t, j, s, guard.Decisions)
		most = max(most, w)
		bytes = max(bytes, sampleBytes(&s))
	}
	t.Logf("%d rows: at most %d units of work and %d bytes a row", len(rows), most, bytes)
	if most > DefaultLimits.MaxWork/50 || bytes > DefaultLimits.MaxBytes/10 {
		t.Errorf("a bundled row needs %d units of work or %d bytes: within 50× (work) or 10× (bytes) of DefaultLimits %+v", most, bytes, DefaultLimits)
	}
}

// TestChunkRelevanceWorkGrowsLinearly is the probe a review found
// quadratic: a question that repeats one word many times, against a context
// that does too. Each question token used to walk every occurrence of its
// word (unmetered in the coverage pass, metered in the added-coverage
// pass); now a word is walked once and each token costs the contexts that
// hold it.
func TestChunkRelevanceWorkGrowsLinearly(t *testing.T) {
	j, err := New(nil, WithLimits(Limits{MaxWork: -1, MaxBytes: -1}))
	if err != nil {
		t.Fatal(err)
	}
	probe := func(n int) guard.Sample {
		text := strings.Repeat("refund ", n)
		return guard.Sample{Question: text, Answer: "Yes.", Contexts: []guard.Context{{ID: "c1", Text: text}, {ID: "c2", Text: "Shipping is free."}}}
	}
	ds := []guard.Decision{guard.ChunkRelevance}
	const n = 20000
	w1, w3 := workOf(t, j, probe(n), ds), workOf(t, j, probe(3*n), ds)
	if w1 <= 0 || float64(w3) > 4*float64(w1) {
		t.Errorf("work %d at n=%d, %d at n=%d (%.1f×); want at most 4× for 3× the text", w1, n, w3, 3*n, float64(w3)/float64(w1))
	}
	t.Logf("work %d at n=%d, %d at 3n", w1, n, w3)
}
