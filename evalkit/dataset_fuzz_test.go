package evalkit

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
