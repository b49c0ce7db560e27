package llmjudge_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
)

// A judge over an OpenAI-compatible server. The server here is the
// in-process fake (a simulation that answers "Yes" with probability 0.8);
// point BaseURL at vLLM, llama.cpp, Ollama or OpenAI in production.
func ExampleNewOpenAI() {
	srv := fakeopenai.New(func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.YesNo(0.8, "Yes") })
	defer srv.Close()
	base := &http.Transport{}
	defer base.CloseIdleConnections()

	j, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{BaseURL: srv.URL, Model: "judge", APIKey: "local", Base: base})
	if err != nil {
		panic(err)
	}
	s := &guard.Sample{Question: "When do refunds close?", Contexts: []guard.Context{{ID: "c1", Text: "Refunds close after 30 days."}}, Answer: "After 30 days."}
	out, err := j.Judge(context.Background(), guard.Request{Sample: s, Decisions: []guard.Decision{guard.AnswerRelevance}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s P=%.2f calls=%d\n", out[0].Decision, out[0].P, out[0].Usage.Calls)
	// Output: answer_relevance P=0.80 calls=1
}

// Without an API key the constructor fails before any request.
func ExampleNewOpenAI_noKey() {
	_, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{Model: "gpt-4o-mini"})
	fmt.Println(err)
	// Output: llmjudge: no API key (set OPENAI_API_KEY; local servers that ignore it accept any non-empty value)
}
