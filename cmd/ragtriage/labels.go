package main

// labelsHelpText is "ragtriage help labels": the short form of
// docs/labels.md, for an installed binary (TestLabelsDoc checks that its
// example is the document's worked example).
const labelsHelpText = `Labels: the "expected" object of a dataset row (docs/labels.md in the
repository says more).

A labelled row is one JSON object per line:

  {"id":…,"question":…,"contexts":[{"id":…,"text":…}],"answer":…,"referenceAnswer":…,
   "expected":{"diagnosis":…,
               "retrieval":{"chunkRelevance":{"<context id>":true|false},"contextSufficiency":…,"contextConflict":…},
               "generation":{"answerRelevance":…,"groundedness":…,"contradiction":…,"correctness":…}}}

Every label is optional; an absent label is unlabelled, never false. A
label is true when the decision's proposition holds:

  chunkRelevance.<id>  this context holds information relevant to the question
  contextSufficiency   the contexts together hold enough to answer it
  contextConflict      the contexts materially disagree on something the answer
                       depends on (true is the bad outcome)
  answerRelevance      the answer addresses the question (an honest refusal counts)
  groundedness         every claim of the answer is supported by the contexts
  contradiction        the answer states something the contexts contradict
                       (true is the bad outcome)
  correctness          the answer agrees with referenceAnswer (used only with one)

Verdicts speak for the answer: "pass" is healthy for every decision, so a
contextConflict or contradiction label of false goes with the verdict "pass".

diagnosis is the answer's expected diagnosis: CONFLICTING_EVIDENCE,
RETRIEVAL_MISS, RETRIEVAL_INSUFFICIENT, ANSWER_IRRELEVANT,
GENERATOR_UNGROUNDED, ANSWER_INCORRECT or PASS (JUDGE_UNCERTAIN is the
guard's, not a label). eval scores it; calibrate fits the decision labels.

Labels at the top of "expected" ({"expected":{"groundedness":true}}) are
misplaced and not read: put them under "retrieval" or "generation".

A worked example (90 days where the context says 30):

{"id":"refund-90","question":"How long do I have to ask for a refund?","contexts":[{"id":"refunds","text":"Customers may request a full refund within 30 days of purchase."},{"id":"shipping","text":"Standard shipping takes 3 to 5 business days."}],"answer":"You can get a full refund within 90 days.","expected":{"diagnosis":"GENERATOR_UNGROUNDED","retrieval":{"chunkRelevance":{"refunds":true,"shipping":false},"contextSufficiency":true,"contextConflict":false},"generation":{"answerRelevance":true,"groundedness":false,"contradiction":true}}}

"ragtriage export -records FILE -out rows.jsonl" writes recorded requests
with content as rows with an empty "expected" to fill in.
`
