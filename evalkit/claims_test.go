package evalkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/evalkit"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/render"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// The planted row: two sentences, the second supported by no context.
const (
	plantedSupported   = "Customers may request a full refund within 30 days of purchase."
	plantedUnsupported = "Refunds are paid out in gold bars by Captain Nemo."
)

func plantedRow(id string) string {
	return fmt.Sprintf(`{"id":%q,"question":"How long do I have to ask for a refund?","contexts":[{"id":"refunds","text":"Customers may request a full refund within 30 days of purchase."}],"answer":%q,"expected":{"diagnosis":"GENERATOR_UNGROUNDED","generation":{"groundedness":false}}}`,
		id, plantedSupported+" "+plantedUnsupported)
}

// claimsDataset writes the planted row, a row whose answer has no word (no
// claim: judged on the whole answer), the first n fixture rows and extra
// copies of the planted row; it returns the path and the lines.
func claimsDataset(t *testing.T, n, extra int) (string, []string) {
	t.Helper()
	data, err := os.ReadFile("../testdata/eval/fixture.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{plantedRow("planted"),
		`{"id":"wordless","question":"What is the refund window?","contexts":[{"id":"c1","text":"Refunds within 30 days."}],"answer":"?!"}`}
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n"))[:n] {
		lines = append(lines, string(l))
	}
	for i := range extra {
		lines = append(lines, plantedRow(fmt.Sprintf("planted-%d", i)))
	}
	path := filepath.Join(t.TempDir(), "claims.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, lines
}

// fallbackPolicy reads the (simulated) fallback's estimates the way
// `ragtriage eval` does by default (-fallback-policy 0.3,0.7): the embedded
// judges' calibrated policy is theirs, not the fallback's.
func fallbackPolicy() guard.Policy {
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.3, Pass: 0.7})
	}
	return p
}

// runClaims replays path in mode with the sentence extractor: the embedded
// judges under their shipped policy, and in cascade and fallback mode the
// simulated fallback read with fallbackPolicy.
func runClaims(t *testing.T, mode report.Mode, path string, x guard.ClaimExtractor) *report.Report {
	t.Helper()
	judge, err := lexical.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	pol, fb := judge.Policy(), fallbackPolicy()
	sim, err := evalkit.NewSimulatedJudge(evalkit.SimulatedConfig{ErrorRate: 0.05, Latency: 300 * time.Millisecond,
		InputTokens: 400, OutputTokens: 8, Seed: 1, Unlabeled: judge})
	if err != nil {
		t.Fatal(err)
	}
	setup, err := evalkit.BuildMode(mode, evalkit.ModeConfig{Primary: judge, PrimaryPolicy: pol, Fallback: sim, FallbackPolicy: fb, Claims: x})
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close(context.Background())
	cfg := evalkit.Config{Mode: mode, PrimaryPolicy: &pol, FallbackPolicy: &fb, Workers: 2}
	setup.Configure(&cfg)
	src := dataset.NewFileSource(path)
	defer src.Close()
	rep, err := evalkit.Run(context.Background(), src, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestClaimsReport replays fixture rows and planted ones with the sentence
// extractor and checks that the claims section adds up, and that the
// planted row's unsupported sentence is flagged and listed: weaker than the
// supported one and never passed by the embedded judges (which, under the
// shipped policy, may fail it or leave it uncertain), and failed once the
// cascade's fallback has settled it.
func TestClaimsReport(t *testing.T) {
	path, lines := claimsDataset(t, 144, 0)
	// The claims the extractor should find, counted independently.
	wantClaims, wantRows, wantMax := 0, 0, 0
	for _, l := range lines {
		var row struct{ Answer string }
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		if n := len(lexical.Sentences(row.Answer)); n > 0 {
			wantClaims += n
			wantRows++
			wantMax = max(wantMax, n)
		}
	}
	primaryUncertain := -1
	for _, mode := range []report.Mode{report.ModePrimary, report.ModeCascade, report.ModeFallback} {
		t.Run(string(mode), func(t *testing.T) {
			rep := runClaims(t, mode, path, lexical.SentenceClaims{})
			c := rep.Claims
			if c == nil {
				t.Fatal("no claims section")
			}
			if x := rep.Reproduce.ClaimExtractor; x == nil || x.Name != lexical.SentenceClaimsName || x.Version != lexical.SentenceClaimsVersion || c.Extractor != lexical.SentenceClaimsName {
				t.Errorf("extractor %+v / %q", x, c.Extractor)
			}
			sum := c.ByVerdict["pass"] + c.ByVerdict["fail"] + c.ByVerdict["uncertain"]
			switch {
			case rep.Input.RowsEvaluated != len(lines):
				t.Errorf("%d rows evaluated; want %d", rep.Input.RowsEvaluated, len(lines))
			case c.RowsWithClaims != wantRows || c.RowsWithoutClaims != 1 || c.RowsWithClaims+c.RowsWithoutClaims != rep.Input.RowsEvaluated:
				t.Errorf("rows with claims %d, without %d; want %d, 1", c.RowsWithClaims, c.RowsWithoutClaims, wantRows)
			case c.Claims != wantClaims || sum != c.Claims || len(c.ByVerdict) != 3:
				t.Errorf("claims %d, by verdict %v; want %d", c.Claims, c.ByVerdict, wantClaims)
			case c.PerRowMax != wantMax || c.PerRowMax < 2 || c.PerRowMean != float64(wantClaims)/float64(wantRows):
				t.Errorf("per row: mean %v, max %d; want %v, %d", c.PerRowMean, c.PerRowMax, float64(wantClaims)/float64(wantRows), wantMax)
			case c.Escalated != c.EscalatedSettled+c.EscalatedUnsettled:
				t.Errorf("escalated %d ≠ settled %d + unsettled %d", c.Escalated, c.EscalatedSettled, c.EscalatedUnsettled)
			case mode != report.ModeCascade && c.Escalated != 0:
				t.Errorf("%s mode escalated %d claims", mode, c.Escalated)
			case c.RowsListed != len(c.Rows) || c.RowsListed != min(c.RowsWithFailedClaim+c.RowsWithUncertainClaim, report.MaxListedClaimRows) || c.ListLimit != report.MaxListedClaimRows:
				t.Errorf("listed %d (%d rows) of %d failed + %d uncertain", c.RowsListed, len(c.Rows), c.RowsWithFailedClaim, c.RowsWithUncertainClaim)
			case rep.Input.RowsWithJudgeErrors < 1:
				t.Error("the wordless row's extraction failure is not among the judge errors")
			}
			switch mode {
			case report.ModePrimary:
				primaryUncertain = c.ByVerdict["uncertain"]
			case report.ModeCascade:
				// The uncertain claims of a row the primary leaves
				// JUDGE_UNCERTAIN are escalated, each on its own; those of a
				// confidently diagnosed row, and those the fallback could not
				// settle, stay uncertain.
				if c.Escalated == 0 || c.Escalated > primaryUncertain || c.ByVerdict["uncertain"] != primaryUncertain-c.Escalated+c.EscalatedUnsettled || rep.Usage.Fallback.Rows == 0 {
					t.Errorf("escalated %d claims (primary left %d uncertain), %d uncertain after, %d unsettled, fallback rows %d",
						c.Escalated, primaryUncertain, c.ByVerdict["uncertain"], c.EscalatedUnsettled, rep.Usage.Fallback.Rows)
				}
			}
			if mode == report.ModeFallback {
				return // the simulation reads the row's label for every claim
			}
			var planted *report.ClaimRow
			for i := range c.Rows {
				if c.Rows[i].ID == "planted" {
					planted = &c.Rows[i]
				}
			}
			if planted == nil {
				t.Fatalf("the planted row is not listed: %+v", c.Rows)
			}
			if len(planted.Claims) != 2 || planted.Claims[0].Text != plantedSupported || planted.Claims[1].Text != plantedUnsupported {
				t.Fatalf("planted claims %+v", planted.Claims)
			}
			bad, good := planted.Claims[1], planted.Claims[0]
			if bad.P == nil || good.P == nil {
				t.Fatalf("planted claims without a probability: %+v", planted.Claims)
			}
			// What the embedded judges said of the supported claim: not a
			// failure, and stronger than the unsupported one. (A claim the
			// cascade escalated was answered by the simulation, which
			// reads the row's label, groundedness false, for every claim.)
			if !good.Escalated && (good.Verdict == "fail" || *good.P <= *bad.P) {
				t.Errorf("planted claims: supported %s %v, unsupported %s %v; want the unsupported one weaker, the supported one not failed", good.Verdict, *good.P, bad.Verdict, *bad.P)
			}
			// The embedded judges flag the unsupported claim (fail or
			// uncertain), never pass it; in cascade mode an uncertain
			// claim goes to the fallback, which fails it.
			wantBad := []string{"fail", "uncertain"}
			if mode == report.ModeCascade {
				wantBad = []string{"fail"}
				if bad.Escalated && bad.Judge != "simulated-fallback" {
					t.Errorf("planted claim escalated but judged by %q", bad.Judge)
				}
			}
			if !slices.Contains(wantBad, bad.Verdict) {
				t.Errorf("planted unsupported claim: %s (P %v, judge %s); want one of %v", bad.Verdict, *bad.P, bad.Judge, wantBad)
			}
			weakest := bad
			if *good.P < *bad.P {
				weakest = good
			}
			if planted.Verdict != weakest.Verdict || planted.Groundedness == nil || *planted.Groundedness != *weakest.P || planted.Label == nil || *planted.Label {
				t.Errorf("planted row: groundedness %v %s, label %v; want the weakest claim's P and verdict (%v %s), label false", planted.Groundedness, planted.Verdict, planted.Label, *weakest.P, weakest.Verdict)
			}
			md, html := render.Markdown(rep), render.HTML(rep)
			for _, want := range []string{"## Claims (advanced groundedness)", plantedUnsupported, "claim extractor: `" + lexical.SentenceClaimsName + "` 1.0.0"} {
				if !strings.Contains(md, want) {
					t.Errorf("Markdown lacks %q", want)
				}
			}
			if !strings.Contains(html, "<h2>Claims (advanced groundedness)</h2>") || !strings.Contains(html, plantedUnsupported) {
				t.Error("HTML lacks the claims section or the planted claim")
			}
		})
	}
}

// TestClaimsReportBounded: the listing stops at MaxListedClaimRows rows;
// the counts go on. Every planted row has a flagged claim (failed or
// uncertain, see TestClaimsReport).
func TestClaimsReportBounded(t *testing.T) {
	path, _ := claimsDataset(t, 0, report.MaxListedClaimRows+5)
	rep := runClaims(t, report.ModePrimary, path, lexical.SentenceClaims{})
	c := rep.Claims
	flagged := c.RowsWithFailedClaim + c.RowsWithUncertainClaim
	if flagged != report.MaxListedClaimRows+6 || c.RowsListed != report.MaxListedClaimRows || len(c.Rows) != report.MaxListedClaimRows {
		t.Errorf("rows with a failed claim %d, with an uncertain one %d, listed %d (%d); want %d flagged, %d listed",
			c.RowsWithFailedClaim, c.RowsWithUncertainClaim, c.RowsListed, len(c.Rows), report.MaxListedClaimRows+6, report.MaxListedClaimRows)
	}
	if c.Rows[0].ID != "planted" || c.Rows[1].ID != "planted-0" {
		t.Errorf("listing not in input order: %s, %s", c.Rows[0].ID, c.Rows[1].ID)
	}
	if !strings.Contains(render.Markdown(rep), fmt.Sprintf("first %d rows with a failed or uncertain claim (of %d;", report.MaxListedClaimRows, report.MaxListedClaimRows+6)) {
		t.Error("Markdown does not state the bound")
	}
}

// TestClaimsOff: basic mode has no claims section and no extractor.
func TestClaimsOff(t *testing.T) {
	path, _ := claimsDataset(t, 4, 0)
	rep := runClaims(t, report.ModePrimary, path, nil)
	if rep.Claims != nil || rep.Reproduce.ClaimExtractor != nil {
		t.Errorf("basic mode: claims %+v, extractor %+v", rep.Claims, rep.Reproduce.ClaimExtractor)
	}
	if strings.Contains(render.Markdown(rep), "## Claims") || strings.Contains(render.HTML(rep), "Claims (advanced") {
		t.Error("basic mode renders a claims section")
	}
}
