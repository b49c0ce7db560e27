package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/ragtriage/ragtriage/examples/internal/demo"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
)

// TestRun runs the quickstart offline and checks what it prints for each
// question: a pass settled by the fallback, a failure settled by the
// fallback, an escalation the fallback could not settle, and a retrieval
// miss the embedded judges decided alone (the fallback never saw it).
func TestRun(t *testing.T) {
	var buf bytes.Buffer
	if err := run(context.Background(), &buf, provider{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	blocks := questions(out)
	if len(blocks) != 4 {
		t.Fatalf("%d questions printed; want 4:\n%s", len(blocks), out)
	}
	for i, wants := range [][]string{
		{"A: Paris is the capital of France.", "escalated to cascade(llmjudge/scripted-stand-in)", "0 unsettled",
			"diagnosis PASS, confidence", "route fallback, action allow"},
		{"blocked: GENERATOR_UNGROUNDED", "escalated to cascade(llmjudge/scripted-stand-in)", "0 unsettled",
			"diagnosis GENERATOR_UNGROUNDED", "route fallback, action block"},
		{"blocked: JUDGE_UNCERTAIN (fail-closed", "1 unsettled (samples disagree: 3 yes, 2 no)",
			"diagnosis JUDGE_UNCERTAIN", "route fallback, action block"},
		{"blocked: RETRIEVAL_MISS", "from context geo/france", "escalated to cascade(llmjudge/scripted-stand-in)", "0 unsettled",
			"diagnosis RETRIEVAL_MISS", "route fallback, action block"},
	} {
		for _, want := range wants {
			if !strings.Contains(blocks[i], want) {
				t.Errorf("question %d lacks %q:\n%s", i+1, want, blocks[i])
			}
		}
	}
	for i, b := range blocks {
		// The words follow the action: "withheld for review" is never
		// printed beside action block, nor "blocked" beside review.
		if strings.Contains(b, "action block") && strings.Contains(b, "for review") {
			t.Errorf("question %d: says review beside action block:\n%s", i+1, b)
		}
		if strings.Contains(b, "action review") && strings.Contains(b, "blocked") {
			t.Errorf("question %d: says blocked beside action review:\n%s", i+1, b)
		}
	}
	if !strings.Contains(out, "fallback judge: scripted stand-in for an LLM") {
		t.Errorf("output does not say the fallback is the scripted stand-in:\n%s", out)
	}
	if n := strings.Count(out, "the fallback was not asked"); n != 0 {
		t.Errorf("%d answers decided without the fallback; want 0 (the shipped profile certifies no verdict on its own):\n%s", n, out)
	}
}

// questions splits the quickstart's output into one block per question.
func questions(out string) []string {
	parts := strings.Split(out, "\nQ: ")
	return parts[1:]
}

// TestRunProvider runs the quickstart's real-provider path — langchaingo's
// OpenAI client generating and llmjudge.NewOpenAI judging, over HTTP — against
// the in-process fake OpenAI server (a simulation), which answers generation
// prompts like the scripted LLM and judge prompts like the scripted
// stand-in, without log-probabilities (the stand-in has none, so the judge
// falls back to sampling, as with any server that returns none). The
// outcomes must be those of the offline run.
func TestRunProvider(t *testing.T) {
	gen, standIn := &demo.ScriptedLLM{}, &demo.ScriptedStandInLLM{}
	srv := fakeopenai.New(func(r fakeopenai.Request) fakeopenai.Reply {
		var msgs []llms.MessageContent
		for _, m := range r.Messages {
			role := llms.ChatMessageTypeHuman
			if m.Role == "system" {
				role = llms.ChatMessageTypeSystem
			}
			msgs = append(msgs, llms.TextParts(role, m.Content))
		}
		var m llms.Model = gen
		if strings.Contains(r.Role("system"), "evaluator") {
			m = standIn
		}
		resp, err := m.GenerateContent(context.Background(), msgs, llms.WithN(r.N))
		if err != nil {
			return fakeopenai.Reply{Status: 500, Message: err.Error()}
		}
		rep := fakeopenai.Reply{NoLogprobs: true}
		for _, c := range resp.Choices {
			rep.Choices = append(rep.Choices, c.Content)
		}
		return rep
	})
	defer srv.Close()
	var buf bytes.Buffer
	if err := run(context.Background(), &buf, provider{apiKey: "test-key", model: "fake-model", baseURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"fallback judge: " + srv.URL + " fake-model (llmjudge)",
		"escalated to cascade(llmjudge/fake-model)",
		"diagnosis PASS, confidence",
		"blocked: GENERATOR_UNGROUNDED",
		"diagnosis JUDGE_UNCERTAIN",
		"samples disagree: 3 yes, 2 no",
		"blocked: RETRIEVAL_MISS",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The outcomes are the offline run's, question by question.
	var off bytes.Buffer
	if err := run(context.Background(), &off, provider{}); err != nil {
		t.Fatal(err)
	}
	got, want := questions(out), questions(off.String())
	if len(got) != len(want) {
		t.Fatalf("%d questions; want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := outcomeLine(got[i]), outcomeLine(want[i]); g != w || g == "" {
			t.Errorf("question %d: %q; the offline run gives %q", i+1, g, w)
		}
	}
	if standIn.Calls() == 0 || gen.Calls() != 4 {
		t.Errorf("the fake server answered %d judge and %d generation prompts; want some and 4", standIn.Calls(), gen.Calls())
	}
}

// outcomeLine is a question block's "diagnosis …" line up to the reason.
func outcomeLine(block string) string {
	for _, l := range strings.Split(block, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "diagnosis ") {
			// The confidence can differ (log-probabilities vs samples).
			d, _, _ := strings.Cut(l, ",")
			_, rest, _ := strings.Cut(l, " route ")
			rest, _, _ = strings.Cut(rest, ":")
			return d + " route " + rest
		}
	}
	return ""
}
