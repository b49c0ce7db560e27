// Package ragtriage builds ragtriage's production guard in one call: the
// embedded judges (package guard/lexical) under the shipped profile or one
// calibrated on your traffic, with its thresholds and pass rule, and, for
// what they leave uncertain, an LLM fallback judge behind a cascade (package
// cascade: circuit breaker, cache, concurrency limit, deadline check,
// budget), read with a fallback policy; one Close stops what it started.
//
//	fallback, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{Model: "gpt-4o-mini", APIKey: os.Getenv("OPENAI_API_KEY")})
//	if err != nil {
//		return err // llmjudge.ErrNoAPIKey when the key is empty
//	}
//	g, err := ragtriage.New(
//		ragtriage.WithProfileFile("profile.json"), // from `ragtriage calibrate`; leave out for the shipped one
//		ragtriage.WithFallback(fallback, guard.UniformPolicy(0.3, 0.7), guard.FailClosed),
//	)
//	if err != nil {
//		return err
//	}
//	defer g.Close(context.Background())
//	res, err := g.Evaluate(ctx, sample) // res.Action: allow, block or review
//
// The runnable Example does the same offline, with a simulated fallback.
// A *Guard is a middleware.Evaluator: middleware.WithGuard(g, gate) gates a
// langchaingo chain with it, and middleware.NewShadow(g, …) runs it in
// shadow mode. A guard.Result logs through log/slog without the sample's
// text (guard.Result.LogValue).
//
// # What is checked at construction
//
// New refuses, with an error that says what to change: a profile fitted on
// other features than these judges compute (refit it with `ragtriage
// calibrate`), a nil or typed-nil fallback judge (what a constructor
// returns beside its error), a fallback policy that is zero or leaves a
// decision unset (the fallback would be paid and never read), and any
// invalid cascade or guard option.
//
// # Lower levels
//
// The pieces can be put together by hand when this shape does not fit:
// lexical.NewGuard(lexical.WithProfile(p)) for the embedded judges alone,
// cascade.New around any guard.Judge, guard.WithEscalator to attach it
// (then close the cascade yourself), guard.New with judges of your own.
//
// Package ragtriage imports guard, guard/lexical and cascade: no
// langchaingo (the LLM judge is the caller's, from package guard/llmjudge)
// and no evalkit.
package ragtriage
