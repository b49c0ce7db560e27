// Package llmjudge holds judges backed by langchaingo: a guard.Judge over any
// llms.Model (one versioned yes/no prompt per decision), an embedding judge
// over embeddings.Embedder that gives a similarity floor for chunk
// relevance, and a guard.ClaimExtractor for the advanced groundedness mode.
// It is, with package middleware, the only package of the module that
// imports langchaingo; package cascade runs these judges as the fallback.
//
// Probabilities. P(yes) comes from the first token's log-probabilities when
// the model's server returns them. langchaingo v0.1.14 neither asks for
// them nor exposes them, so the OpenAI client must send its requests
// through a Transport (NewOpenAI does this): the Transport adds "logprobs"
// and "top_logprobs" to chat completions whose context carries a Logprobs
// side channel and reads them back from the response. Where there are none
// (a server without logprobs, such as older Ollama, or another provider),
// the judge samples Config.Samples answers and uses the share of yes; it
// abstains when the samples disagree beyond Config.MaxDisagreement. A reply
// that is neither yes nor no — a refusal, an explanation, garbage — is an
// abstention, never 0 or 1.
//
// Groundedness is fail-closed: the prompt asks the model to quote its
// evidence ("QUOTE [c1]: …"), each quote is looked up in the named context
// after normalization (case, white space, typographic quotes and dashes,
// "…" between fragments), must be a few words long and share a content
// word with the answer; an estimate of 0.5 or more needs every quote found.
// A quote that is not there never yields "grounded": the judge abstains (or,
// sampling, counts that sample as a no).
//
// Prompt injection. Every piece of sample text goes into the user message,
// inside blocks opened and closed by lines that carry a code derived from a
// SHA-256 of the prompt's data; text that imitates block lines is defanged;
// the system message says that block content is data and never instructs.
// The tests check the structure against injected instructions, fake closing
// delimiters and text claiming to be the system, and check that the replies
// a hijacked model would give cannot produce a confident "grounded". A
// yes/no decision other than groundedness has no such check: a model that
// obeys an injection can still mislead it.
//
// Usage:
//
//	j, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{
//		BaseURL: "http://localhost:8000/v1", // vLLM, llama.cpp, Ollama, OpenAI…
//		Model:   "qwen2.5-7b-instruct",
//		APIKey:  os.Getenv(llmjudge.APIKeyEnv),
//	})
//	if err != nil {
//		return err // ErrNoAPIKey when the key is empty; j is nil then
//	}
//	g, err := ragtriage.New(ragtriage.WithFallback(j, guard.UniformPolicy(0.3, 0.7), guard.FailClosed))
//	if err != nil {
//		return err
//	}
//	defer g.Close(context.Background())
//
// ragtriage.New puts the embedded judges in front and a cascade (breaker,
// cache, deadline, budget) around the judge. When the judge samples, its
// estimates are 0, 0.2, 0.8 or 1 (five votes by default; it abstains when
// more than one dissents), so guard.UniformPolicy(0.3, 0.7) reads it by
// majority. docs/fallback.md says how to point the judge at each kind of
// server.
package llmjudge
