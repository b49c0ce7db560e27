// Package otelkeys names every OpenTelemetry span, event, attribute and
// metric that ragtriage writes, in one place, so that the writer (package
// middleware) and the reader (evalkit/otlp.Read) agree on them.
//
// The gen_ai.* names follow the OpenTelemetry GenAI semantic conventions as
// of semconv v1.41.0, the last Go release that carried them; Go's later
// semconv packages dropped them, so they are declared here. The
// openinference.* / input.value / output.value names follow the OpenInference
// conventions. Names under ragtriage.* are this project's own. Everything in
// the GenAI conventions is of "Development" stability.
//
// The package is stdlib only and holds nothing but constants: import it from
// anywhere.
package otelkeys

// ScopeName is the instrumentation scope of everything ragtriage records.
const ScopeName = "github.com/ragtriage/ragtriage/middleware"

// Span names. Retrieval and generation spans append the data source or the
// model ("retrieval kb", "chat gpt-4o-mini") as the GenAI conventions ask.
const (
	SpanChain      = "ragtriage.chain"
	SpanRetrieval  = "retrieval"
	SpanGeneration = "chat"
	SpanEvaluation = "ragtriage.evaluate"
)

// EventEvaluationResult is the name of the event an evaluation span carries
// once per decision (once per context for chunk relevance).
const EventEvaluationResult = "gen_ai.evaluation.result"

// EventAnswerBlocked is the event an evaluation span carries when the
// guard's action is block (in shadow mode: would have been). A blocked answer
// is an outcome, not an error: the span's status is not set to Error for it.
const EventAnswerBlocked = "ragtriage.answer.blocked"

// EventPromiseBroken is the event an evaluation span carries, once per
// decision side, when the promise monitor (guard.WithMonitor) found that
// side broken and the guard withheld its verdict: the decision read as
// uncertain and the answer escalated. Its attributes are
// GenAIEvaluationName (the decision), PromiseSide, EventCause
// ("promise_broken") and PromiseWithheldCount.
const EventPromiseBroken = "ragtriage.promise.broken"

// GenAI semantic-convention attribute keys.
const (
	GenAIOperationName         = "gen_ai.operation.name"
	GenAIProviderName          = "gen_ai.provider.name"
	GenAIRequestModel          = "gen_ai.request.model"
	GenAIResponseFinishReasons = "gen_ai.response.finish_reasons"
	GenAIUsageInputTokens      = "gen_ai.usage.input_tokens"
	GenAIUsageOutputTokens     = "gen_ai.usage.output_tokens"
	GenAIInputMessages         = "gen_ai.input.messages"  // opt-in content
	GenAIOutputMessages        = "gen_ai.output.messages" // opt-in content
	GenAIDataSourceID          = "gen_ai.data_source.id"
	GenAIRetrievalQueryText    = "gen_ai.retrieval.query.text" // opt-in content
	GenAIRetrievalDocuments    = "gen_ai.retrieval.documents"  // [{id, score}], no text

	GenAIEvaluationName        = "gen_ai.evaluation.name"
	GenAIEvaluationScoreValue  = "gen_ai.evaluation.score.value"
	GenAIEvaluationScoreLabel  = "gen_ai.evaluation.score.label"
	GenAIEvaluationExplanation = "gen_ai.evaluation.explanation"
)

// Values of GenAIOperationName.
const (
	OperationRetrieval = "retrieval"
	OperationChat      = "chat"
)

// Values of GenAIEvaluationScoreLabel: the policy's verdict on the decision.
const (
	LabelPass      = "pass"
	LabelFail      = "fail"
	LabelUncertain = "uncertain"

	// VerdictsForAnswer is the value of Verdicts.
	VerdictsForAnswer = "answer"
)

// OpenInference attribute keys.
const (
	OpenInferenceSpanKind = "openinference.span.kind"
	InputValue            = "input.value"  // opt-in content
	OutputValue           = "output.value" // opt-in content
)

// Values of OpenInferenceSpanKind.
const (
	KindChain     = "CHAIN"
	KindRetriever = "RETRIEVER"
	KindLLM       = "LLM"
	KindEvaluator = "EVALUATOR"
)

// ragtriage attribute keys on the chain span.
const (
	// ChainName names the wrapped chain (its Go type unless configured).
	ChainName = "ragtriage.chain.name"
	// SampleID is the ID of the sample, on the chain and evaluation spans.
	SampleID = "ragtriage.sample.id"
	// Mode is "inline", "shadow" or "off".
	Mode = "ragtriage.mode"
	// Gated is true on the chain span when inline gating changed the output
	// (replaced the answer or returned an error).
	Gated = "ragtriage.gated"
	// ShadowOutcome says what became of a shadow sample: "queued",
	// "sampled_out", "filtered", "dropped" or "closed".
	ShadowOutcome = "ragtriage.shadow.outcome"
	// RetrievalDocumentCount is the number of documents a retrieval returned.
	RetrievalDocumentCount = "ragtriage.retrieval.document_count"
	// RetrievalDocumentIDs lists the retrieved documents' IDs, in order.
	RetrievalDocumentIDs = "ragtriage.retrieval.document.ids"
	// RetrievalDocumentTexts lists their texts (opt-in content).
	RetrievalDocumentTexts = "ragtriage.retrieval.document.texts"
)

// ragtriage attribute keys on the evaluation span.
const (
	Diagnosis        = "ragtriage.diagnosis"
	DiagnosisVersion = "ragtriage.diagnosis.version"
	Confidence       = "ragtriage.confidence"
	Route            = "ragtriage.route"
	Action           = "ragtriage.action"
	Reason           = "ragtriage.reason"
	DecisionID       = "ragtriage.decision.id"
	DecisionVersion  = "ragtriage.decision.version"
	DecisionVariant  = "ragtriage.decision.variant"
	// Verdicts says what the gen_ai.evaluation.score.label of the
	// decision events speaks for. It is VerdictsForAnswer: "pass" is
	// healthy for the answer on every decision. Spans without it were
	// written before that, when "pass" on context_conflict and
	// contradiction meant "confidently true" (a conflict, a
	// contradiction); readers swap pass and fail on those two.
	Verdicts  = "ragtriage.verdicts"
	LatencyMs = "ragtriage.latency_ms"
	// Judges lists the judges as "name@version" strings.
	Judges = "ragtriage.judges"
	// JudgeErrors lists the judges that failed.
	JudgeErrors = "ragtriage.judge_errors"
	// JudgeErrorCauses lists the cause (a guard.Cause name) of each failure
	// of JudgeErrors, in the same order.
	JudgeErrorCauses = "ragtriage.judge_errors.causes"
	// ContextIDs lists the sample's context IDs in retrieval order (IDs only,
	// never text), so a reader can tell a dropped chunk event from an absent
	// context.
	ContextIDs = "ragtriage.context.ids"
	// EvidenceKinds lists what the result's evidence shows, as
	// "decision:kind" strings ("groundedness:number_mismatch",
	// "answer_relevance:refusal"), sorted and unique; absent when the
	// judges gave no evidence. Decisions are the seven decision names and
	// kinds the guard's evidence kinds (guard.EvidenceKind); a custom
	// judge's decision or kind outside them is EvidenceOther. It names no
	// text, number or context ID: it is written with or without content
	// capture, and its values are a fixed, small set.
	EvidenceKinds = "ragtriage.evidence.kinds"
	// PromiseWithheld lists the verdicts the promise monitor withheld, as
	// "decision/side" strings ("groundedness/pass"), sorted and unique;
	// absent when none was.
	PromiseWithheld = "ragtriage.promise.withheld"
	// EvaluationError is the evaluation's error, when it had one.
	EvaluationError = "ragtriage.evaluation.error"
	// ShadowTimedOut is true on a shadow evaluation whose deadline
	// (middleware.ShadowConfig.Timeout) passed before the evaluator
	// returned.
	ShadowTimedOut = "ragtriage.shadow.timed_out"

	FallbackJudge     = "ragtriage.fallback.judge"
	FallbackDecisions = "ragtriage.fallback.decisions"
	FallbackContexts  = "ragtriage.fallback.contexts"
	FallbackSettled   = "ragtriage.fallback.settled"
	FallbackUnsettled = "ragtriage.fallback.unsettled"
	FallbackReason    = "ragtriage.fallback.reason"
	// FallbackCause is the cause (a guard.Cause name: "budget", "deadline",
	// "breaker_open", …) of FallbackReason.
	FallbackCause = "ragtriage.fallback.cause"
	// FallbackCauses lists the cause of each unsettled decision (one entry
	// per decision, guard.Causes order), so that it holds
	// ragtriage.fallback.unsettled entries.
	FallbackCauses    = "ragtriage.fallback.causes"
	FallbackRule      = "ragtriage.fallback.rule"
	FallbackLatencyMs = "ragtriage.fallback.latency_ms"
	// What the fallback judge's estimates spent (part of the usage totals).
	FallbackInputTokens  = "ragtriage.fallback.usage.input_tokens"
	FallbackOutputTokens = "ragtriage.fallback.usage.output_tokens"
	FallbackCalls        = "ragtriage.fallback.usage.calls"
	FallbackRetries      = "ragtriage.fallback.usage.retries"

	UsageInputTokens  = "ragtriage.usage.input_tokens"
	UsageOutputTokens = "ragtriage.usage.output_tokens"
	UsageCalls        = "ragtriage.usage.calls"
	UsageRetries      = "ragtriage.usage.retries"

	// The sample's content, on the evaluation span only when content capture
	// is on, after the redaction hook.
	SampleQuestion         = "ragtriage.sample.question"
	SampleOriginalQuestion = "ragtriage.sample.original_question"
	SampleAnswer           = "ragtriage.sample.answer"
	SampleReference        = "ragtriage.sample.reference"
	SampleContextTexts     = "ragtriage.sample.context.texts" // parallel to ContextIDs
)

// Attribute keys on a gen_ai.evaluation.result event besides the GenAI ones.
const (
	// EventContextID names the context of a chunk_relevance event.
	EventContextID = "ragtriage.context.id"
	// EventJudge names the judge whose estimate the event reports.
	EventJudge = "ragtriage.judge"
	// EventCause is the cause (a guard.Cause name) of an event without a
	// score: why the decision has no probability.
	EventCause = "ragtriage.cause"
	// EventEvidenceKinds lists the kinds of the event's decision's
	// evidence ("number_mismatch", ...), sorted and unique; for chunk
	// relevance, those about the event's context. Absent without
	// evidence. Like EvidenceKinds, it names no text.
	EventEvidenceKinds = "ragtriage.evidence.kinds"
)

// Attribute keys on a ragtriage.promise.broken event (and of
// MetricPromiseWithheld).
const (
	// PromiseDecision names the decision of MetricPromiseWithheld (the
	// event uses GenAIEvaluationName).
	PromiseDecision = "ragtriage.promise.decision"
	// PromiseSide is the side whose verdict was withheld: "pass" or "fail".
	PromiseSide = "ragtriage.promise.side"
	// PromiseWithheldCount is how many verdicts of the side the result
	// withheld (several for chunk relevance: one per context).
	PromiseWithheldCount = "ragtriage.promise.withheld_count"
)

// EvidenceOther stands, in EvidenceKinds and EventEvidenceKinds, for an
// evidence kind or a decision outside the fixed lists, so that a custom
// judge cannot widen the set of values.
const EvidenceOther = "other"

// Metric names and their attribute keys.
const (
	// MetricEvaluations counts evaluations by route, diagnosis, action and mode.
	MetricEvaluations = "ragtriage.evaluations"
	// MetricGuardDuration is a histogram of the guard's latency in seconds.
	MetricGuardDuration = "ragtriage.guard.duration"
	// MetricShadowDropped counts shadow samples dropped because the queue was
	// full or the shadow evaluator was shut down.
	MetricShadowDropped = "ragtriage.shadow.dropped"
	// MetricShadowTimeouts counts shadow evaluations whose deadline
	// (middleware.ShadowConfig.Timeout) passed before the evaluator
	// returned.
	MetricShadowTimeouts = "ragtriage.shadow.timeouts"
	// MetricPromiseWithheld counts evaluations in which the guard withheld
	// verdicts of a decision side the promise monitor found broken, by
	// Mode, PromiseDecision and PromiseSide: while it grows, that side
	// escalates instead of deciding.
	MetricPromiseWithheld = "ragtriage.promise.withheld"
	// MetricSinkErrors counts records the sink failed to write.
	MetricSinkErrors = "ragtriage.sink.errors"
	// MetricSinkDropped counts records never handed to the sink: the
	// chain's record queue was full or shut down, or Shutdown gave up
	// before they were written.
	MetricSinkDropped = "ragtriage.sink.dropped"
	// MetricEstimateRows, MetricEstimateFailWeight,
	// MetricEstimateFailVariance and MetricEstimateUnusable are the
	// traffic-estimate counters (docs/estimates.md), by EstimateDecision:
	// answers with a verdict for the decision; Σ y/π over the answers
	// whose final verdict is known (y = 1 for fail, π the inclusion
	// probability: 1 for the embedded judges' own verdicts, the fallback
	// share's for escalated ones), the Horvitz–Thompson total of fails;
	// Σ (1 − π) y / π², its variance estimate; and answers that cannot
	// count, by EstimateReason ("no_inclusion", "unsettled"). Share =
	// fail_weight / rows, 95% interval ± 1.96 √fail_variance / rows.
	MetricEstimateRows         = "ragtriage.estimate.rows"
	MetricEstimateFailWeight   = "ragtriage.estimate.fail_weight"
	MetricEstimateFailVariance = "ragtriage.estimate.fail_variance"
	MetricEstimateUnusable     = "ragtriage.estimate.unusable"
	// EstimateDecision is the decision's name (guard.Decision.String) on
	// the estimate metrics; EstimateReason why an answer is unusable.
	EstimateDecision = "ragtriage.estimate.decision"
	EstimateReason   = "ragtriage.estimate.reason"
	// DropReason is the attribute of MetricShadowDropped and
	// MetricSinkDropped: "queue_full", "closed" (after Shutdown began) or
	// "shutdown" (queued, abandoned when Shutdown's context ended).
	DropReason = "ragtriage.drop.reason"
	// MetricTeacherDraws counts the answers drawn for the teacher
	// (guard.WithDraws) once the middleware has taught them, by
	// TeacherOutcome: "answered", or the cause the teacher was refused or
	// failed with ("budget", "breaker_open", "concurrency", "closed",
	// "deadline", "cancelled", "fallback_failed", …).
	MetricTeacherDraws = "ragtriage.teacher.draws"
	// TeacherOutcome is the attribute of MetricTeacherDraws.
	TeacherOutcome = "ragtriage.teacher.outcome"
)

// Evaluation span attributes of the teacher draws (guard.WithDraws).
const (
	// DrawKind is "explore" or "audit"; DrawDrawn whether the answer was
	// drawn; DrawInclusion the probability it had of being drawn. Present
	// whenever draws are configured.
	DrawKind      = "ragtriage.draw.kind"
	DrawDrawn     = "ragtriage.draw.drawn"
	DrawInclusion = "ragtriage.draw.inclusion"
	// TeacherJudge and TeacherCause name the teacher and why it was
	// refused or failed, on the span of a drawn answer taught before the
	// span ended (shadow mode; inline the answer is taught after).
	TeacherJudge = "ragtriage.teacher.judge"
	TeacherCause = "ragtriage.teacher.cause"
)
