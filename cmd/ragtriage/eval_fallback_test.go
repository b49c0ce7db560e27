package main

import (
	"bytes"
	"encoding/json"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard/llmjudge"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
)

// judgeModel answers the LLM judge's prompts like a plain model: no for
// groundedness (so no quote is needed), conflict and contradiction, yes for
// the rest, with log-probabilities and the token counts stated.
func judgeModel(r fakeopenai.Request) fakeopenai.Reply {
	sys := r.Role("system")
	rep := fakeopenai.YesNo(0.93, "Yes")
	switch {
	case strings.Contains(sys, "QUOTE [context id]"), strings.Contains(sys, "contradict"), strings.Contains(sys, "materially disagree"):
		rep = fakeopenai.YesNo(0.06, "No")
	}
	rep.PromptTokens, rep.CompletionTokens = 250, 1
	return rep
}

// TestEvalOpenAIFallback runs eval end to end with the openai fallback
// against an in-process OpenAI-compatible server (internal/fakeopenai, a
// simulation of a model server) through langchaingo's real client: in
// cascade mode behind the cascade, and alone in fallback mode.
func TestEvalOpenAIFallback(t *testing.T) {
	fixedClock(t)
	srv := fakeopenai.New(judgeModel)
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "dummy-key")
	data := fixtureHead(t, 24)
	dir := t.TempDir()

	out := filepath.Join(dir, "cascade.json")
	md := filepath.Join(dir, "cascade.md")
	st, _, e := runCmd(t, "eval", "-dataset", data, "-mode", "cascade", "-fallback", "openai", "-fallback-base-url", srv.URL,
		"-fallback-model", "gpt-4o-mini", "-pricing", pricingFile, "-out", out, "-md", md, "-workers", "2")
	if st != 0 {
		t.Fatalf("cascade: exit %d: %s", st, e)
	}
	r := readReportFile(t, out)
	in := r.Input
	if in.RowsRead != 24 || in.RowsEvaluated != 24 || in.RowsFailed != 0 || in.RowsWithJudgeErrors != 0 {
		t.Errorf("rows read %d, evaluated %d, failed %d, with judge errors %d; want 24, 24, 0, 0", in.RowsRead, in.RowsEvaluated, in.RowsFailed, in.RowsWithJudgeErrors)
	}
	c := r.Cascade
	if c == nil || c.Escalated == 0 || c.Runtime == nil {
		t.Fatalf("nothing escalated: %+v", c)
	}
	rt := c.Runtime
	u := r.Usage.Fallback
	switch {
	case r.Simulation != nil:
		t.Error("an LLM fallback reported as a simulation")
	case u.Judge != "llmjudge/gpt-4o-mini" || u.Model != "gpt-4o-mini" || r.Reproduce.FallbackModel != "gpt-4o-mini":
		t.Errorf("fallback leg judge %q, model %q", u.Judge, u.Model)
	case rt.Escalator != "cascade(llmjudge/gpt-4o-mini)":
		t.Errorf("escalator %q", rt.Escalator)
	case u.Rows != c.Escalated || u.Calls != srv.Count() || u.InputTokens != 250*srv.Count() || u.OutputTokens != srv.Count():
		t.Errorf("fallback leg: rows %d of %d escalated, %d calls, %d+%d tokens; the server answered %d requests of 250+1 tokens",
			u.Rows, c.Escalated, u.Calls, u.InputTokens, u.OutputTokens, srv.Count())
	case rt.InputTokens != u.InputTokens || rt.Settled == 0 || rt.Failed != 0 || rt.BreakerTrips != 0:
		t.Errorf("runtime %+v; fallback leg tokens %d", *rt, u.InputTokens)
	case r.Latency.Fallback.N != c.Escalated || r.Latency.Combined.N != 24:
		t.Errorf("latency n: fallback %d, combined %d", r.Latency.Fallback.N, r.Latency.Combined.N)
	}
	want := (float64(u.InputTokens)*0.15 + float64(u.OutputTokens)*0.60) / 1e6
	if a := r.Cost.Fallback.Amount; a == nil || math.Abs(*a-want) > 1e-12 || r.Cost.Total.Amount == nil {
		t.Errorf("fallback cost %+v; want %v priced as gpt-4o-mini", r.Cost.Fallback, want)
	}
	for _, req := range srv.Requests() {
		if got := req.Header.Get("Authorization"); got != "Bearer dummy-key" || req.Model != "gpt-4o-mini" {
			t.Fatalf("request with Authorization %q, model %q", got, req.Model)
		}
	}
	if mdb, _ := os.ReadFile(md); !bytes.Contains(mdb, []byte("Cascade runtime (`cascade(llmjudge/gpt-4o-mini)`")) || bytes.Contains(mdb, []byte("Simulated fallback")) {
		t.Error("Markdown: no runtime block, or a simulation note")
	}

	// Fallback mode: the LLM judge alone, on every row; a model missing
	// from the pricing snapshot makes the cost unavailable, never 0.
	before := srv.Count()
	out = filepath.Join(dir, "fallback.json")
	st, _, e = runCmd(t, "eval", "-dataset", data, "-mode", "fallback", "-fallback", "openai", "-fallback-base-url", srv.URL,
		"-fallback-model", "local-model", "-pricing", pricingFile, "-out", out)
	if st != 0 {
		t.Fatalf("fallback: exit %d: %s", st, e)
	}
	r = readReportFile(t, out)
	u = r.Usage.Fallback
	if r.Input.RowsEvaluated != 24 || u.Rows != 24 || r.Usage.Primary.Rows != 0 || u.Calls != srv.Count()-before || u.InputTokens != 250*u.Calls {
		t.Errorf("fallback mode: %d evaluated, fallback rows %d, primary rows %d, calls %d (server %d), input tokens %d",
			r.Input.RowsEvaluated, u.Rows, r.Usage.Primary.Rows, u.Calls, srv.Count()-before, u.InputTokens)
	}
	if r.Cost.Fallback.Status != "unavailable" || r.Cost.Fallback.Amount != nil || !strings.Contains(r.Cost.Fallback.Reason, `"local-model"`) || r.Cost.Total.Amount != nil {
		t.Errorf("cost of an unpriced model: %+v, total %+v", r.Cost.Fallback, r.Cost.Total)
	}
	if r.Cascade != nil {
		t.Error("fallback mode has a cascade block")
	}
}

// TestEvalOpenAIFallbackDown: a fallback server that fails opens the
// breaker; every row still gets its result (JUDGE_UNCERTAIN where the
// fallback was needed) and the report counts the trip and the refusals.
// Every call failed, so eval exits 1 quoting the error, unless
// -allow-fallback-errors.
func TestEvalOpenAIFallbackDown(t *testing.T) {
	fixedClock(t)
	srv := fakeopenai.New(func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Status: 500, Message: "down"} })
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "dummy-key")
	out := filepath.Join(t.TempDir(), "r.json")
	args := []string{"eval", "-dataset", fixtureHead(t, 24), "-mode", "cascade", "-fallback", "openai", "-fallback-base-url", srv.URL,
		"-fallback-model", "gpt-4o-mini", "-fallback-breaker-failures", "2", "-fallback-breaker-cooldown", "1h", "-workers", "1",
		"-pricing", pricingFile, "-out", out}
	st, _, e := runCmd(t, args...)
	if st != 1 || !strings.Contains(e, "2 of 2 fallback calls failed") || !strings.Contains(e, "500: down") {
		t.Errorf("exit %d; want 1 quoting the failed calls: %s", st, e)
	}
	if st, _, e := runCmd(t, append(args, "-allow-fallback-errors")...); st != 0 {
		t.Fatalf("-allow-fallback-errors: exit %d: %s", st, e)
	}
	r := readReportFile(t, out)
	if fe := r.FallbackErrors; fe == nil || fe.Calls != 2 || fe.Failed != 2 || fe.Transport != 0 {
		t.Errorf("fallbackErrors %+v; want 2 of 2 calls failed, none at the transport level", fe)
	}
	c := r.Cascade
	rt := c.Runtime
	switch {
	case r.Input.RowsEvaluated != 24 || r.Input.RowsFailed != 0:
		t.Errorf("rows evaluated %d, failed %d; want 24, 0", r.Input.RowsEvaluated, r.Input.RowsFailed)
	case rt.BreakerTrips != 1 || rt.BreakerState != "open" || rt.FallbackCalls != 2 || rt.FallbackCallErrors != 2:
		t.Errorf("breaker trips %d, state %s, calls %d, call errors %d; want 1, open, 2, 2", rt.BreakerTrips, rt.BreakerState, rt.FallbackCalls, rt.FallbackCallErrors)
	case rt.RefusedBreaker == 0 || rt.Settled != 0 || c.StillUncertain != c.Escalated:
		t.Errorf("refused by breaker %d, settled %d, still uncertain %d of %d escalated", rt.RefusedBreaker, rt.Settled, c.StillUncertain, c.Escalated)
	case c.FallbackFailures != r.Usage.Fallback.Rows || r.Usage.Fallback.Rows < 1 || r.Usage.Fallback.Rows > 2 || r.Usage.Fallback.InputTokens != 0:
		// The two failed calls came from one or two rows (an escalation
		// may ask about chunks in a call of their own).
		t.Errorf("fallback failures %d, fallback leg rows %d, tokens %d; want the 1 or 2 rows that called, and no tokens", c.FallbackFailures, r.Usage.Fallback.Rows, r.Usage.Fallback.InputTokens)
	case r.Diagnosis.Actions["block"] < c.StillUncertain:
		t.Errorf("actions %v: the fail-closed rule did not block the %d unsettled rows", r.Diagnosis.Actions, c.StillUncertain)
	}
}

// TestEvalOpenAIFallbackNoKey: without OPENAI_API_KEY the run stops with a
// usage error before any request.
func TestEvalOpenAIFallbackNoKey(t *testing.T) {
	srv := fakeopenai.New(judgeModel)
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "")
	out := filepath.Join(t.TempDir(), "r.json")
	for _, mode := range []string{"cascade", "fallback"} {
		st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", mode, "-fallback", "openai", "-fallback-base-url", srv.URL,
			"-fallback-model", "gpt-4o-mini", "-pricing", pricingFile, "-out", out)
		if st != 2 || !strings.Contains(e, "-fallback openai: llmjudge: no API key (set OPENAI_API_KEY") {
			t.Errorf("%s without a key: exit %d, stderr %q; want 2 naming OPENAI_API_KEY", mode, st, e)
		}
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("%d requests were made without a key", n)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a report was written")
	}
	t.Setenv(llmjudge.APIKeyEnv, "k")
	st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", "cascade", "-fallback", "openai", "-fallback-base-url", "ftp://x", "-fallback-model", "m", "-out", out)
	if st != 2 || !strings.Contains(e, `base URL "ftp://x"`) || srv.Count() != 0 {
		t.Errorf("bad base URL: exit %d, stderr %q", st, e)
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestEvalFallbackUnreachable: a fallback server nobody listens on (a
// closed loopback port) fails every call at the transport level. eval
// exits 1 quoting the transport error, counts the failures in the report
// (JSON and Markdown); -allow-fallback-errors relaxes the exit status only.
func TestEvalFallbackUnreachable(t *testing.T) {
	fixedClock(t)
	t.Setenv(llmjudge.APIKeyEnv, "x")
	base := "http://" + closedPort(t) + "/v1"
	dir := t.TempDir()
	for _, mode := range []string{"cascade", "fallback"} {
		out, md := filepath.Join(dir, mode+".json"), filepath.Join(dir, mode+".md")
		args := []string{"eval", "-dataset", fixtureHead(t, 24), "-mode", mode, "-fallback", "openai", "-fallback-model", "m",
			"-fallback-base-url", base, "-out", out, "-md", md}
		st, _, e := runCmd(t, args...)
		if st != 1 || !strings.Contains(e, "connection refused") || !strings.Contains(e, "fallback: ") {
			t.Errorf("%s: exit %d; want 1 quoting the transport error:\n%s", mode, st, e)
		}
		r := readReportFile(t, out)
		fe := r.FallbackErrors
		switch {
		case fe == nil:
			t.Fatalf("%s: no fallbackErrors block", mode)
		case fe.Calls == 0 || fe.Failed != fe.Calls || fe.Transport != fe.Failed || fe.Estimates != 0:
			t.Errorf("%s: fallbackErrors %+v; want every call failed at the transport level, no estimate", mode, *fe)
		case fe.FailedRate == nil || *fe.FailedRate != 1:
			t.Errorf("%s: failed rate %v; want 1", mode, fe.FailedRate)
		case len(fe.Errors) == 0 || !strings.Contains(fe.Errors[0], "connection refused"):
			t.Errorf("%s: errors %q; want the transport error quoted", mode, fe.Errors)
		}
		mdb, _ := os.ReadFile(md)
		if !bytes.Contains(mdb, []byte("Fallback calls: ")) || !bytes.Contains(mdb, []byte("connection refused")) {
			t.Errorf("%s: Markdown lacks the fallback errors line", mode)
		}
		st, _, e = runCmd(t, append(args, "-allow-fallback-errors")...)
		if st != 0 || !strings.Contains(e, "connection refused") {
			t.Errorf("%s -allow-fallback-errors: exit %d; want 0, still quoting the error:\n%s", mode, st, e)
		}
	}
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-out", filepath.Join(dir, "x.json"), "-max-fallback-errors", "1.5"); st != 2 || !strings.Contains(e, "-max-fallback-errors") {
		t.Errorf("-max-fallback-errors 1.5: exit %d, stderr %q; want a usage error", st, e)
	}
}

// TestEvalFallbackErrorShare: a server that fails the calls about one row
// only. The run fails when the share of failed calls exceeds
// -max-fallback-errors, and passes under it.
func TestEvalFallbackErrorShare(t *testing.T) {
	fixedClock(t)
	data := fixtureHead(t, 24)
	b, _ := os.ReadFile(data)
	// The answer of one row only, in no other row (questions repeat in the
	// fixture: each is asked with a right and a hallucinated answer).
	unique := ""
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var row struct{ Answer string }
		json.Unmarshal(l, &row)
		if strings.Count(string(b), row.Answer) == 1 && len(row.Answer) > 20 {
			unique = row.Answer
			break
		}
	}
	if unique == "" {
		t.Fatal("no answer occurs once in the first 24 rows")
	}
	srv := fakeopenai.New(func(r fakeopenai.Request) fakeopenai.Reply {
		if strings.Contains(r.Text(), unique) {
			return fakeopenai.Reply{Status: 500, Message: "no answer for this row"}
		}
		return judgeModel(r)
	})
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "x")
	out := filepath.Join(t.TempDir(), "r.json")
	args := []string{"eval", "-dataset", data, "-mode", "fallback", "-fallback", "openai", "-fallback-model", "gpt-4o-mini",
		"-fallback-base-url", srv.URL, "-out", out}
	st, _, e := runCmd(t, append(args, "-max-fallback-errors", "0.5")...)
	if st != 0 {
		t.Errorf("-max-fallback-errors 0.5: exit %d; want 0:\n%s", st, e)
	}
	fe := readReportFile(t, out).FallbackErrors
	if fe == nil || fe.Calls != 24 || fe.Failed != 1 || fe.Transport != 0 || fe.Estimates == 0 || !strings.Contains(strings.Join(fe.Errors, "|"), "500: no answer for this row") {
		t.Fatalf("fallbackErrors %+v; want 1 of 24 calls failed (HTTP 500, not transport)", fe)
	}
	if !strings.Contains(e, "1 of 24 fallback calls failed") {
		t.Errorf("stderr does not count the failed call:\n%s", e)
	}
	// 1/24 = 4.2%: under the default 5%, over 1%.
	if st, _, e := runCmd(t, args...); st != 0 {
		t.Errorf("default -max-fallback-errors: exit %d; want 0:\n%s", st, e)
	}
	st, _, e = runCmd(t, append(args, "-max-fallback-errors", "0.01")...)
	if st != 1 || !strings.Contains(e, "fallback: 1 of 24 fallback calls failed (4.2%), more than the 1.0% allowed") {
		t.Errorf("-max-fallback-errors 0.01: exit %d; want 1 naming the share:\n%s", st, e)
	}
}
