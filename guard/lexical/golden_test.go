package lexical_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// The golden test pins what the judges compute — every raw feature, every
// probability, and the evidence and citations — on a few hundred real
// development rows (testdata/golden-rows.jsonl, see testdata/README.md) and
// on hand-written planted cases (testdata/golden-planted.jsonl). It guards
// performance work: a change that alters any of these must be deliberate
// (refit the profile, then rerun with -update-golden and say why).
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden-features.jsonl from the current judges")

const goldenFile = "testdata/golden-features.jsonl"

// goldenTol is the tolerance on features and probabilities: float rounding
// only (summation order), nothing a refit would notice.
const goldenTol = 1e-9

type goldenRow struct {
	ID        string      `json:"id"`
	Features  [][]float64 `json:"features"` // per decision in guard.Decisions order; chunk vectors flattened in context order
	Estimates []goldenEst `json:"estimates"`
}

type goldenEst struct {
	Decision  string   `json:"d"`
	ContextID string   `json:"ctx,omitempty"`
	P         float64  `json:"p"`
	Abstained bool     `json:"abst,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	Evidence  []string `json:"ev,omitempty"`
	Citations []string `json:"cit,omitempty"`
}

func readGoldenInputs(t *testing.T) []guard.Sample {
	t.Helper()
	var out []guard.Sample
	for _, name := range []string{"testdata/golden-rows.jsonl", "testdata/golden-planted.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			s, err := lexical.ParseSampleLine(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", name, i+1, err)
			}
			out = append(out, s)
		}
	}
	return out
}

func quoteSig(q guard.Quote) string {
	if q.IsZero() {
		return "-"
	}
	return fmt.Sprintf("%s:%s:%d:%d", q.Source, q.ContextID, q.Start, q.End)
}

func computeGolden(t *testing.T, j *lexical.Judge, s *guard.Sample) goldenRow {
	t.Helper()
	f := j.Features(s)
	var chunks []float64
	for _, c := range f.ChunkRelevance {
		chunks = append(chunks, c...)
	}
	row := goldenRow{ID: s.ID, Features: [][]float64{chunks, f.ContextSufficiency, f.ContextConflict,
		f.AnswerRelevance, f.Groundedness, f.Contradiction, f.Correctness}}
	ests, err := j.Judge(context.Background(), guard.Request{Sample: s, Decisions: guard.Decisions})
	if err != nil {
		t.Fatalf("%s: Judge: %v", s.ID, err)
	}
	for _, e := range ests {
		g := goldenEst{Decision: e.Decision.String(), ContextID: e.ContextID, P: e.P, Abstained: e.Abstained, Reason: e.Reason}
		for _, ev := range e.Evidence {
			g.Evidence = append(g.Evidence, fmt.Sprintf("%s|%s|%s|%s|%s", ev.Decision, ev.Kind, ev.Detail, quoteSig(ev.Quote), quoteSig(ev.Counterpart)))
		}
		for _, c := range e.Citations {
			g.Citations = append(g.Citations, fmt.Sprintf("%s|%.12g|%v|%s", quoteSig(c.Sentence), c.Support, c.Supported, quoteSig(c.Context)))
		}
		row.Estimates = append(row.Estimates, g)
	}
	return row
}

func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= goldenTol*math.Max(1, math.Abs(b))
}

// sigEqual compares two signatures, reading the citation support number
// with the golden tolerance.
func sigEqual(got, want string) bool {
	if got == want {
		return true
	}
	g, w := strings.Split(got, "|"), strings.Split(want, "|")
	if len(g) != 4 || len(w) != 4 || g[0] != w[0] || g[2] != w[2] || g[3] != w[3] {
		return false
	}
	var gv, wv float64
	if _, err := fmt.Sscan(g[1], &gv); err != nil {
		return false
	}
	if _, err := fmt.Sscan(w[1], &wv); err != nil {
		return false
	}
	return near(gv, wv)
}

func TestGoldenFeatures(t *testing.T) {
	j, err := lexical.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	samples := readGoldenInputs(t)
	if len(samples) < 300 {
		t.Fatalf("%d golden samples; want at least 300", len(samples))
	}
	if *updateGolden {
		var buf bytes.Buffer
		for i := range samples {
			b, err := json.Marshal(computeGolden(t, j, &samples[i]))
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(b)
			buf.WriteByte('\n')
		}
		if err := os.WriteFile(goldenFile, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d rows)", goldenFile, len(samples))
		return
	}
	fh, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 16<<20)
	n := 0
	for sc.Scan() {
		var want goldenRow
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatalf("%s:%d: %v", goldenFile, n+1, err)
		}
		if n >= len(samples) {
			t.Fatalf("%s has more rows than the inputs (%d)", goldenFile, len(samples))
		}
		s := &samples[n]
		n++
		if want.ID != s.ID {
			t.Fatalf("%s:%d: id %q; input has %q (rerun with -update-golden after changing the inputs)", goldenFile, n, want.ID, s.ID)
		}
		got := computeGolden(t, j, s)
		compareGolden(t, s.ID, got, want)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(samples) {
		t.Fatalf("%s has %d rows; the inputs %d", goldenFile, n, len(samples))
	}
}

func compareGolden(t *testing.T, id string, got, want goldenRow) {
	t.Helper()
	for d := range want.Features {
		g, w := got.Features[d], want.Features[d]
		if len(g) != len(w) {
			t.Errorf("%s: %v features: %d values; want %d", id, guard.Decisions[d], len(g), len(w))
			continue
		}
		for k := range w {
			if !near(g[k], w[k]) {
				t.Errorf("%s: %v feature %d = %v; want %v", id, guard.Decisions[d], k, g[k], w[k])
			}
		}
	}
	if len(got.Estimates) != len(want.Estimates) {
		t.Errorf("%s: %d estimates; want %d", id, len(got.Estimates), len(want.Estimates))
		return
	}
	for i, w := range want.Estimates {
		g := got.Estimates[i]
		if g.Decision != w.Decision || g.ContextID != w.ContextID || g.Abstained != w.Abstained || g.Reason != w.Reason || !near(g.P, w.P) {
			t.Errorf("%s: estimate %d = %s/%s p=%v abst=%v %q; want %s/%s p=%v abst=%v %q", id, i,
				g.Decision, g.ContextID, g.P, g.Abstained, g.Reason, w.Decision, w.ContextID, w.P, w.Abstained, w.Reason)
		}
		if strings.Join(g.Evidence, "\n") != strings.Join(w.Evidence, "\n") {
			t.Errorf("%s: %s evidence:\n%s\nwant:\n%s", id, w.Decision, strings.Join(g.Evidence, "\n"), strings.Join(w.Evidence, "\n"))
		}
		if len(g.Citations) != len(w.Citations) {
			t.Errorf("%s: %d citations; want %d", id, len(g.Citations), len(w.Citations))
			continue
		}
		for k := range w.Citations {
			if !sigEqual(g.Citations[k], w.Citations[k]) {
				t.Errorf("%s: citation %d = %s; want %s", id, k, g.Citations[k], w.Citations[k])
			}
		}
	}
}
