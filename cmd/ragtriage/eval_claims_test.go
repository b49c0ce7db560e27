package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
)

// TestEvalClaimsSentences runs eval end to end with -claims sentences on the
// fixture: the claims section counts every sentence of every answer, its
// counts add up, and the Markdown and HTML show it; in cascade mode the
// uncertain claims of a row the primary leaves JUDGE_UNCERTAIN go to the
// fallback one by one, and those of a confidently diagnosed row stay.
func TestEvalClaimsSentences(t *testing.T) {
	fixedClock(t)
	b, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	wantClaims, wantRows := 0, 0
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var row struct{ Answer string }
		if err := json.Unmarshal(l, &row); err != nil {
			t.Fatal(err)
		}
		if n := len(lexical.Sentences(row.Answer)); n > 0 {
			wantClaims += n
			wantRows++
		}
	}
	dir := t.TempDir()
	var primaryUncertain int
	for _, mode := range []string{"primary", "cascade"} {
		out, md, html := filepath.Join(dir, mode+".json"), filepath.Join(dir, mode+".md"), filepath.Join(dir, mode+".html")
		st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", mode, "-claims", "sentences", "-pricing", pricingFile, "-workers", "2",
			"-out", out, "-md", md, "-html", html)
		if st != 0 {
			t.Fatalf("%s: exit %d: %s", mode, st, e)
		}
		r := readReportFile(t, out)
		c := r.Claims
		if c == nil {
			t.Fatalf("%s: no claims section", mode)
		}
		sum := c.ByVerdict["pass"] + c.ByVerdict["fail"] + c.ByVerdict["uncertain"]
		switch {
		case r.Reproduce.ClaimExtractor == nil || r.Reproduce.ClaimExtractor.Name != lexical.SentenceClaimsName:
			t.Errorf("%s: extractor %+v", mode, r.Reproduce.ClaimExtractor)
		case c.RowsWithClaims != wantRows || c.RowsWithClaims+c.RowsWithoutClaims != r.Input.RowsEvaluated:
			t.Errorf("%s: rows with claims %d, without %d, evaluated %d; want %d with claims", mode, c.RowsWithClaims, c.RowsWithoutClaims, r.Input.RowsEvaluated, wantRows)
		case c.Claims != wantClaims || sum != c.Claims:
			t.Errorf("%s: claims %d, by verdict %v; want %d", mode, c.Claims, c.ByVerdict, wantClaims)
		case c.RowsListed != min(report.MaxListedClaimRows, c.RowsWithFailedClaim+c.RowsWithUncertainClaim) || c.RowsListed == 0:
			t.Errorf("%s: %d rows listed of %d + %d", mode, c.RowsListed, c.RowsWithFailedClaim, c.RowsWithUncertainClaim)
		case c.Escalated != c.EscalatedSettled+c.EscalatedUnsettled:
			t.Errorf("%s: escalated %d ≠ %d + %d", mode, c.Escalated, c.EscalatedSettled, c.EscalatedUnsettled)
		}
		if mode == "primary" {
			primaryUncertain = c.ByVerdict["uncertain"]
			if c.Escalated != 0 {
				t.Errorf("primary mode escalated %d claims", c.Escalated)
			}
		} else if c.Escalated == 0 || c.Escalated > primaryUncertain || c.ByVerdict["uncertain"] != primaryUncertain-c.Escalated+c.EscalatedUnsettled ||
			r.Cascade == nil || r.Cascade.Escalated == 0 {
			t.Errorf("cascade: %d claims escalated, %d unsettled, %d uncertain after; the primary left %d uncertain",
				c.Escalated, c.EscalatedUnsettled, c.ByVerdict["uncertain"], primaryUncertain)
		}
		first := c.Rows[0].Claims[0].Text
		mdb, _ := os.ReadFile(md)
		htb, _ := os.ReadFile(html)
		if !bytes.Contains(mdb, []byte("## Claims (advanced groundedness)")) || !bytes.Contains(mdb, []byte("claim extractor: `ragtriage/lexical-sentences` 1.0.0")) || !bytes.Contains(mdb, []byte(strings.ReplaceAll(first, "|", `\|`))) {
			t.Errorf("%s: Markdown lacks the claims section, the extractor or the first listed claim %q", mode, first)
		}
		if !bytes.Contains(htb, []byte("<h2>Claims (advanced groundedness)</h2>")) {
			t.Errorf("%s: HTML lacks the claims section", mode)
		}
	}
	out := filepath.Join(dir, "x.json")
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-claims", "atoms", "-out", out); st != 2 || !strings.Contains(e, `-claims "atoms": want off, sentences or openai`) {
		t.Errorf("-claims atoms: exit %d, stderr %q", st, e)
	}
	recs := filepath.Join(dir, "none.jsonl")
	os.WriteFile(recs, nil, 0o644)
	if st, _, e := runCmd(t, "eval", "-records", recs, "-mode", "recorded", "-claims", "sentences", "-out", out); st != 2 || !strings.Contains(e, "recorded mode judges nothing") {
		t.Errorf("-claims with recorded mode: exit %d, stderr %q", st, e)
	}
}

// claimsModel answers the claim-extraction prompt with the answer as its
// first claim and a planted claim no context supports as its second, and
// the judge prompts like judgeModel.
func claimsModel(r fakeopenai.Request) fakeopenai.Reply {
	if !strings.Contains(r.Role("system"), "atomic claims") {
		return judgeModel(r)
	}
	user := r.Role("human")
	if user == "" {
		user = r.Role("user")
	}
	_, rest, _ := strings.Cut(user, "<<<BEGIN ANSWER ")
	_, rest, _ = strings.Cut(rest, ">>>\n")
	answer, _, _ := strings.Cut(rest, "\n<<<END ANSWER")
	return fakeopenai.Reply{Choices: []string{"- " + strings.Join(strings.Fields(answer), " ") + "\n- " + plantedClaim}, PromptTokens: 120, CompletionTokens: 20}
}

const plantedClaim = "Zorblatt Quixotic Vantablack owns seventeen purple giraffes."

// TestEvalClaimsOpenAI runs -claims openai against an in-process
// OpenAI-compatible server (internal/fakeopenai, a simulation of a model
// server) through langchaingo's real client: every row's claims come from
// it, and the planted unsupported claim is flagged in every row — never
// passed: the embedded judges fail it or, under the shipped policy (which
// never confidently fails groundedness), leave it uncertain — so every row
// has a flagged claim and is a candidate for the listing.
func TestEvalClaimsOpenAI(t *testing.T) {
	fixedClock(t)
	srv := fakeopenai.New(claimsModel)
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "dummy-key")
	out := filepath.Join(t.TempDir(), "r.json")
	st, _, e := runCmd(t, "eval", "-dataset", fixtureHead(t, 24), "-mode", "primary", "-claims", "openai", "-fallback-base-url", srv.URL,
		"-fallback-model", "gpt-4o-mini", "-pricing", pricingFile, "-out", out, "-workers", "2")
	if st != 0 {
		t.Fatalf("exit %d: %s", st, e)
	}
	r := readReportFile(t, out)
	c := r.Claims
	switch {
	case c == nil:
		t.Fatal("no claims section")
	case srv.Count() != 24:
		t.Errorf("%d requests; want one claim extraction per row (24)", srv.Count())
	case r.Reproduce.ClaimExtractor == nil || *r.Reproduce.ClaimExtractor != (guard.JudgeInfo{Name: "llmjudge/claims/gpt-4o-mini", Version: llmjudge.PromptVersion}):
		t.Errorf("extractor %+v", r.Reproduce.ClaimExtractor)
	case c.RowsWithClaims != 24 || c.RowsWithoutClaims != 0 || c.Claims != 48 || c.PerRowMax != 2:
		t.Errorf("rows with claims %d, without %d, claims %d, max %d; want 24, 0, 48, 2", c.RowsWithClaims, c.RowsWithoutClaims, c.Claims, c.PerRowMax)
	case c.RowsWithFailedClaim+c.RowsWithUncertainClaim != 24 || c.RowsListed != report.MaxListedClaimRows:
		t.Errorf("rows with a failed claim %d, with an uncertain one %d, listed %d; want 24 flagged (the planted claim), %d listed",
			c.RowsWithFailedClaim, c.RowsWithUncertainClaim, c.RowsListed, report.MaxListedClaimRows)
	}
	flagged := func(v string) bool { return v == "fail" || v == "uncertain" }
	for _, row := range c.Rows {
		if n := len(row.Claims); n != 2 || row.Claims[1].Text != plantedClaim || !flagged(row.Claims[1].Verdict) || !flagged(row.Verdict) {
			t.Errorf("row %s: claims %+v, groundedness %s; want the planted claim and the row failed or uncertain", row.ID, row.Claims, row.Verdict)
			continue
		}
		// The row's groundedness is its weakest claim's.
		weakest := row.Claims[0]
		if p := row.Claims[1].P; p != nil && weakest.P != nil && *p < *weakest.P {
			weakest = row.Claims[1]
		}
		if row.Groundedness == nil || weakest.P == nil || *row.Groundedness != *weakest.P || row.Verdict != weakest.Verdict {
			t.Errorf("row %s: groundedness %v %s; want the weakest claim's (%q)", row.ID, row.Groundedness, row.Verdict, weakest.Text)
		}
	}
	for _, req := range srv.Requests() {
		if got := req.Header.Get("Authorization"); got != "Bearer dummy-key" || req.Model != "gpt-4o-mini" {
			t.Fatalf("request with Authorization %q, model %q", got, req.Model)
		}
	}
}

// TestEvalClaimsOpenAINoKey: without OPENAI_API_KEY (or a model) -claims
// openai stops with a usage error before any request.
func TestEvalClaimsOpenAINoKey(t *testing.T) {
	srv := fakeopenai.New(claimsModel)
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "")
	out := filepath.Join(t.TempDir(), "r.json")
	for _, mode := range []string{"primary", "cascade"} {
		st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", mode, "-claims", "openai", "-fallback-base-url", srv.URL,
			"-fallback-model", "gpt-4o-mini", "-pricing", pricingFile, "-out", out)
		if st != 2 || !strings.Contains(e, "-claims openai: llmjudge: no API key (set OPENAI_API_KEY") {
			t.Errorf("%s without a key: exit %d, stderr %q; want 2 naming OPENAI_API_KEY", mode, st, e)
		}
	}
	t.Setenv(llmjudge.APIKeyEnv, "k")
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-claims", "openai", "-fallback-base-url", srv.URL, "-out", out); st != 2 || !strings.Contains(e, "-claims openai needs -fallback-model") {
		t.Errorf("without a model: exit %d, stderr %q", st, e)
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("%d requests were made", n)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a report was written")
	}
}
