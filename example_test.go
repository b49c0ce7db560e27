package ragtriage_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/ragtriage/ragtriage"
	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
)

// simulatedLLMJudge stands in for an LLM fallback judge so that the example
// runs offline. It is a simulation: no model runs. It answers every
// decision it is asked from a fixed table — healthy — except groundedness
// of an answer that says "90 days", which it finds unsupported, as a model
// reading the refund policy would, and the shipping page, which it finds
// irrelevant to a question about a painting.
type simulatedLLMJudge struct{}

func (simulatedLLMJudge) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "simulated-llm", Version: "example"}
}

func (simulatedLLMJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []guard.Estimate
	for _, d := range req.Decisions {
		switch d {
		case guard.ChunkRelevance:
			for _, c := range req.Sample.Contexts {
				p := 0.95
				if c.ID == "shipping" {
					p = 0.05
				}
				out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: p})
			}
		case guard.ContextConflict, guard.Contradiction: // P(true) is the bad outcome
			out = append(out, guard.Estimate{Decision: d, P: 0.05})
		case guard.Groundedness:
			p := 0.95
			if strings.Contains(req.Sample.Answer, "90 days") {
				p = 0.05
			}
			out = append(out, guard.Estimate{Decision: d, P: p})
		default:
			out = append(out, guard.Estimate{Decision: d, P: 0.95})
		}
	}
	return out, nil
}

// The production shape in one call: the embedded judges under the shipped
// profile (its thresholds and pass rule), and what they leave uncertain
// escalated through a cascade to an LLM judge, read with a uniform fallback
// policy, fail-closed. The fallback here is simulatedLLMJudge, a simulation,
// so that the example runs offline; Example_openAI is the same with OpenAI.
//
// Under the shipped profile the embedded judges decide none of the three on
// their own (no threshold of theirs keeps the promise on every source) and
// escalate them; the fallback settles them, the third as a retrieval miss.
func Example() {
	var fallback guard.Judge = simulatedLLMJudge{} // in production: llmjudge.NewOpenAI(…)

	g, err := ragtriage.New(
		// ragtriage.WithProfileFile("profile.json"), // a profile from `ragtriage calibrate`
		ragtriage.WithFallback(fallback, guard.UniformPolicy(0.3, 0.7), guard.FailClosed,
			cascade.WithLimits(cascade.Limits{MaxConcurrent: 8})),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close(context.Background()) // stops the cascade

	question := "How long do I have to ask for a refund?"
	refunds := []guard.Context{{ID: "refunds", Text: "Customers may request a full refund within 30 days of purchase."}}
	shipping := []guard.Context{{ID: "shipping", Text: "Standard shipping takes 5 to 7 business days."}}
	for _, s := range []guard.Sample{
		{Question: question, Contexts: refunds, Answer: "You can get a full refund within 30 days of purchase."},
		{Question: question, Contexts: refunds, Answer: "You can get a full refund within 90 days."},
		{Question: "Who painted the Mona Lisa?", Contexts: shipping, Answer: "Leonardo da Vinci painted it."},
	} {
		// In production, give each request a deadline (context.WithTimeout):
		// the cascade skips the fallback when too little time is left.
		res, err := g.Evaluate(context.Background(), s)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-58q %s, %s (route %s)\n", s.Answer, res.Diagnosis, res.Action, res.Route)
	}
	fmt.Println("fallback calls:", g.Cascade().Stats().Calls)
	// Output:
	// "You can get a full refund within 30 days of purchase."    PASS, allow (route fallback)
	// "You can get a full refund within 90 days."                GENERATOR_UNGROUNDED, block (route fallback)
	// "Leonardo da Vinci painted it."                            RETRIEVAL_MISS, block (route fallback)
	// fallback calls: 3
}

// The fallback is an LLM judge over OpenAI (or any OpenAI-compatible
// server: see docs/fallback.md). Without a key, llmjudge.NewOpenAI returns
// llmjudge.ErrNoAPIKey and a nil judge, which ragtriage.New would refuse.
func Example_openAI() {
	fallback, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{Model: "gpt-4o-mini", APIKey: os.Getenv("OPENAI_API_KEY")})
	if err != nil {
		log.Fatal(err)
	}
	g, err := ragtriage.New(ragtriage.WithFallback(fallback, guard.UniformPolicy(0.3, 0.7), guard.FailClosed))
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close(context.Background())
}
