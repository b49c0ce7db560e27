package dataset

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/guard"
)

// FuzzParseRowValid feeds the dataset reader arbitrary lines: it returns a row
// that passes the guard's validation or a *RowError, and never panics.
func FuzzParseRowValid(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","question":"q?","contexts":[{"id":"c1","text":"t"}],"answer":"a","referenceAnswer":"r","expected":{"diagnosis":"PASS","generation":{"groundedness":true}}}`,
		`{"question":"q","answer":"a","contexts":[]}`,
		`{"question":"q","answer":"a","contexts":[{"id":"c","text":"x"},{"id":"c","text":"y"}]}`,
		`{"question":1,"answer":"a","contexts":[]}`,
		`{"question":"q","answer":"a","contexts":{}}`,
		`{"question":"\ud800","answer":"a","contexts":null}`,
		"{\"question\":\"\xff\",\"answer\":\"a\"}",
		`[1,2,3]`,
		`{"question":"q","answer":"a","contexts":[{"id":"c"}],"expected":{"retrieval":{"chunkRelevance":{"c":"yes"}}}}`,
		``,
		`{`,
		`  "id": 1,`,
		`{"question":"q","answer":"a","contexts":[{"id":1,"text":"t"}],"expected":{"retrieval":{"chunkRelevance":{"1":true}}}}`,
		`{"question":"q","answer":"a","contexts":[{"id":"c","text":"t","score":"x","metadata":[]}]}`,
		`{"question":"q","answer":"a","contexts":[],"expected":{"generation":{"correctness":{}}}}`,
		`{"question":"q","answer":"a","contexts":[],"reference_answer":"r"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		row, err := ParseRow(line)
		if err != nil {
			var re *RowError
			if !errors.As(err, &re) || !errors.Is(err, ErrBadRow) {
				t.Fatalf("error %v (%T) is not a *RowError", err, err)
			}
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("error message is not valid UTF-8: %q", err.Error())
			}
			for _, w := range internalNames {
				if strings.Contains(err.Error(), w) {
					t.Fatalf("error %q names %q, an internal type", err.Error(), w)
				}
			}
			return
		}
		// Size limits are the guard's to apply; everything else ParseRow
		// accepts must be a valid sample.
		// ParseRow leaves NUL bytes (valid JSON, "\u0000") to the guard,
		// which rejects them with the field named.
		err = row.Sample.Validate(guard.Limits{MaxContexts: 1 << 30, MaxTextBytes: 1 << 30, MaxTotalBytes: 1 << 30})
		var se *guard.SampleError
		if errors.As(err, &se) && strings.HasPrefix(se.Reason, "NUL byte") {
			return
		}
		if err != nil {
			t.Fatalf("ParseRow accepted a row the guard rejects: %v", err)
		}
	})
}

// FuzzDatasetChecker feeds the checker arbitrary files, line by line: every
// line gives a row or a *RowError, a line the checker lets through parses as
// ParseRow parses it, and the warnings point at lines that were seen.
func FuzzDatasetChecker(f *testing.F) {
	for _, s := range []string{
		"[\n  {\n    \"id\": \"a\",\n    \"question\": \"q\",\n    \"contexts\": [],\n    \"answer\": \"x\"\n  }\n]\n",
		"{\"question\":\"q\",\"contexts\":[],\"answer\":\"x\",\"reference\":\"r\"}\n{\n\"id\":1\n}\n{\"question\":\"q\",\"contexts\":[],\"answer\":\"x\"}\n",
		"{\n{\"question\":\"q\",\"contexts\":[],\"answer\":\"x\"}\n",
		"[{\"a\":\"]\\\"[\"}]\n[\n\"[[[\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Checker
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if strings.TrimSpace(l) == "" {
				continue
			}
			pos := Position{File: "f", Line: i + 1}
			shapeErr := c.Line(pos, []byte(l))
			if shapeErr != nil {
				if !errors.Is(shapeErr, ErrBadRow) {
					t.Fatalf("line %d: Line error %v is not a *RowError", i+1, shapeErr)
				}
				continue
			}
			row, err := ParseRow([]byte(l))
			if err != nil {
				if !errors.Is(err, ErrBadRow) {
					t.Fatalf("line %d: ParseRow error %v is not a *RowError", i+1, err)
				}
				continue
			}
			c.Row(pos, &row)
		}
		for _, w := range c.Warnings() {
			if w.Pos.Line < 1 || w.Pos.Line > len(lines) || w.Message == "" || !utf8.ValidString(w.Message) {
				t.Fatalf("warning %q", w)
			}
		}
	})
}
