package demo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/middleware"
)

func sampleFor(t *testing.T, question, answer string) guard.Sample {
	t.Helper()
	docs, err := Retriever{K: 1}.GetRelevantDocuments(context.Background(), question)
	if err != nil {
		t.Fatal(err)
	}
	s := guard.Sample{Question: question, Answer: answer}
	for i, d := range docs {
		s.Contexts = append(s.Contexts, guard.Context{ID: middleware.DefaultContextID(i, d), Text: d.PageContent})
	}
	return s
}

// TestCases checks that the guard — the embedded judges under the shipped
// policy, escalating to the LLM judge over the scripted stand-in — really
// passes, fails, leaves unsettled and fails as a retrieval miss the four
// cases as their names say, each through the fallback: the shipped profile
// certifies no verdict of the embedded judges on these.
func TestCases(t *testing.T) {
	g, standIn, err := NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(context.Background())
	seen := map[string]bool{}
	for _, c := range Cases {
		seen[c.Name] = true
		before := standIn.Calls()
		res, err := g.Evaluate(context.Background(), sampleFor(t, c.Question, c.Answer))
		if err != nil {
			t.Fatal(err)
		}
		calls := standIn.Calls() - before
		fb := res.Fallback
		switch c.Name {
		case "pass":
			if res.Diagnosis != guard.PassDiagnosis || res.Route != guard.Fallback || res.Action != guard.Allow ||
				fb == nil || fb.Unsettled != 0 || fb.Settled != len(fb.Decisions) || fb.Settled == 0 {
				t.Errorf("pass: %s route %s action %s fallback %+v (%s); want PASS via the fallback, every escalated decision settled",
					res.Diagnosis, res.Route, res.Action, fb, res.Reason)
			}
			if fb != nil && !slices.Contains(fb.Decisions, guard.ContextSufficiency) {
				t.Errorf("pass: escalated %v; want context_sufficiency among them (no shipped threshold decides it)", fb.Decisions)
			}
		case "fail":
			if res.Diagnosis != guard.GeneratorUngrounded || res.Route != guard.Fallback || res.Action != guard.Block ||
				fb == nil || !slices.Contains(fb.Decisions, guard.Groundedness) || res.Verdicts.Generation.Groundedness != guard.Fail {
				t.Errorf("fail: %s route %s action %s groundedness %s fallback %+v (%s); want GENERATOR_UNGROUNDED via the fallback (groundedness escalated and failed), blocked",
					res.Diagnosis, res.Route, res.Action, res.Verdicts.Generation.Groundedness, fb, res.Reason)
			}
		case "escalate":
			if res.Diagnosis != guard.JudgeUncertain || res.Route != guard.Fallback || res.Action != guard.Block ||
				fb == nil || fb.Unsettled == 0 || fb.Rule != guard.FailClosed || !strings.Contains(fb.Reason, "samples disagree") ||
				!errors.Is(fb.Err(), guard.ErrFallbackAbstained) {
				t.Errorf("escalate: %s route %s action %s fallback %+v (%s); want JUDGE_UNCERTAIN via the fallback, unsettled (the fallback abstained: samples disagree), blocked fail-closed",
					res.Diagnosis, res.Route, res.Action, fb, res.Reason)
			}
		case "miss":
			if res.Diagnosis != guard.RetrievalMiss || res.Route != guard.Fallback || res.Action != guard.Block || fb == nil {
				t.Errorf("miss: %s route %s action %s fallback %+v (%s); want RETRIEVAL_MISS via the fallback, blocked",
					res.Diagnosis, res.Route, res.Action, fb, res.Reason)
			}
			for _, cr := range res.Verdicts.Retrieval.ChunkRelevance {
				if cr.Value != guard.Fail {
					t.Errorf("miss: chunk %s relevance %s; want every retrieved chunk confidently irrelevant", cr.Key, cr.Value)
				}
			}
		default:
			t.Fatalf("unknown case %q", c.Name)
		}
		if calls == 0 {
			t.Errorf("%s: the fallback model was never called", c.Name)
		}
	}
	if len(seen) != 4 {
		t.Errorf("cases %v; want pass, fail, escalate and miss", seen)
	}
	if n := standIn.OffScript(); n != 0 {
		t.Errorf("%d prompts were off the stand-in's script", n)
	}
}

// TestMissRetrieval checks the "miss" case's premise: the keyword retriever
// does return a passage for it (so the miss is a retrieval that found
// something else, not an empty one), and that passage does not mention what
// the question asks about.
func TestMissRetrieval(t *testing.T) {
	for _, c := range Cases {
		if c.Name != "miss" {
			continue
		}
		for _, k := range []int{1, 2} {
			docs, err := Retriever{K: k}.GetRelevantDocuments(context.Background(), c.Question)
			if err != nil || len(docs) == 0 {
				t.Fatalf("K=%d: %d documents, %v; want some", k, len(docs), err)
			}
			for _, d := range docs {
				if strings.Contains(d.PageContent, "Mona Lisa") || strings.Contains(d.PageContent, "painted") {
					t.Errorf("K=%d: retrieved %q, which is about the question", k, d.PageContent)
				}
			}
		}
	}
}

// TestStandInOffScript checks that the stand-in commits to nothing it has
// no script for: a changed answer makes every answer-bearing decision
// abstain, and the guard cannot pass it.
func TestStandInOffScript(t *testing.T) {
	j, m, err := NewStandInJudge()
	if err != nil {
		t.Fatal(err)
	}
	s := sampleFor(t, Cases[0].Question, "The capital of France is Paris, famous for the Eiffel Tower.")
	ds := []guard.Decision{guard.AnswerRelevance, guard.Groundedness, guard.Contradiction}
	ests, err := j.Judge(context.Background(), guard.Request{Sample: &s, Decisions: ds})
	if err != nil {
		t.Fatal(err)
	}
	if len(ests) != len(ds) {
		t.Fatalf("%d estimates; want %d", len(ests), len(ds))
	}
	for _, e := range ests {
		if !e.Abstained {
			t.Errorf("%s: P=%v; want an abstention for an answer off the script", e.Decision, e.P)
		}
	}
	if m.OffScript() == 0 || m.OffScript() != m.Calls() {
		t.Errorf("off-script calls %d of %d; want all", m.OffScript(), m.Calls())
	}

	g, _, err := NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(context.Background())
	res, err := g.Evaluate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action == guard.Allow {
		t.Errorf("off-script answer allowed: %s (%s)", res.Diagnosis, res.Reason)
	}
}

// TestStandInEvidence checks that the stand-in's groundedness replies carry
// evidence the judge verifies against the context, and that it answers as
// many sampled choices as asked for.
func TestStandInEvidence(t *testing.T) {
	j, m, err := NewStandInJudge()
	if err != nil {
		t.Fatal(err)
	}
	s := sampleFor(t, Cases[0].Question, Cases[0].Answer)
	ests, err := j.Judge(context.Background(), guard.Request{Sample: &s, Decisions: []guard.Decision{guard.Groundedness}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ests) != 1 || ests[0].Abstained || ests[0].P != 1 || len(ests[0].Evidence) == 0 || ests[0].Evidence[0].Quote.ContextID != "geo/france" {
		t.Fatalf("groundedness = %+v; want P=1 with evidence in geo/france", ests)
	}
	if m.Calls() != 1 {
		t.Errorf("%d model calls; want 1 (five samples in one call)", m.Calls())
	}
}

func TestParseBlocksMalformed(t *testing.T) {
	for _, in := range []string{
		"",
		"<<<BEGIN QUESTION N1>>>\nWhat?\n", // never closes
		"<<<BEGIN QUESTION>>>\nWhat?\n<<<END QUESTION>>>\n",         // no code
		"<<<BEGIN CONTEXT N1 id=a>>>\ntext\n<<<END CONTEXT N1>>>\n", // no question
	} {
		if _, err := parseBlocks(in); err == nil {
			t.Errorf("parseBlocks(%q): no error", in)
		}
	}
	b, err := parseBlocks("<<<BEGIN QUESTION N1>>>\nWhat?\n<<<END QUESTION N1>>>\n<<<BEGIN CONTEXT N1 id=a>>>\nx\ny\n<<<END CONTEXT N1>>>\n")
	if err != nil || b.question != "What?" || len(b.contexts) != 1 || b.contexts[0].ID != "a" || b.contexts[0].Text != "x\ny" || b.hasAnswer {
		t.Errorf("parseBlocks = %+v, %v", b, err)
	}
}
