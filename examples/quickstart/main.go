// Command quickstart wraps a langchaingo RetrievalQA chain with the
// ragtriage middleware and gates four answers inline:
//
//	go run ./examples/quickstart
//
// The guard is the embedded judges under their shipped, calibrated policy,
// which only decides what calibration certified at ≤ 5% error; what they
// leave uncertain is escalated through package cascade to the LLM judge of
// package guard/llmjudge, the fallback. Of the four questions, one passes
// once the fallback has settled what the embedded judges could not; one (a
// wrong number of days) is escalated too, and the fallback settles it as
// unsupported (GENERATOR_UNGROUNDED, blocked); one stays JUDGE_UNCERTAIN
// because the fallback cannot settle it either, and the fail-closed rule
// blocks the answer (action block: an answer nobody could verify is not
// shown); and one is a retrieval miss (the keyword retriever returned a
// passage about something else) that the fallback settles: RETRIEVAL_MISS,
// blocked. Under the shipped profile the embedded judges decide none of the
// four on their own.
//
// It runs offline: the retriever is an in-memory keyword search, the
// generator is a scripted LLM (a simulation that returns canned answers) and
// the fallback judge's model is a scripted stand-in for an LLM (a
// simulation: it replies to the judge's prompts from a small script). With
// OPENAI_API_KEY set, OpenAI both generates the answers and serves as the
// fallback judge (model from OPENAI_MODEL, default gpt-4o-mini;
// OPENAI_BASE_URL points both at another OpenAI-compatible server); the
// outcomes then depend on what the model says.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/ragtriage/ragtriage/examples/internal/demo"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
	"github.com/ragtriage/ragtriage/middleware"
)

func main() {
	p := provider{apiKey: os.Getenv(llmjudge.APIKeyEnv), model: os.Getenv("OPENAI_MODEL"), baseURL: os.Getenv("OPENAI_BASE_URL")}
	if err := run(context.Background(), os.Stdout, p); err != nil {
		log.Fatal(err)
	}
}

// provider is the OpenAI-compatible server to use; no API key means the
// offline simulations.
type provider struct {
	apiKey, model, baseURL string
}

func run(ctx context.Context, w io.Writer, p provider) error {
	var (
		llm     llms.Model
		g       *demo.Guard
		standIn *demo.ScriptedStandInLLM
		err     error
	)
	if p.apiKey != "" {
		llm, g, err = p.connect(w)
	} else {
		llm, g, standIn, err = offline(w)
	}
	if err != nil {
		return err
	}
	defer g.Close(context.Background())
	fmt.Fprintf(w, "embedded judges: shipped profile and calibrated policy; fallback read at fail ≤ %.1f, pass ≥ %.1f; fail-closed\n",
		demo.FallbackThresholds.Fail, demo.FallbackThresholds.Pass)

	chain := gated(llm, g)
	for _, c := range demo.Cases {
		if err := ask(ctx, w, chain, c.Question); err != nil {
			return err
		}
	}
	if standIn != nil {
		fmt.Fprintf(w, "\nscripted stand-in: %d model calls from the fallback judge\n", standIn.Calls())
	}
	return nil
}

// connect makes OpenAI (or the server at p.baseURL) both the generator and
// the fallback judge's model.
func (p provider) connect(w io.Writer) (llms.Model, *demo.Guard, error) {
	if p.model == "" {
		p.model = "gpt-4o-mini"
	}
	opts := []openai.Option{openai.WithToken(p.apiKey), openai.WithModel(p.model)}
	if p.baseURL != "" {
		opts = append(opts, openai.WithBaseURL(p.baseURL))
	}
	llm, err := openai.New(opts...)
	if err != nil {
		return nil, nil, err
	}
	judge, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{BaseURL: p.baseURL, Model: p.model, APIKey: p.apiKey, Timeout: 30 * time.Second})
	if err != nil {
		return nil, nil, err
	}
	g, err := demo.NewGuardWith(judge)
	if err != nil {
		return nil, nil, err
	}
	where := "OpenAI"
	if p.baseURL != "" {
		where = p.baseURL
	}
	fmt.Fprintf(w, "generator: %s %s\nfallback judge: %s %s (llmjudge)\n", where, p.model, where, p.model)
	return llm, g, nil
}

// offline uses the simulations: a scripted generator, and a scripted
// stand-in for the fallback judge's model.
func offline(w io.Writer) (llms.Model, *demo.Guard, *demo.ScriptedStandInLLM, error) {
	g, standIn, err := demo.NewGuard()
	if err != nil {
		return nil, nil, nil, err
	}
	fmt.Fprintln(w, "generator: scripted LLM (offline simulation: canned answers; set OPENAI_API_KEY for a real model)")
	fmt.Fprintln(w, demo.StandInLabel)
	return &demo.ScriptedLLM{}, g, standIn, nil
}

// gated is a RetrievalQA chain on llm, wrapped by the middleware with g.
// Block (a confident failure, or an escalation the fallback could not
// settle, under the fail-closed rule): return an error. Review (no fallback
// settled it and none was tried): replace the answer.
func gated(llm llms.Model, g *demo.Guard) chains.Chain {
	qa := chains.NewRetrievalQAFromLLM(llm, demo.Retriever{K: 1})
	return middleware.Wrap(qa, middleware.WithGuard(g, middleware.Gate{
		Block:        middleware.ReturnError,
		Review:       middleware.ReplaceAnswer,
		FallbackText: "I'm not sure; a colleague will check and get back to you.",
	}))
}

// ask runs one question through chain and prints the answer (or why it was
// withheld), then how the guard decided.
func ask(ctx context.Context, w io.Writer, chain chains.Chain, question string) error {
	callCtx, outcome := middleware.WithOutcome(ctx)
	answer, err := chains.Run(callCtx, chain, question)
	fmt.Fprintf(w, "\nQ: %s\n", question)
	var gate *middleware.GateError
	switch {
	case errors.As(err, &gate):
		fmt.Fprintln(w, withheld(gate))
	case err != nil:
		return err
	default:
		fmt.Fprintf(w, "A: %s\n", answer)
	}
	r := &outcome.Result
	fmt.Fprintf(w, "   generated: %q from %s\n", outcome.Sample.Answer, contextList(outcome.Sample.Contexts))
	if fb := r.Fallback; fb != nil {
		fmt.Fprintf(w, "   embedded judges uncertain on %s → escalated to %s: %d settled, %d unsettled",
			decisionList(fb.Decisions), fb.Judge, fb.Settled, fb.Unsettled)
		if fb.Reason != "" {
			fmt.Fprintf(w, " (%s)", fb.Reason)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "   decided by the embedded judges alone; the fallback was not asked")
	}
	fmt.Fprintf(w, "   diagnosis %s, confidence %.2f, route %s, action %s: %s\n", r.Diagnosis, r.Confidence, r.Route, r.Action, r.Reason)
	return nil
}

// withheld says why the gate withheld an answer, in the words of its
// action: blocked is blocked, also when the fail-closed rule blocks an
// escalation the fallback could not settle; review is withheld for review.
func withheld(gate *middleware.GateError) string {
	d := guard.Diagnosis("")
	if gate.Result != nil {
		d = gate.Result.Diagnosis
	}
	switch {
	case gate.Action == guard.Block && d == guard.JudgeUncertain:
		return "blocked: JUDGE_UNCERTAIN (fail-closed: neither the guard nor the fallback could verify the answer)"
	case gate.Action == guard.Block:
		return fmt.Sprintf("blocked: %s", d)
	}
	return fmt.Sprintf("withheld for review: %s (the guard could not verify the answer)", d)
}

func contextList(cs []guard.Context) string {
	if len(cs) == 0 {
		return "no context"
	}
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.ID
	}
	return "context " + strings.Join(s, ", ")
}

func decisionList(ds []guard.Decision) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return strings.Join(s, ", ")
}
