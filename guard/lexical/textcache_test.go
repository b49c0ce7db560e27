package lexical

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/ragtriage/ragtriage/guard"
)

// TestTextCacheGivesTheSameEstimates judges every development row of the
// mix three times (a context's first read, its second read that stores it,
// and reads from the cache) with the cache on, and once with it off: every
// estimate, its evidence, citations and feature vector, is the same.
func TestTextCacheGivesTheSameEstimates(t *testing.T) {
	rows := devSamples(t)
	off, err := New(nil, WithTextCache(0))
	if err != nil {
		t.Fatal(err)
	}
	on, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if off.cache != nil || on.cache == nil {
		t.Fatalf("WithTextCache(0) left a cache (%v) or New made none (%v)", off.cache != nil, on.cache == nil)
	}
	ctx := context.Background()
	want := make([][]guard.Estimate, len(rows))
	for i := range rows {
		want[i] = judgeAll(t, off, ctx, &rows[i])
	}
	for pass := 1; pass <= 3; pass++ {
		for i := range rows {
			got := judgeAll(t, on, ctx, &rows[i])
			if !reflect.DeepEqual(got, want[i]) {
				t.Fatalf("pass %d, row %s: the cache changed the estimates:\n got %+v\nwant %+v", pass, rows[i].ID, got, want[i])
			}
		}
	}
	if on.cache.bytes() == 0 {
		t.Fatal("the cache kept nothing after three passes over rows that share contexts")
	}
}

func judgeAll(t *testing.T, j *Judge, ctx context.Context, s *guard.Sample) []guard.Estimate {
	t.Helper()
	ests, err := j.Judge(ctx, guard.Request{Sample: s, Decisions: guard.Decisions})
	if err != nil {
		t.Fatal(err)
	}
	return ests
}

// TestTextCacheConcurrent judges rows that share contexts from several
// goroutines at once (run with -race): each gets the estimates of a judge
// without a cache.
func TestTextCacheConcurrent(t *testing.T) {
	rows := devSamples(t)
	if len(rows) > 400 {
		rows = rows[:400]
	}
	off, _ := New(nil, WithTextCache(0))
	on, _ := New(nil, WithTextCache(1<<20))
	ctx := context.Background()
	want := make([][]guard.Estimate, len(rows))
	for i := range rows {
		want[i] = judgeAll(t, off, ctx, &rows[i])
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 2 * len(rows) {
				i := (k*7 + w*31) % len(rows)
				got, err := on.Judge(ctx, guard.Request{Sample: &rows[i], Decisions: guard.Decisions})
				if err != nil || !reflect.DeepEqual(got, want[i]) {
					select {
					case errs <- fmt.Sprintf("worker %d, row %s: err %v, estimates differ: %v", w, rows[i].ID, err, !reflect.DeepEqual(got, want[i])):
					default:
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestTextCacheBounded reads many distinct contexts, each twice so that
// each is stored, through a small cache: what it holds never passes its
// budget, and recent contexts are still found.
func TestTextCacheBounded(t *testing.T) {
	const budget = 64 << 10
	c := newTextCache(budget)
	var a analysis
	a.tz.vocab = loadedVocab()
	for i := range 2000 {
		text := fmt.Sprintf("Context %d says the refund window is %d days. %s", i, i%90, strings.Repeat("More words here. ", i%7))
		for range 2 {
			d := &doc{}
			if h, ok := c.load(d, text, 0); !ok {
				a.analyze(d, text, 0)
				c.store(h, d)
			}
		}
		if n := c.bytes(); n > budget {
			t.Fatalf("after %d contexts the cache holds %d bytes, over its budget of %d", i+1, n, budget)
		}
	}
	// Texts read once only leave their hashes, within the budget too.
	for i := range 20000 {
		text := fmt.Sprintf("Question %d: how long is the refund window?", i)
		d := &doc{}
		if h, ok := c.load(d, text, -1); !ok {
			a.analyze(d, text, -1)
			c.store(h, d)
		}
		if i%1000 == 0 {
			if n := c.bytes(); n > budget {
				t.Fatalf("after %d texts read once the cache holds %d bytes, over its budget of %d", i+1, n, budget)
			}
		}
	}
	text := fmt.Sprintf("Context %d says the refund window is %d days. %s", 1999, 1999%90, strings.Repeat("More words here. ", 1999%7))
	var d doc
	if _, ok := c.load(&d, text, 3); !ok {
		t.Fatal("the last context stored is not found")
	}
	var fresh doc
	a.analyze(&fresh, text, 3)
	if d.s != fresh.s || d.ctx != 3 || !reflect.DeepEqual(d.toks, fresh.toks) || !reflect.DeepEqual(d.sents, fresh.sents) ||
		!reflect.DeepEqual(d.sentAt, fresh.sentAt) || !reflect.DeepEqual(d.quants, fresh.quants) {
		t.Fatal("a context loaded from the cache differs from a fresh read")
	}
}

// TestTextCacheChecksTheText stores an entry under the hash of another
// text, as a hash collision would: loading that other text misses.
func TestTextCacheChecksTheText(t *testing.T) {
	c := newTextCache(1 << 20)
	var a analysis
	a.tz.vocab = loadedVocab()
	var d doc
	a.analyze(&d, "The fee is 5 dollars.", 0)
	h, _ := c.load(&doc{}, "The fee is 9 dollars.", 0)
	c.store(h, &d) // first sight: noted only
	c.store(h, &d) // second: stored under the other text's hash
	if _, ok := c.load(&doc{}, "The fee is 9 dollars.", 0); ok {
		t.Fatal("a text was loaded from an entry of another text with its hash")
	}
}

func loadedVocab() *vocabulary {
	loadLexicon()
	return defaultVocab
}

// TestTextCacheSharesReadings judges samples in which one text is a
// question in some, a context in others and a reference in one: a text
// reads the same in each role, so one entry serves them all, and the
// estimates are those of a judge without a cache.
func TestTextCacheSharesReadings(t *testing.T) {
	text := "Which refund window applies to opened electronics bought in 2024?"
	other := "Opened electronics can be refunded within 15 days. The refund window for unopened items is 30 days."
	rows := []guard.Sample{
		{ID: "q", Question: text, Answer: "15 days.", Contexts: []guard.Context{{ID: "c1", Text: other}}},
		{ID: "c", Question: "How long is the window?", Answer: "30 days.", Contexts: []guard.Context{{ID: "c1", Text: text}, {ID: "c2", Text: other}}},
		{ID: "r", Question: other, Answer: "15 days.", Reference: &text, Contexts: []guard.Context{{ID: "c1", Text: text}}},
	}
	// At the level of the reading: a text kept as a context is found as a
	// question, and reads as a question read afresh does.
	c := newTextCache(1 << 20)
	var a analysis
	a.tz.vocab = loadedVocab()
	for range 2 {
		var d doc
		a.analyzeCachedWith(c, &d, text, 0)
	}
	var fresh, got doc
	a.analyze(&fresh, text, -1)
	if _, ok := c.load(&got, text, -1); !ok {
		t.Fatal("a text kept as a context is not found as a question")
	}
	if got.ctx != -1 || !reflect.DeepEqual(got.toks, fresh.toks) || !reflect.DeepEqual(got.quants, fresh.quants) {
		t.Fatal("a text kept as a context does not read as a question read afresh")
	}

	off, _ := New(nil, WithTextCache(0))
	on, _ := New(nil)
	ctx := context.Background()
	for pass := range 4 {
		for i := range rows {
			want := judgeAll(t, off, ctx, &rows[i])
			if got := judgeAll(t, on, ctx, &rows[i]); !reflect.DeepEqual(got, want) {
				t.Fatalf("pass %d, row %s: the cache changed the estimates:\n got %+v\nwant %+v", pass, rows[i].ID, got, want)
			}
		}
	}
}

// analyzeCachedWith is analyzeCached through cache c.
func (a *analysis) analyzeCachedWith(c *textCache, d *doc, s string, ctx int) {
	old := a.cache
	a.cache = c
	a.analyzeCached(d, s, ctx)
	a.cache = old
}

// TestTextCacheCopiesItsTexts stores a text cut out of a larger string, as
// judge cuts every text out of its input line: the entry holds a copy, so
// that the line is not kept alive beyond the budget that counts the text.
func TestTextCacheCopiesItsTexts(t *testing.T) {
	line := `{"question":"…","contexts":[{"text":"The fee is 5 dollars for each late payment."}],"answer":"…"}`
	text := line[strings.Index(line, "The fee") : strings.Index(line, `."}`)+1]
	c := newTextCache(1 << 20)
	var a analysis
	a.tz.vocab = loadedVocab()
	for range 2 {
		var d doc
		a.analyzeCachedWith(c, &d, text, 0)
	}
	h, _ := c.load(&doc{}, text, 0)
	sh := &c.shards[h%textShards]
	e := sh.cur[h]
	if e == nil {
		t.Fatal("the text was not kept after two reads")
	}
	if unsafe.StringData(e.text) == unsafe.StringData(text) {
		t.Fatal("the entry shares the sample's string, and so keeps its whole line alive")
	}
}
