// Package lexical holds ragtriage's embedded default judges: a [Judge] that
// answers all seven decisions of package guard (chunk relevance, context
// sufficiency and conflict, answer relevance, groundedness, contradiction,
// and correctness when there is a reference) from deterministic lexical
// signals, with no model, no network and no I/O. The same sample always gets
// the same probabilities.
//
// # English only
//
// Every signal is built for English text: the tokenizer's stemming, the
// WordNet 3.0 lexicon (irregular forms, derivations, synonyms, antonyms),
// number words and units, negation cues, refusal and attribution phrases,
// and the vocabulary whose word frequencies weigh the overlap. Text in
// another language still gets probabilities — words that match literally
// still match — but none of that knowledge applies, and the shipped profile
// was fitted on English data only: do not trust its thresholds there.
//
// # What it computes
//
// For each decision a typed feature set ([DecisionFeatures]; every feature
// has a declared direction) is turned into P(true) by a logistic model of a
// versioned [Profile]. Support is sentence-level (IDF-weighted overlap of
// each answer sentence with its best context window), and a confident
// "ungrounded" needs hard evidence — a number, date, name or negation that
// the contexts contradict or do not state; a soft mismatch (other wording)
// stays uncertain and is escalated. Every negative lean comes with evidence
// in the estimate. The README's "The embedded judges" section says what the
// signals can and cannot see, and how well each decision does on every
// source of the development data.
//
// # Profiles
//
// A profile carries the models, the thresholds chosen for them (a
// guard.Policy, with its pass rule), the data it was fitted on and the
// command that refits it. The embedded one, [DefaultProfile], is fitted on
// the public development data in the repository's data/ directory;
// `ragtriage calibrate` fits one on your labelled traffic, which usually
// certifies much more. A profile brings its thresholds with it:
//
//	g, err := lexical.NewGuard()                                        // the shipped profile
//	g, err := lexical.NewGuard(lexical.WithProfileFile("profile.json")) // one of your own
//
// [WithProfile] and [WithProfileFile] bind the judges calibrated by the
// profile to every decision together with its policy; so does
// guard.WithJudge with a judge from [New], since a [Judge] is
// guard.Calibrated. A profile fitted on other features ([FeaturesVersion])
// is refused with an error that says to refit it. For the embedded judges
// with an LLM fallback behind a cascade, ragtriage.New builds everything in
// one call.
//
// # Limits
//
// An evaluation's cost grows linearly with its text: the answer's numbers
// are looked up in indexes of the contexts' (by value and unit, by slot and
// neighbouring word), its sentences reach the context windows through the
// term index, a repeated sentence is searched once, and windows that hold
// the same words of a long run are scored once. Input built to defeat the
// indexes still meets a ceiling: [Limits] bounds a sample's text
// (MaxBytes, 512 KiB by default) and its comparison work (MaxWork, 20
// million units, about 0.2 s on one core). Beyond either, every requested
// decision abstains with the cause guard.CauseInputTooLarge, and the reason
// names the limit and by how much; nothing is read in part. The bundled
// development rows need at most 14 KB and 191,000 units.
//
// One scan is not linear yet: context conflict compares the numbers of one
// context with those of the others, slot or no slot. Two contexts of a few
// thousand numbers each in different slots (a price list beside a distance
// table, ~70 KB) reach MaxWork, and the sample abstains as too large.
//
// The judges look at the request's context every 8,192 units of work
// (a few tens of microseconds). When it ends first they stop, and every
// requested decision abstains with the cause guard.CauseDeadline (or
// guard.CauseCancelled): never a pass.
//
// Memory: an evaluation of a maximum-size sample (512 KiB of numbers, half
// in the answer and half in a context: the worst case measured) allocates
// about 155 MB; one of 512 KiB of short sentences about 5 MB
// (BenchmarkMaxSizeSample). The buffers are pooled and reused by the next
// evaluation, so the peak grows with the evaluations running at once.
// Besides, each Judge keeps what reading a context, a question or a
// reference cost for the texts it meets again, within a budget of
// DefaultTextCache (8 MiB) unless WithTextCache sets another (0: none). A
// text is kept the second time it is read (the first read notes only its
// hash, within the same budget), so texts read once cost no copy.
//
// # Cost and concurrency
//
// About 39 µs of CPU and 16 allocations per Evaluate of five contexts of
// ~120 words with a three-sentence answer and a reference, when its texts
// are read (BenchmarkEvaluateNoCache, cpu-ns/op, median of 20 alternating
// runs on a 2-vCPU AMD EPYC, GOMAXPROCS=1), 26–27 µs when they come from the
// text cache (BenchmarkEvaluate); a HotpotQA row of ten paragraphs read
// afresh about 127 µs on average (BenchmarkEvaluateHotpotQARows, 0.82M
// instructions), a one-context HaluEval row 6 µs (BenchmarkEvaluateHaluEval;
// testdata/bench/speed-2026-12-06.txt, sections 20-23). A sample evaluated
// again right away costs about 0.6 as much on the same instructions: the
// processor predicts its branches and holds its data from the time before
// (BenchmarkEvaluateHotpotQARepeats, section 24). Benchmarks that repeat
// one sample, as BenchmarkEvaluate does, so understate what fresh traffic
// costs; comparing the contexts with each other (ContextConflict) is about
// a third of a fresh ten-paragraph row, and its number-conflict scan a
// sixth: without that scan a row comes near 100 µs, but the scan is what
// finds the real conflicts the judge has labels for (section 25). The raw
// feature vectors the estimates carry (see WithoutFeatures) added 3
// allocations and 1.8 KB there
// (2 and 1.1 KB on a one-context HaluEval row), within the run-to-run noise
// in time, when last measured (2026-12-04). The lexicon and vocabulary tables are built on first
// use from lexicon.tsv (WordNet 3.0, compiled once) and vocab.txt, read in
// place, into about 6.4 MB of heap. BenchmarkNewGuard rebuilds them every
// iteration: about 8.1 ms on a 2-vCPU machine (GOMAXPROCS=1), against 178–274
// ms before the lexicon was
// compiled (testdata/bench/speed-2026-12-03.txt). A request computes the
// features of the decisions it asks for only: on that sample, groundedness
// alone costs about half of all seven, correctness alone about 40%
// (BenchmarkJudgeDecision).
// [Judge.JudgeClaims] analyses the question and the contexts once for all
// claims: six one-sentence claims cost about a quarter of six Groundedness
// requests (BenchmarkJudgeClaims against BenchmarkClaimsPerCall). A [Judge] is immutable and safe for concurrent use; it
// runs on the caller's goroutine (it is guard.Inline).
package lexical
