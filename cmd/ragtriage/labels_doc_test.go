package main

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
)

const labelsDoc = "../../docs/labels.md"

// labelsOf words the labels a row gives, in the form of docs/labels.md's
// "Reads as" lines.
func labelsOf(row *dataset.Row) string {
	e := row.Expected
	var out []string
	if e != nil && e.Diagnosis != nil {
		out = append(out, "diagnosis="+string(*e.Diagnosis))
	}
	for _, c := range row.Sample.Contexts {
		if v, ok := e.ChunkLabel(c.ID); ok {
			out = append(out, "chunk_relevance["+c.ID+"]="+boolText(v))
		}
	}
	for _, d := range guard.Decisions {
		if d == guard.ChunkRelevance {
			continue
		}
		if v, ok := e.Label(d); ok {
			out = append(out, d.String()+"="+boolText(v))
		}
	}
	if len(out) == 0 {
		return "no labels"
	}
	return strings.Join(out, " ")
}

func boolText(v bool) string {
	if v {
		return "true"
	}
	return "false"
}

// TestLabelsDoc parses every JSON example of docs/labels.md with the real
// row parser and checks the "Reads as" line that follows it; it also checks
// that "ragtriage help labels" shows the document's worked example, and that
// the README and the eval and calibrate help point to the document.
func TestLabelsDoc(t *testing.T) {
	b, err := os.ReadFile(labelsDoc)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	var in bool
	var pending *dataset.Row
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case line == "```json":
			in = true
		case in && line == "```":
			in = false
		case in:
			row, err := dataset.ParseRow([]byte(line))
			if err != nil {
				t.Errorf("%s:%d: the example does not parse: %v", labelsDoc, n, err)
				continue
			}
			if len(row.UnknownKeys) > 0 {
				t.Errorf("%s:%d: unknown keys %q", labelsDoc, n, row.UnknownKeys)
			}
			rows = append(rows, line)
			pending = &row
		case strings.HasPrefix(line, "Reads as: "):
			if pending == nil {
				t.Errorf("%s:%d: a Reads as line without an example above it", labelsDoc, n)
				continue
			}
			if got, want := labelsOf(pending), strings.TrimPrefix(line, "Reads as: "); got != want {
				t.Errorf("%s:%d: the example above reads as\n\t%s\nthe document says\n\t%s", labelsDoc, n, got, want)
			}
			pending = nil
		case strings.HasPrefix(line, "#") && pending != nil:
			t.Errorf("%s:%d: the example above has no Reads as line", labelsDoc, n)
			pending = nil
		}
	}
	if len(rows) < 3 {
		t.Fatalf("%d JSON examples in %s; want the worked example and the others", len(rows), labelsDoc)
	}
	// Every decision's meaning is documented.
	for _, d := range guard.Decisions {
		if !bytes.Contains(b, []byte("`"+d.JSONKey())) || !bytes.Contains(b, []byte("`"+d.String()+"`")) {
			t.Errorf("%s does not document %s (%s)", labelsDoc, d, d.JSONKey())
		}
	}
	for _, dg := range guard.Diagnoses {
		if !bytes.Contains(b, []byte("`"+string(dg)+"`")) {
			t.Errorf("%s does not name the diagnosis %s", labelsDoc, dg)
		}
	}
	_, help, _ := runCmd(t, "help", "labels")
	if !slices.ContainsFunc(strings.Split(help, "\n"), func(l string) bool { return l == rows[0] }) {
		t.Errorf("ragtriage help labels does not show the worked example of %s:\n%s", labelsDoc, help)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rollout := readme[max(bytes.Index(readme, []byte("## Rolling out")), 0):]
	if i := bytes.Index(rollout, []byte("2. **Calibrate from the records.**")); i < 0 || !bytes.Contains(rollout[i:min(i+800, len(rollout))], []byte("docs/labels.md")) {
		t.Errorf("README's rolling-out step 2 (calibrate) does not link docs/labels.md")
	}
	for _, cmd := range []string{"eval", "calibrate"} {
		if _, out, _ := runCmd(t, "help", cmd); !strings.Contains(out, "docs/labels.md") {
			t.Errorf("ragtriage help %s does not point to docs/labels.md", cmd)
		}
	}
}
