package main

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// sources documents where each decision's labels come from.
var sources = map[guard.Decision][]string{
	guard.Groundedness: {"real: halueval, squad_v2 answerable rows (all true), expertqa, factcheckgpt, begin, wice, scitail, mnli, snli, fever_nli, natural",
		"synthetic-squad: squad_v2 answer-bearing sentences used as answers (true), lightly reworded (true), and with a number changed, a negation inserted or an antonym swapped (false)"},
	guard.Contradiction: {"real: mnli, snli (contradiction vs entailment or neutral), natural",
		"synthetic-squad: the perturbed answer-bearing sentences (true) and the unchanged or reworded ones (false)"},
	guard.Correctness:        {"real: truthfulqa, halueval, natural (rows with a reference)"},
	guard.ChunkRelevance:     {"real: hotpotqa (per paragraph), hotpotqa_ablated (all false), squad_v2 answerable rows (all true), factcheckgpt (per passage), natural"},
	guard.ContextSufficiency: {"real: squad_v2, hotpotqa (all true), hotpotqa_ablated (derived, all false), factcheckgpt, natural"},
	guard.AnswerRelevance: {"real: squad_v2, expertqa, natural; halueval answers to their own question (true by construction)",
		"synthetic (at full weight; never used to choose thresholds): answers moved to another question on the same squad_v2 passage, or to a random other halueval question (false), reported under the source they came from"},
	guard.ContextConflict: {"real: factcheckgpt (few positives), natural",
		"synthetic-hotpotqa: hotpotqa context sets (false), the same sets plus a reworded copy of one gold sentence with a number changed, a negation inserted or an antonym swapped (true), and plus an unchanged reworded copy (false)"},
}

// synthWeight is the weight of a synthetic example relative to a real one.
const synthWeight = 0.3

func hashGroup(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("%x", h.Sum64())
}

// groupOfSample is the fold group of a row: rows sharing their first passage
// (or, without contexts, their question) share a fold, so that a question's
// right and wrong answers, a premise's hypotheses and a passage's questions
// never straddle folds.
func groupOfSample(s *guard.Sample) string {
	if len(s.Contexts) > 0 {
		return hashGroup(s.Contexts[0].Text)
	}
	return hashGroup(s.Question)
}

// example is one labelled feature vector.
type example struct {
	x     []float64
	y     bool
	src   int    // index into the names of the sources (see corpus.names)
	group string // rows sharing a group share a fold
	w     float64
	row   int // index into corpus.rows, or -1 for a synthetic example
	ctx   int // context index for chunk relevance
	hard  bool
	synth bool
	// chunks are a sample-level check's chunk feature vectors (see
	// corpus.samples).
	chunks [][]float64
}

// row is one labelled data row with its features.
type row struct {
	src    int
	sample guard.Sample
	exp    *dataset.Expected
	feats  lexical.Features
	group  string
	good   int8 // 1: the answer should pass; 0: it should not; -1: unknown
}

// corpus is every example of every decision, and the rows they came from.
type corpus struct {
	names []string
	rows  []row
	ex    map[guard.Decision][]example
	// samples are chunk relevance's sample-level checks, one per row
	// whose answer is good and grounded (see addGoodSamples). They choose
	// the thresholds and enter the nested check; they are never fitted.
	samples []example
}

func (c *corpus) source(name string) int {
	for i, n := range c.names {
		if n == name {
			return i
		}
	}
	c.names = append(c.names, name)
	return len(c.names) - 1
}

// goodness says whether a row's answer should pass (1), should not (0), or
// its labels do not say (−1); see evalkit.Expected.ShouldPass.
func goodness(e *dataset.Expected) int8 {
	pass, known := e.ShouldPass()
	if !known {
		return -1
	}
	return b2i(pass)
}

func b2i(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// buildCorpus computes every row's features and every example: the real
// labels first, then the synthetic examples, in a fixed order (one random
// stream, seeded), so that the same data give the same corpus.
func buildCorpus(j *lexical.Judge, sets []labelled) *corpus {
	c := &corpus{ex: map[guard.Decision][]example{}}
	by := map[string]*labelled{}
	for i := range sets {
		by[sets[i].name] = &sets[i]
		c.source(sets[i].name)
	}
	for _, ds := range sets {
		c.addRows(j, ds)
	}
	c.addGoodSamples(j)
	rng := rand.New(rand.NewPCG(1, 2))
	c.addMovedAnswers(j, by["squad_v2"], by["halueval"], rng)
	c.addSquadSentences(j, by["squad_v2"], rng)
	c.addConflictSets(j, by["hotpotqa"], rng)
	return c
}

// add appends example e of decision d, with its weight and hard evidence.
func (c *corpus) add(d guard.Decision, e example) {
	if e.synth {
		e.w = synthWeight
		if d == guard.AnswerRelevance {
			// Real off-topic answers are few: answers moved to
			// another question are the main negatives, at full weight.
			e.w = 1
		}
	} else {
		e.w = 1
	}
	e.hard = lexical.HardEvidence(d, e.x)
	c.ex[d] = append(c.ex[d], e)
}

// addRows keeps every row of a labelled file, and one example for each
// label a row has.
func (c *corpus) addRows(j *lexical.Judge, ds labelled) {
	src := c.source(ds.name)
	for _, r := range ds.rows {
		s := r.Sample
		ri := len(c.rows)
		c.rows = append(c.rows, row{src: src, sample: s, exp: r.Expected, feats: j.Features(&s), group: groupOfSample(&s), good: goodness(r.Expected)})
		if r.Expected != nil {
			c.addLabels(ds.name, ri)
		}
	}
}

// addGoodSamples adds one sample-level check of chunk relevance per row
// whose answer should pass (see goodness), whose groundedness label is true
// and whose answer relevance label is not false, in every source, with or
// without chunk labels, when the judge estimates its chunks at all.
//
// The assumption: an answer that is good and grounded in the contexts
// draws on at least one of them, so at least one chunk holds information
// relevant to the question. The fail side of chunk relevance blocks a
// sample as a retrieval miss when every chunk is at or below it, that is
// when the sample's highest chunk P is; on such a sample that is an error.
// The check's P is that highest chunk P, out of fold like the chunks' own,
// and its label is true. It keeps the row's source and fold group, so it
// is clustered with its chunks: one per sample, never one per chunk.
func (c *corpus) addGoodSamples(j *lexical.Judge) {
	for ri := range c.rows {
		rw := &c.rows[ri]
		// Without a content word in the question every chunk abstains:
		// no chunk can fail, so the sample cannot be blocked this way.
		if rw.good != 1 || len(rw.sample.Contexts) == 0 || !j.EstimatesChunks(&rw.sample) {
			continue
		}
		if v, ok := rw.exp.Label(guard.Groundedness); !ok || !v {
			continue
		}
		if v, ok := rw.exp.Label(guard.AnswerRelevance); ok && !v {
			continue
		}
		c.samples = append(c.samples, example{y: true, src: rw.src, group: rw.group, w: 1, row: ri,
			chunks: rw.feats.ChunkRelevance})
	}
}

// addLabels adds the real examples of row ri, from file name.
func (c *corpus) addLabels(name string, ri int) {
	rw := &c.rows[ri]
	e, f, s := rw.exp, rw.feats, &rw.sample
	base := example{src: rw.src, group: rw.group, row: ri}
	label := func(d guard.Decision, x []float64, ok bool) {
		if v, has := e.Label(d); has && ok {
			ex := base
			ex.x, ex.y = x, v
			c.add(d, ex)
		}
	}
	label(guard.Groundedness, f.Groundedness, true)
	label(guard.Contradiction, f.Contradiction, true)
	label(guard.Correctness, f.Correctness, f.Correctness != nil)
	label(guard.ContextSufficiency, f.ContextSufficiency, true)
	label(guard.ContextConflict, f.ContextConflict, len(s.Contexts) >= 2)
	for ci, ctx := range s.Contexts {
		if v, ok := e.ChunkLabel(ctx.ID); ok {
			ex := base
			ex.x, ex.y, ex.ctx = f.ChunkRelevance[ci], v, ci
			c.add(guard.ChunkRelevance, ex)
		}
	}
	// Answer relevance: labels where given; HaluEval's answers (right or
	// hallucinated) answer their own question by construction.
	if v, ok := e.Label(guard.AnswerRelevance); ok {
		ex := base
		ex.x, ex.y = f.AnswerRelevance, v
		c.add(guard.AnswerRelevance, ex)
	} else if name == "halueval" {
		ex := base
		ex.x, ex.y = f.AnswerRelevance, true
		c.add(guard.AnswerRelevance, ex)
	}
}

// addMovedAnswers adds answer relevance negatives: squad_v2 answers moved
// to another question on the same passage, and halueval answers moved to a
// random other question.
func (c *corpus) addMovedAnswers(j *lexical.Judge, squad, halu *labelled, rng *rand.Rand) {
	squadSrc := c.source("squad_v2")
	byPassage := map[string][]int{}
	var passages []string
	for i, r := range squad.rows {
		if v, ok := r.Expected.Label(guard.AnswerRelevance); ok && v {
			k := r.Sample.Contexts[0].Text
			if _, seen := byPassage[k]; !seen {
				passages = append(passages, k)
			}
			byPassage[k] = append(byPassage[k], i)
		}
	}
	for _, p := range passages {
		idx := byPassage[p]
		if len(idx) < 2 {
			continue
		}
		for k, i := range idx {
			other := squad.rows[idx[(k+1)%len(idx)]]
			s := squad.rows[i].Sample
			if strings.EqualFold(strings.TrimSpace(other.Sample.Answer), strings.TrimSpace(s.Answer)) {
				continue
			}
			s.Answer = other.Sample.Answer
			s.Reference = nil
			f := j.Features(&s)
			c.add(guard.AnswerRelevance, example{x: f.AnswerRelevance, y: false, src: squadSrc, group: groupOfSample(&s), row: -1, synth: true})
		}
	}
	haluSrc := c.source("halueval")
	for _, r := range halu.rows {
		k := rng.IntN(len(halu.rows))
		if groupOfSample(&halu.rows[k].Sample) == groupOfSample(&r.Sample) {
			continue
		}
		s := r.Sample
		s.Answer = halu.rows[k].Sample.Answer
		s.Reference = nil
		f := j.Features(&s)
		c.add(guard.AnswerRelevance, example{x: f.AnswerRelevance, y: false, src: haluSrc, group: groupOfSample(&r.Sample), row: -1, synth: true})
	}
}

// addSquadSentences adds contradiction and groundedness examples: the
// answer-bearing sentence of each answerable squad_v2 row as the answer,
// reworded (grounded, not contradicting) and perturbed (contradicting).
func (c *corpus) addSquadSentences(j *lexical.Judge, squad *labelled, rng *rand.Rand) {
	synSquad := c.source("synthetic-squad")
	both := func(s *guard.Sample, group string, grounded bool) {
		f := j.Features(s)
		c.add(guard.Groundedness, example{x: f.Groundedness, y: grounded, src: synSquad, group: group, row: -1, synth: true})
		c.add(guard.Contradiction, example{x: f.Contradiction, y: !grounded, src: synSquad, group: group, row: -1, synth: true})
	}
	for _, r := range squad.rows {
		if v, ok := r.Expected.Label(guard.Groundedness); !ok || !v || r.Sample.Reference == nil {
			continue
		}
		s := r.Sample
		sent := sentenceWith(s.Contexts[0].Text, *s.Reference)
		if sent == "" {
			continue
		}
		group := groupOfSample(&s)
		base := s
		base.Answer = sent
		base.Reference = nil
		f := j.Features(&base)
		c.add(guard.Contradiction, example{x: f.Contradiction, y: false, src: synSquad, group: group, row: -1, synth: true})
		c.add(guard.Groundedness, example{x: f.Groundedness, y: true, src: synSquad, group: group, row: -1, synth: true})
		if re := reword(sent, rng); re != sent {
			rs := base
			rs.Answer = re
			both(&rs, group, true)
		}
		for _, p := range perturb(sent, rng) {
			ps := base
			ps.Answer = p
			f := j.Features(&ps)
			c.add(guard.Contradiction, example{x: f.Contradiction, y: true, src: synSquad, group: group, row: -1, synth: true})
			c.add(guard.Groundedness, example{x: f.Groundedness, y: false, src: synSquad, group: group, row: -1, synth: true})
		}
	}
}

// addConflictSets adds context conflict examples: each hotpotqa context
// set as it is (no conflict), plus a reworded, perturbed copy of one gold
// sentence (a conflict), and plus a reworded unchanged copy (no conflict).
func (c *corpus) addConflictSets(j *lexical.Judge, hotpot *labelled, rng *rand.Rand) {
	synHotpot := c.source("synthetic-hotpotqa")
	for _, r := range hotpot.rows {
		s := r.Sample
		group := groupOfSample(&s)
		f := j.Features(&s)
		c.add(guard.ContextConflict, example{x: f.ContextConflict, y: false, src: synHotpot, group: group, row: -1, synth: true})
		var gold string
		for _, ctx := range s.Contexts {
			if v, ok := r.Expected.ChunkLabel(ctx.ID); ok && v {
				gold = ctx.Text
				break
			}
		}
		sents := splitSentences(gold)
		rng.Shuffle(len(sents), func(a, b int) { sents[a], sents[b] = sents[b], sents[a] })
		for _, sent := range sents {
			ps := perturb(sent, rng)
			if len(ps) == 0 {
				continue
			}
			filler := ""
			if other := splitSentences(s.Contexts[rng.IntN(len(s.Contexts))].Text); len(other) > 0 {
				filler = " " + other[rng.IntN(len(other))]
			}
			conflict := withContext(s, guard.Context{ID: "perturbed", Text: reword(ps[0], rng) + filler})
			f := j.Features(&conflict)
			c.add(guard.ContextConflict, example{x: f.ContextConflict, y: true, src: synHotpot, group: group, row: -1, synth: true})
			copied := withContext(s, guard.Context{ID: "copy", Text: reword(sent, rng) + filler})
			f = j.Features(&copied)
			c.add(guard.ContextConflict, example{x: f.ContextConflict, y: false, src: synHotpot, group: group, row: -1, synth: true})
			break
		}
	}
}

// withContext returns s with one more context, leaving s's contexts as
// they are.
func withContext(s guard.Sample, extra guard.Context) guard.Sample {
	s.Contexts = append(append([]guard.Context(nil), s.Contexts...), extra)
	return s
}

var sentRE = regexp.MustCompile(`[^.!?\n]+[.!?]?`)

func splitSentences(text string) []string {
	var out []string
	for _, m := range sentRE.FindAllString(text, -1) {
		m = strings.TrimSpace(m)
		if len(strings.Fields(m)) >= 5 {
			out = append(out, m)
		}
	}
	return out
}

// sentenceWith returns the sentence of text that holds answer.
func sentenceWith(text, answer string) string {
	for _, s := range splitSentences(text) {
		if strings.Contains(s, answer) {
			return s
		}
	}
	return ""
}

var (
	numRE = regexp.MustCompile(`\b\d{1,4}\b`)
	auxRE = regexp.MustCompile(`\b(is|was|were|are|has|had|can|will)\b`)
)

var swaps = map[string]string{"before": "after", "after": "before", "first": "last", "last": "first",
	"increased": "decreased", "decreased": "increased", "larger": "smaller", "smaller": "larger",
	"north": "south", "south": "north", "east": "west", "west": "east", "more": "less", "less": "more",
	"higher": "lower", "lower": "higher", "won": "lost", "lost": "won", "earlier": "later", "later": "earlier",
	"largest": "smallest", "smallest": "largest", "older": "younger", "younger": "older"}

// perturb returns variants of a sentence that contradict it: a number
// changed, a negation inserted, an antonym swapped (those that apply).
func perturb(s string, rng *rand.Rand) []string {
	var out []string
	if loc := numRE.FindStringIndex(s); loc != nil {
		n, _ := strconv.Atoi(s[loc[0]:loc[1]])
		m := n + 1 + rng.IntN(9)
		if n > 1000 {
			m = n + 3 + rng.IntN(40)
		}
		out = append(out, s[:loc[0]]+strconv.Itoa(m)+s[loc[1]:])
	}
	if loc := auxRE.FindStringIndex(s); loc != nil {
		out = append(out, s[:loc[1]]+" not"+s[loc[1]:])
	}
	words := strings.Fields(s)
	for i, w := range words {
		if a, ok := swaps[strings.ToLower(w)]; ok {
			ws := append([]string(nil), words...)
			ws[i] = a
			out = append(out, strings.Join(ws, " "))
			break
		}
	}
	return out
}

var functionWords = map[string]bool{"the": true, "a": true, "an": true, "of": true, "that": true, "which": true, "also": true, "then": true, "in": true}

// reword drops up to two function words and swaps the first two
// comma-separated clauses: the claims stay, the wording changes.
func reword(s string, rng *rand.Rand) string {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	if parts := strings.SplitN(s, ", ", 3); len(parts) >= 2 && len(strings.Fields(parts[1])) >= 3 {
		parts[0], parts[1] = parts[1], parts[0]
		s = strings.Join(parts, ", ")
	}
	words := strings.Fields(s)
	dropped := 0
	out := words[:0:0]
	for i, w := range words {
		if i > 0 && dropped < 2 && functionWords[strings.ToLower(w)] && rng.IntN(2) == 0 {
			dropped++
			continue
		}
		out = append(out, w)
	}
	return strings.Join(out, " ") + "."
}
