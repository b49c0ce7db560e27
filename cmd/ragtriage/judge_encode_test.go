package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// encodingJSONLine is how judge wrote an output line before it had its own
// encoder: encoding/json with HTML escaping off.
func encodingJSONLine(t *testing.T, lineNo int, id string, res *guard.Result, msg string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	value := func(v any) {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteString(`{"line":` + strconv.Itoa(lineNo))
	if id != "" {
		buf.WriteString(`,"id":`)
		value(id)
	}
	if res != nil {
		buf.WriteString(`,"result":`)
		value(res)
	} else {
		buf.WriteString(`,"error":`)
		value(msg)
	}
	buf.WriteString("}\n")
	return buf.Bytes()
}

// TestOutputLinesMatchEncodingJSON checks, on real rows judged by the
// embedded judges, that judge's output lines are byte for byte those
// encoding/json writes.
func TestOutputLinesMatchEncodingJSON(t *testing.T) {
	g, err := lexical.NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../guard/lexical/testdata/golden-rows.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := append(sampleLines(t), bytes.Split(bytes.TrimSpace(data), []byte("\n"))...)
	ids := []string{"", "plain-id", `quote " and \ backslash`, "<html> & co", "tab\tnl\n", "é ☕ \u2028"}
	o := newOutBuf()
	for i, line := range lines {
		row, err := dataset.ParseRow(line)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		res, err := g.Evaluate(context.Background(), row.Sample)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, id := range append(ids, row.Sample.ID) {
			o.Reset()
			if err := o.resultLine(i+1, id, &res); err != nil {
				t.Fatal(err)
			}
			if want := encodingJSONLine(t, i+1, id, &res, ""); !bytes.Equal(o.Bytes(), want) {
				t.Fatalf("line %d id %q: result line\n%s\nwant\n%s", i+1, id, o.Bytes(), want)
			}
		}
	}
	for _, id := range ids {
		for _, msg := range []string{"contexts[1].id: duplicate of contexts[0].id \"c<1>\"", "plain", "\x01 é"} {
			o.Reset()
			o.errorLine(3, id, msg)
			if want := encodingJSONLine(t, 3, id, nil, msg); !bytes.Equal(o.Bytes(), want) {
				t.Errorf("error line id %q msg %q:\n%s\nwant\n%s", id, msg, o.Bytes(), want)
			}
		}
	}
}
