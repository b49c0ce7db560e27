// Command quickstart wraps a langchaingo RetrievalQA chain with the
// ragtriage middleware and gates three answers inline with the embedded
// judges: one passes, one is failed automatically, one is escalated.
//
//	go run ./examples/quickstart
//
// It runs offline: the retriever is an in-memory keyword search and the LLM
// is scripted (a simulation that returns canned answers). With
// OPENAI_API_KEY set it asks OpenAI instead (model from OPENAI_MODEL,
// default gpt-4o-mini), and the outcomes then depend on what the model says.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/ragtriage/ragtriage/examples/internal/demo"
	"github.com/ragtriage/ragtriage/middleware"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	g, err := demo.NewGuard()
	if err != nil {
		return err
	}
	var llm llms.Model = &demo.ScriptedLLM{}
	if key := os.Getenv("OPENAI_API_KEY"); key != "" {
		model := os.Getenv("OPENAI_MODEL")
		if model == "" {
			model = "gpt-4o-mini"
		}
		if llm, err = openai.New(openai.WithToken(key), openai.WithModel(model)); err != nil {
			return err
		}
		fmt.Fprintf(w, "using OpenAI %s\n", model)
	} else {
		fmt.Fprintln(w, "using the scripted LLM (a simulation; set OPENAI_API_KEY for a real one)")
	}

	qa := chains.NewRetrievalQAFromLLM(llm, demo.Retriever{K: 1})
	// Block: return an error; Review: replace the answer with a safe text.
	chain := middleware.Wrap(qa, middleware.WithGuard(g, middleware.Gate{
		Block:        middleware.ReturnError,
		Review:       middleware.ReplaceAnswer,
		FallbackText: "I'm not sure; a colleague will check and get back to you.",
	}))

	for _, c := range demo.Cases {
		callCtx, outcome := middleware.WithOutcome(ctx)
		answer, err := chains.Run(callCtx, chain, c.Question)
		fmt.Fprintf(w, "\nQ: %s\n", c.Question)
		var gate *middleware.GateError
		switch {
		case errors.As(err, &gate):
			fmt.Fprintf(w, "blocked: %s (%s)\n", gate.Result.Diagnosis, gate.Result.Reason)
		case err != nil:
			return err
		default:
			fmt.Fprintf(w, "A: %s\n", answer)
		}
		r := &outcome.Result
		fmt.Fprintf(w, "   generated: %q\n", outcome.Sample.Answer)
		fmt.Fprintf(w, "   diagnosis %s, confidence %.2f, route %s, action %s: %s\n", r.Diagnosis, r.Confidence, r.Route, outcome.Action, r.Reason)
	}
	return nil
}
