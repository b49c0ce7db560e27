// Package guard decides, for each answer a RAG application produces, whether
// to pass it automatically, fail it automatically or escalate it to a more
// expensive fallback judge (or a human), and says why.
//
// # How it decides
//
// Judges estimate atomic decisions as probabilities: for a [Sample] (question,
// retrieved contexts, answer and an optional reference answer), a [Judge]
// answers each [Decision] it is asked — the relevance of each chunk, whether
// the contexts suffice, whether they conflict, whether the answer is
// relevant, grounded, contradicted by the contexts and, only when the sample
// has a reference, correct — with an [Estimate]: P(true) in [0, 1], or an
// abstention. A judge that errors, panics, returns a NaN or out-of-range
// probability, or does not stop when its context is cancelled makes its
// decisions uncertain; it never makes an answer pass.
//
// A two-sided [Policy] turns each probability into a [Verdict] with one
// [Thresholds] per decision. P is always P(the decision's proposition is
// true), and a verdict speaks for the answer: [Pass] is healthy, [Fail]
// unhealthy. For most decisions P ≥ Pass is [Pass] and P ≤ Fail is [Fail];
// for the adverse ones, context_conflict and contradiction, P ≤ Fail
// (confidently no conflict) is [Pass] and P ≥ Pass is [Fail]. Anything
// between is [Uncertain], as is an abstention or an unset threshold. The zero
// Policy makes everything uncertain, so an unconfigured guard escalates
// rather than passes.
//
// [Diagnose] reads the verdicts in a fixed precedence — CONFLICTING_EVIDENCE,
// RETRIEVAL_MISS, RETRIEVAL_INSUFFICIENT, ANSWER_IRRELEVANT,
// GENERATOR_UNGROUNDED, ANSWER_INCORRECT, JUDGE_UNCERTAIN, PASS — and gives
// the first that applies, with a confidence and a [Route]: [Auto] for a
// confident finding, [Fallback] for JUDGE_UNCERTAIN. [WithDiagnoser] replaces
// the rules.
//
// [Guard.Evaluate] does all of this for one sample and returns a [Result]:
// the probabilities and verdicts per decision, the diagnosis, the evidence,
// the definitions and rules it used, and what each judge failed at. Its JSON
// form is stable: a probability a judge could not give is null, and
// correctness is absent without a reference. Evaluate returns an error only
// when it has no result (an invalid sample: [ErrInvalidSample]); a failed
// judge is part of the result ([Result].Errors, [Result.Err]), never an
// error beside it.
//
// # Getting a guard
//
// The production shape — the embedded judges, a calibrated profile, a
// cascade to an LLM fallback, one Close — is one call:
// [github.com/ragtriage/ragtriage.New]. For the embedded judges alone,
// [github.com/ragtriage/ragtriage/guard/lexical.NewGuard] returns a guard
// with the judges (deterministic, no network, no model) and the policy
// calibrated with them (lexical.WithProfile loads another profile, with its
// thresholds):
//
//	g, err := lexical.NewGuard()
//	if err != nil {
//		return err
//	}
//	res, err := g.Evaluate(ctx, guard.Sample{
//		Question: "How long do refunds take?",
//		Contexts: []guard.Context{{ID: "policy#1", Text: "Refunds are processed within 5 business days."}},
//		Answer:   "Refunds take 5 business days.",
//	})
//	if err != nil {
//		return err // no result: the sample is invalid (guard.ErrInvalidSample)
//	}
//	// A judge that failed is listed in res.Errors; its decisions are uncertain.
//	switch res.Action {
//	case guard.Allow:
//		// serve the answer
//	case guard.Block:
//		// withhold it; res.Diagnosis and res.Reason say why
//	default: // guard.Review
//		// undecided: ask a human, or configure a fallback (below)
//	}
//
// # Escalation to a fallback judge
//
// [WithEscalator] gives the guard a fallback for what its judges leave
// uncertain (package cascade wraps an LLM judge in a circuit breaker, cache,
// deadline and budget), read with a fallback policy of its own
// ([UniformPolicy] builds one; a zero policy is refused). Only an answer diagnosed JUDGE_UNCERTAIN is
// escalated, and only its uncertain decisions (chunk relevance only while no
// chunk passes); the fallback's estimates are read with the fallback's own
// policy and the answer is diagnosed again, with route Fallback and
// [Result].Fallback saying what was asked, what was settled and why the rest
// was not. Whatever stays unsettled keeps the diagnosis JUDGE_UNCERTAIN and
// the [Degrade] rule sets the action: [FailClosed] blocks, [FailOpen]
// allows — never a silent pass. The rule covers an unavailable fallback
// only: a failed primary judge or a request that ended (cancelled or past
// its deadline) before the escalation never yields Allow
// (FailOpen then gives Review). [WithClaims] turns on the advanced
// groundedness mode: a [ClaimExtractor] splits the answer into claims, each
// judged (and escalated) on its own, and groundedness is the weakest claim's.
//
// # Causes
//
// Every reason a result gives for a missing probability or an unsettled
// escalation comes with a [Cause], a stable name ("budget", "deadline",
// "breaker_open", "fallback_failed", …; [Causes] lists them) in the JSON
// form, and each cause has a sentinel error. [Abstention].Cause says why a
// decision has no probability; [FallbackInfo].Cause names its Reason and
// [FallbackInfo].Causes counts the unsettled decisions by cause;
// [JudgeError].Cause says whose failure it was. Match them with errors.Is,
// never by the reason's text:
//
//	if errors.Is(res.Fallback.Err(), guard.ErrFallbackBudget) {
//		// the fallback's budget left a decision unsettled
//	}
//
// An [Escalator] reports its own causes by setting [Estimate].Cause on the
// estimates it returns abstained (package cascade does, and exports the
// same sentinels: cascade.ErrBudget is [ErrFallbackBudget]).
//
// Any function can be a judge through [JudgeFunc], and [WithJudge] routes
// decisions to judges (a later WithJudge takes over the decisions it names).
// A [Calibrated] judge brings its policy: without [WithPolicy] each decision
// is read with the policy of the judge that answers it. Constructors refuse
// a nil collaborator, and a nil pointer in an interface (what a failed
// constructor returns beside its error), with an error.
//
// A [Result] is JSON (its form is stable) and a [log/slog.LogValuer]: it
// logs as a compact group without the sample's text.
// Package [github.com/ragtriage/ragtriage/guard/guardtest] has fakes and a
// conformance test for judges.
//
// # Concurrency
//
// A [Guard] is immutable after [New] and safe for concurrent use: call
// Evaluate from as many goroutines as you like. Judges and Diagnosers must be
// safe for concurrent use, since the guard calls them from all of those
// goroutines. [Sample], [Policy], [Thresholds] and [Result] are plain values:
// share them freely as long as nobody modifies them. Evaluate calls an
// [Inline] judge (one that does no I/O) on the caller's goroutine, and any
// other judge on a goroutine of its own when ctx can be cancelled, so that a
// judge ignoring cancellation cannot hold the caller past its deadline; such a
// judge keeps running, and reading the sample, until it returns, so do not
// modify the sample's contexts after a deadline until the judge has had time
// to return. Those abandoned calls are counted ([Guard.Abandoned]) and
// bounded ([WithAbandonLimit], 256 by default): past the bound, a judge that
// would run on a goroutine of its own is not called, and its decisions are
// uncertain with [ErrAbandonLimit], until enough of them have returned.
//
// Within one Evaluate, calls that are independent of each other and wait on
// something slow run concurrently, at most [DefaultConcurrency] (4) at a
// time unless [WithConcurrency] says otherwise: the judges that are not
// Inline, the claims of an answer in claims mode when the groundedness judge
// is not Inline, and the fallback escalations of uncertain claims. Inline
// judges always run one after another on the caller's goroutine. Answers
// are read in the order the judges were given and the claims in answer
// order, so with judges that answer each call on its own the result does not
// depend on the bound (a cascade's budget, shared by concurrent escalations,
// may be spent in a different order).
//
// # Cost
//
// With an inline judge and five contexts, Evaluate adds about 1.9 µs and 8
// allocations (3.3 KB) per call to what the judge itself costs (one of those
// allocations is the judge's own estimate slice; BenchmarkEvaluateFixed on a
// 2-core AMD EPYC). A judge that runs on its own goroutine adds about 2.3 µs
// and 3 allocations more (BenchmarkEvaluateGoroutine).
package guard
