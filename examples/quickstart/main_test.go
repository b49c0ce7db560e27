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
// question: a pass settled by the fallback, an automatic failure the
// fallback never saw, and an escalation the fallback could not settle.
func TestRun(t *testing.T) {
	var buf bytes.Buffer
	if err := run(context.Background(), &buf, provider{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"fallback judge: scripted stand-in for an LLM",
		"A: Paris is the capital of France.",
		"diagnosis PASS, confidence",
		"route fallback, action allow",
		"blocked: GENERATOR_UNGROUNDED",
		"route auto, action block",
		"decided by the embedded judges alone; the fallback was not asked",
		"withheld for review (fail-closed)",
		"diagnosis JUDGE_UNCERTAIN",
		"samples disagree: 3 yes, 2 no",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\nQ: "); n != 3 {
		t.Errorf("%d questions printed; want 3", n)
	}
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
		"escalated to cascade(llmjudge/fake-model): 3 settled, 0 unsettled",
		"diagnosis PASS, confidence",
		"blocked: GENERATOR_UNGROUNDED",
		"diagnosis JUDGE_UNCERTAIN",
		"samples disagree: 3 yes, 2 no",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if standIn.Calls() == 0 || gen.Calls() != 3 {
		t.Errorf("the fake server answered %d judge and %d generation prompts; want some and 3", standIn.Calls(), gen.Calls())
	}
}
