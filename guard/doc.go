// Package guard decides, for each answer a RAG application produces,
// whether to pass it, fail it or escalate it to a slower fallback judge or a
// human. It also says why.
//
// # How it decides
//
// Judges estimate atomic decisions as probabilities. A [Sample] holds the
// question, the retrieved contexts, the answer and an optional reference
// answer. A [Judge] answers each [Decision] it is asked with an [Estimate]:
// P(true) in [0, 1], or an abstention. The decisions are the relevance of
// each chunk, whether the contexts suffice, whether they conflict, whether
// the answer is relevant, grounded or contradicted by the contexts, and,
// with a reference, whether it is correct. A judge that errors, panics,
// returns a bad probability or ignores cancellation makes its decisions
// uncertain. It never makes an answer pass.
//
// A two-sided [Policy] turns each probability into a [Verdict], with one
// [Thresholds] per decision. P is always P(the decision's proposition is
// true), and a verdict speaks for the answer: [Pass] is healthy, [Fail]
// unhealthy. For most decisions, P ≥ Pass is [Pass] and P ≤ Fail is [Fail].
// For the adverse ones, context_conflict and contradiction, it is the other
// way round. Anything between is [Uncertain], as is an abstention or an
// unset threshold. The zero Policy makes everything uncertain, so an
// unconfigured guard escalates rather than passes.
//
// [Diagnose] reads the verdicts in a fixed precedence: CONFLICTING_EVIDENCE,
// RETRIEVAL_MISS, RETRIEVAL_INSUFFICIENT, ANSWER_IRRELEVANT,
// GENERATOR_UNGROUNDED, ANSWER_INCORRECT, JUDGE_UNCERTAIN, PASS. It gives
// the first that applies, with a confidence and a [Route]: [Auto] for a
// confident finding, [Fallback] for JUDGE_UNCERTAIN. A guard without a
// fallback reports JUDGE_UNCERTAIN with [RouteReview] instead, its reason
// ending "no fallback configured". [WithDiagnoser] replaces the rules.
//
// [Guard.Evaluate] does all of this for one sample and returns a [Result].
// It holds the probabilities and verdicts per decision, the diagnosis, the
// evidence, the definitions and rules used, and what each judge failed at.
// Its JSON form is stable: a probability a judge could not give is null, and
// correctness is absent without a reference. Evaluate returns an error only
// when it has no result, for an invalid sample ([ErrInvalidSample]). A
// failed judge is part of the result ([Result].Errors, [Result.Err]).
//
// # Getting a guard
//
// The production shape is one call: [github.com/ragtriage/ragtriage.New].
// It builds the embedded judges, a calibrated profile, a cascade to an LLM
// fallback, and one Close. For the embedded judges alone,
// [github.com/ragtriage/ragtriage/guard/lexical.NewGuard] returns a guard
// with the judges and the policy calibrated with them. They are
// deterministic and need no network and no model (lexical.WithProfile loads
// another profile):
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
// uncertain, read with a fallback policy of its own ([UniformPolicy] builds
// one; a zero policy is refused). Package cascade wraps an LLM judge in a
// circuit breaker, cache, deadline and budget. Only an answer diagnosed
// JUDGE_UNCERTAIN is escalated, and only its uncertain decisions (chunk
// relevance only while no chunk passes). The guard merges the fallback's
// estimates and diagnoses the answer again, with route Fallback.
// [Result].Fallback says what was asked, what was settled and why the rest
// was not.
//
// Whatever stays unsettled keeps the diagnosis JUDGE_UNCERTAIN, and the
// [Degrade] rule sets the action: [FailClosed] blocks, [FailOpen] allows.
// The rule covers an unavailable fallback only. A failed primary judge, or a
// request that ended before the escalation, never yields Allow: FailOpen
// then gives Review.
//
// [WithClaims] turns on the advanced groundedness mode. A [ClaimExtractor]
// splits the answer into claims. Each is judged on its own, and
// groundedness is the weakest claim's. A [ClaimJudge] judges all claims of
// a sample in one call. When the diagnosis is JUDGE_UNCERTAIN, each
// uncertain claim is escalated on its own, with the other uncertain
// decisions.
//
// # Causes
//
// Every reason a result gives for a missing probability or an unsettled
// escalation comes with a [Cause]. A cause is a stable name in the JSON
// form: "budget", "deadline", "breaker_open", "fallback_failed", and so on
// ([Causes] lists them). Each cause has one sentinel error, and code matches
// causes, never reason texts:
//
//	if errors.Is(res.Fallback.Err(), guard.ErrFallbackBudget) {
//		// the fallback's budget left a decision unsettled
//	}
//
// [Abstention].Cause says why a decision has no probability.
// [FallbackInfo].Cause names its Reason, and [FallbackInfo].Causes counts
// the unsettled decisions by cause. [JudgeError].Cause says whose failure it
// was. An [Escalator] reports its own causes by setting [Estimate].Cause on
// the estimates it returns abstained; package cascade does.
//
// Any function can be a judge through [JudgeFunc]. [WithJudge] routes
// decisions to judges; a later WithJudge takes over the decisions it names.
// A [Calibrated] judge brings its policy: without [WithPolicy], each
// decision is read with the policy of the judge that answers it.
// Constructors refuse a nil collaborator with an error, including a nil
// pointer in an interface.
//
// A [Result] is JSON and a [log/slog.LogValuer]: it logs as a compact group
// without the sample's text. Package
// [github.com/ragtriage/ragtriage/guard/guardtest] has fakes and a
// conformance test for judges.
//
// # Teacher draws
//
// [WithDraws] sends a uniform random share of the answers to the teacher,
// the escalator, whatever the embedded verdicts: explore draws any answer,
// audit draws those the embedded judges decided on their own. Evaluate
// decides the draw ([Result.Draw], deterministic from the seed and the
// sample's ID); [Guard.Teach] asks the teacher, off the request path, and
// records its verdicts in [Result.Teacher], beside the result's own, which
// it never changes. [AuditOutcomes] compares the two per decision side.
// A [FeatureJudge], such as the embedded lexical judges, puts its raw
// feature vectors on its estimates; the guard gathers them into
// [Result.Features], so that records can teach with no user text.
//
// # Concurrency
//
// A [Guard] is immutable after [New] and safe for concurrent use. Judges and
// Diagnosers must be safe for concurrent use too. [Sample], [Policy],
// [Thresholds] and [Result] are plain values: share them freely as long as
// nobody modifies them.
//
// Evaluate calls an [Inline] judge, one that does no I/O, on the caller's
// goroutine. So it does an escalator that is a [ContextHonourer], such as a
// cascade. Any other judge runs on a goroutine of its own when ctx can end,
// so that a judge ignoring cancellation cannot hold the caller past its
// deadline. Such a judge keeps running, and reading the sample, until it
// returns. Do not modify the sample's contexts after a deadline until the
// judge has had time to return. These abandoned calls are counted
// ([Guard.Abandoned]) and bounded ([WithAbandonLimit], 256 by default). Past
// the bound, a judge that would run on its own goroutine is not called: its
// decisions are uncertain, with [ErrAbandonLimit].
//
// Within one Evaluate, independent calls that wait on something slow run
// concurrently, at most [DefaultConcurrency] (4) at a time unless
// [WithConcurrency] says otherwise. These are the judges that are not
// Inline, the claims in claims mode when their judge is not Inline, and the
// escalations of uncertain claims. Answers are read in the order the judges
// were given, and claims in answer order. So with judges that answer each
// call on its own, the result does not depend on the bound. (A cascade's
// budget, shared by concurrent escalations, may be spent in another order.)
//
// # Cost
//
// With an inline judge and five contexts, Evaluate adds about 1.9 µs and 8
// allocations (3.3 KB) per call to what the judge costs. One of those
// allocations is the judge's own estimate slice (BenchmarkEvaluateFixed on a
// 2-core AMD EPYC). A judge that runs on its own goroutine adds about 2.3 µs
// and 4 allocations more (BenchmarkEvaluateGoroutine). Configured teacher
// draws add one allocation (the Draw, 48 B) and a hash of the sample's ID
// when no draw happens, well under 1 µs (BenchmarkLoopDrawsNotDrawn beside
// BenchmarkLoopEscalatorNoDraws; the hash of a 16-byte ID takes about
// 15 ns, BenchmarkDrawUniform). A sample without an ID hashes its texts
// instead, about 0.5 ns per byte (2 µs for 4 KB of contexts): give samples
// an ID, as the middleware does. A FeatureJudge's vectors add two
// allocations (Result.Features and its list).
package guard
