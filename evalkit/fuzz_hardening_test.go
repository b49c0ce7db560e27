package evalkit

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/record"
)

// Fuzz targets for the readers of outside input that had none: the record
// line parser, the pricing loader, the label reader and the line sources
// (dataset and record files). Each checks that bad input is an error that
// says where and why, never a panic or a silent drop, and that counts add
// up. Their seed corpora are in testdata/fuzz/<name>/; .ci/steps runs each
// for a bounded time.

func FuzzParseRecord(f *testing.F) {
	for _, s := range []string{
		`{"recordVersion":"ragtriage.record/2","id":"r1","time":"2026-01-02T03:04:05Z","result":{"diagnosis":"PASS","route":"auto","action":"allow","decisionId":"d","evidence":[]}}`,
		`{"recordVersion":"ragtriage.record/2","id":"r2","time":"2026-01-02T03:04:05Z","sample":{"question":"q","contexts":[{"id":"c1","text":"t"}],"answer":"a","referenceAnswer":"r"},"result":{"retrieval":{"chunkRelevance":{"c1":0.9},"sufficiency":null},"verdicts":{"retrieval":{"chunkRelevance":{"c1":"pass"}}},"diagnosis":"JUDGE_UNCERTAIN","route":"fallback","fallback":{"judge":"j","decisions":["groundedness"],"settled":0,"unsettled":1,"rule":"fail_closed","latencyMs":3}},"legs":[{"name":"primary","latencyMs":1},{"name":"fallback","latencyMs":2,"usage":{"inputTokens":10}}]}`,
		`{"recordVersion":"ragtriage.record/3","id":"r3"}`,
		`{"recordVersion":"ragtriage.record/1","id":"r8","result":{}}`,
		`{"recordVersion":"ragtriage.record/2","id":""}`,
		`{"recordVersion":"ragtriage.record/2","id":"r4","sample":{"contexts":[{"id":"c"},{"id":"c"}]}}`,
		`{"recordVersion":"ragtriage.record/2","id":"r5","result":{"action":"explode"}}`,
		"{\"recordVersion\":\"ragtriage.record/2\",\"id\":\"r\xff\"}",
		`{"recordVersion":"ragtriage.record/2","id":"r6","time":"yesterday"}`,
		`{"id":"r7"`,
		``,
		`null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := parseRecord(line)
		if err != nil {
			var re *recordError
			if !errors.As(err, &re) || !errors.Is(err, errBadRecord) {
				t.Fatalf("error %v (%T) is not a *recordError", err, err)
			}
			if re.Reason == "" || !utf8.ValidString(err.Error()) {
				t.Fatalf("error %q: empty or not valid UTF-8", err.Error())
			}
			return
		}
		if rec.Version != record.Version || rec.ID == "" {
			t.Fatalf("accepted a record without version or id: %+v", rec)
		}
		// What was accepted writes back and reads again the same way.
		b, err := record.Marshal(&rec)
		if err != nil {
			t.Fatalf("accepted record does not encode: %v", err)
		}
		again, err := parseRecord(bytes.TrimSuffix(b, []byte("\n")))
		if err != nil {
			t.Fatalf("re-encoded record %s does not parse: %v", b, err)
		}
		b2, err := record.Marshal(&again)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("record does not round-trip:\n%s\n%s (%v)", b, b2, err)
		}
	})
}

func writeFuzzFile(t *testing.T, data []byte) string {
	p := filepath.Join(t.TempDir(), "input.jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func FuzzLoadPricing(f *testing.F) {
	for _, s := range []string{
		`{"version":"2025-06-01","currency":"USD","unit":"per 1M tokens","source":"s","models":{"gpt-4o-mini":{"input":0.15,"output":0.6},"local":{"input":0,"output":0}}}`,
		`{"version":"v","currency":"USD","unit":"per 1K tokens","models":{}}`,
		`{"version":"v","currency":"USD","unit":"per 1M tokens","models":{"m":{"input":-1,"output":0}}}`,
		`{"version":"v","currency":"USD","unit":"per 1M tokens","models":{"m":{"input":1e999,"output":0}}}`,
		`{"version":"v","currency":"USD","unit":"per 1M tokens","models":{"m":{"input":NaN,"output":0}}}`,
		`{"version":"v","currency":"USD","unit":"per 1M tokens","models":{"m":{"input":1e308,"output":1e308}}}`,
		`{"version":"","currency":"USD","unit":"per 1M tokens"}`,
		`{"version":"v","currency":"USD","unit":"per 1M tokens","models":{"m":{"input":"1"}}}`,
		`{"version":"v",`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := writeFuzzFile(t, data)
		p, err := report.LoadPricing(path)
		if err != nil {
			if !utf8.ValidString(err.Error()) || err.Error() == "" {
				t.Fatalf("error %q: empty or not valid UTF-8", err.Error())
			}
			return
		}
		if p.Version == "" || p.Currency == "" || p.Unit != "per 1M tokens" {
			t.Fatalf("accepted pricing without version, currency or unit: %+v", p)
		}
		for m := range p.Models {
			// A billion tokens each way must cost a finite, non-negative
			// amount: a report with an infinite cost cannot be written.
			c, ok := p.Cost(m, 1e9, 1e9)
			if !ok || math.IsNaN(c) || math.IsInf(c, 0) || c < 0 {
				t.Fatalf("model %q: cost of 1e9+1e9 tokens = %v, %v; prices %+v", m, c, ok, p.Models[m])
			}
		}
	})
}

func FuzzReadLabels(f *testing.F) {
	for _, s := range []string{
		"{\"id\":\"a\",\"question\":\"q\",\"contexts\":[],\"answer\":\"x\",\"expected\":{\"diagnosis\":\"PASS\"}}\n{\"id\":\"a\",\"question\":\"q\",\"contexts\":[],\"answer\":\"y\"}\n",
		"{\"question\":\"q\",\"contexts\":[],\"answer\":\"x\"}\n\n   \n{bad\n",
		"\xef\xbb\xbf{\"id\":\"b\",\"question\":\"q\",\"contexts\":[{\"id\":\"c\",\"text\":\"t\"}],\"answer\":\"x\"}",
		"{\"id\":\"t\",\"question\":\"q\",\"contexts\":[],\"answer\":\"trunc",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ReadLabels(writeFuzzFile(t, data))
		if err != nil {
			t.Fatalf("ReadLabels: %v (bad content must be a problem, not an error)", err)
		}
		if len(l.Files) != 1 {
			t.Fatalf("%d files described", len(l.Files))
		}
		fi := l.Files[0]
		// Every non-blank line is a labeled id or a problem.
		if l.count()+len(l.Problems) != fi.Lines || fi.Bad > fi.Lines {
			t.Fatalf("%d labeled + %d problems != %d lines (bad %d)", l.count(), len(l.Problems), fi.Lines, fi.Bad)
		}
		for _, p := range l.Problems {
			if p.Pos.Line < 1 || p.Reason == "" || !utf8.ValidString(p.Reason) {
				t.Fatalf("problem without a line or a reason: %+v", p)
			}
		}
	})
}

// FuzzSources reads the same bytes as a dataset file and as a record file:
// every non-blank line becomes exactly one item, good or bad, and the file
// description counts them.
func FuzzSources(f *testing.F) {
	for _, s := range []string{
		"{\"id\":\"a\",\"question\":\"q\",\"contexts\":[],\"answer\":\"x\"}\n{\"id\":\"a\",\"question\":\"q\",\"contexts\":[],\"answer\":\"x\"}\n",
		"{\"recordVersion\":\"ragtriage.record/2\",\"id\":\"r1\",\"result\":{}}\n{\"recordVersion\":\"ragtriage.record/2\",\"id\":\"r1\",\"result\":{}}\n{\"recordVersion\":\"ragtriage.record/2\",\"id\":\"r2\",\"res",
		"\n\r\n\t\n",
		"\x00\x00\n{}",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := writeFuzzFile(t, data)
		for _, src := range []dataset.Source{dataset.NewFileSource(path), NewRecordSource(nil, path)} {
			items, bad, lastLine := 0, 0, 0
			for {
				it, err := src.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%T.Next: %v", src, err)
				}
				items++
				if it.Pos.Line <= lastLine {
					t.Fatalf("%T: line %d after line %d", src, it.Pos.Line, lastLine)
				}
				lastLine = it.Pos.Line
				switch {
				case it.Err != nil:
					bad++
					if !utf8.ValidString(it.Err.Error()) || it.Err.Error() == "" {
						t.Fatalf("%T: line %d: error %q", src, it.Pos.Line, it.Err.Error())
					}
				case it.Sample == nil && it.Record == nil:
					t.Fatalf("%T: line %d: an item with neither a sample, a record nor an error", src, it.Pos.Line)
				}
			}
			in := src.Inputs()
			if len(in) != 1 || in[0].Lines != items || in[0].Bad != bad {
				t.Fatalf("%T: %d items (%d bad); inputs %+v", src, items, bad, in)
			}
			if err := src.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
