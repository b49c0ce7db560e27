package main

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// sources documents where each decision's labels come from.
var sources = map[guard.Decision][]string{
	guard.Groundedness: {"halueval (real labels)", "squad_v2 answerable rows (real, all true)", "hotpotqa (real, all true)",
		"synthetic: squad_v2 answer-bearing sentences used as answers (true) and the same sentences with a number changed, a negation inserted or an antonym swapped (false)"},
	guard.Correctness:        {"truthfulqa (real labels)", "halueval (real labels)"},
	guard.ChunkRelevance:     {"hotpotqa (real, per paragraph)", "hotpotqa_ablated (real, all false)", "squad_v2 answerable rows (real, all true)"},
	guard.ContextSufficiency: {"squad_v2 (real labels)", "hotpotqa (real, all true)", "hotpotqa_ablated (derived, all false)"},
	guard.AnswerRelevance: {"positives: dataset answers to their own question (squad_v2 labels; halueval and hotpotqa answers by construction)",
		"negatives (synthetic): answers moved to another question on the same squad_v2 passage, or to a random other halueval question"},
	guard.Contradiction:   {"synthetic: squad_v2 answer-bearing sentences used as answers (false), and the same sentences with a number changed, a negation inserted or an antonym swapped (true)"},
	guard.ContextConflict: {"synthetic: hotpotqa context sets (false) and the same sets plus a copy of one gold sentence with a number changed, a negation inserted or an antonym swapped (true); an unchanged copy added as a control (false)"},
}

const synthWeight = 0.3

func hashGroup(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("%x", h.Sum64())
}

func buildExamples(j *lexical.Judge, by map[string]*dataset) map[guard.Decision][]example {
	ex := map[guard.Decision][]example{}
	add := func(d guard.Decision, x []float64, y bool, group string, sets ...string) {
		w := 1.0
		if strings.HasPrefix(sets[0], "synthetic") && d == guard.Groundedness {
			// Synthetic rows teach the model what real data lacks (full-sentence
			// grounded answers, flipped facts) without outweighing real labels.
			w = synthWeight
		}
		ex[d] = append(ex[d], example{x: x, y: y, group: group, sets: sets, w: w})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"halueval", "squad_v2", "hotpotqa", "hotpotqa_ablated", "truthfulqa"} {
		ds := by[name]
		for _, r := range ds.rows {
			s := r.Sample
			group := groupOf(s.ID)
			if name == "squad_v2" && len(s.Contexts) > 0 {
				group = "squad:" + hashGroup(s.Contexts[0].Text)
			}
			f := j.Features(&s)
			e := r.Expected
			if v, ok := e.Label(guard.Groundedness); ok {
				add(guard.Groundedness, f.Groundedness, v, group, name)
			}
			if v, ok := e.Label(guard.Correctness); ok && (name == "truthfulqa" || name == "halueval") {
				add(guard.Correctness, f.Correctness, v, group, name)
			}
			sets := []string{name}
			if strings.HasPrefix(name, "hotpotqa") {
				sets = append(sets, "hotpotqa+ablated")
			}
			if v, ok := e.Label(guard.ContextSufficiency); ok {
				add(guard.ContextSufficiency, f.ContextSufficiency, v, group, sets...)
			}
			for ci, c := range s.Contexts {
				if v, ok := e.ChunkLabel(c.ID); ok {
					add(guard.ChunkRelevance, f.ChunkRelevance[ci], v, group, sets...)
				}
			}
			// Answer relevance positives: answers to their own question.
			if name == "halueval" || name == "hotpotqa" {
				add(guard.AnswerRelevance, f.AnswerRelevance, true, group, name)
			} else if v, ok := e.Label(guard.AnswerRelevance); ok {
				add(guard.AnswerRelevance, f.AnswerRelevance, v, group, name)
			}
		}
	}
	// Answer relevance negatives.
	squad := by["squad_v2"]
	// Passages in first-seen order, so that the examples (and the fitted
	// weights) are the same on every run.
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
			add(guard.AnswerRelevance, f.AnswerRelevance, false, "squad:"+hashGroup(s.Contexts[0].Text), "squad_v2")
		}
	}
	halu := by["halueval"]
	for _, r := range halu.rows {
		k := rng.IntN(len(halu.rows))
		if groupOf(halu.rows[k].Sample.ID) == groupOf(r.Sample.ID) {
			continue
		}
		s := r.Sample
		s.Answer = halu.rows[k].Sample.Answer
		s.Reference = nil
		f := j.Features(&s)
		add(guard.AnswerRelevance, f.AnswerRelevance, false, groupOf(r.Sample.ID), "halueval")
	}

	// Contradiction: answer-bearing sentences of SQuAD passages, and their
	// perturbations.
	for _, r := range squad.rows {
		if v, ok := r.Expected.Label(guard.Groundedness); !ok || !v || r.Sample.Reference == nil {
			continue
		}
		s := r.Sample
		sent := sentenceWith(s.Contexts[0].Text, *s.Reference)
		if sent == "" {
			continue
		}
		group := "squad:" + hashGroup(s.Contexts[0].Text)
		base := s
		base.Answer = sent
		base.Reference = nil
		f := j.Features(&base)
		add(guard.Contradiction, f.Contradiction, false, group, "synthetic-squad")
		add(guard.Groundedness, f.Groundedness, true, group, "synthetic-squad")
		// A light rewording that keeps every claim: clauses reordered and
		// a few function words dropped, so the answer is no longer a verbatim
		// span of the passage.
		if re := reword(sent, rng); re != sent {
			rs := base
			rs.Answer = re
			f := j.Features(&rs)
			add(guard.Groundedness, f.Groundedness, true, group, "synthetic-squad")
			add(guard.Contradiction, f.Contradiction, false, group, "synthetic-squad")
		}
		for _, p := range perturb(sent, rng) {
			ps := base
			ps.Answer = p
			f := j.Features(&ps)
			add(guard.Contradiction, f.Contradiction, true, group, "synthetic-squad")
			add(guard.Groundedness, f.Groundedness, false, group, "synthetic-squad")
		}
	}

	// Conflict: HotpotQA context sets, with and without a perturbed copy of
	// a gold sentence.
	for _, r := range by["hotpotqa"].rows {
		s := r.Sample
		group := groupOf(s.ID)
		f := j.Features(&s)
		add(guard.ContextConflict, f.ContextConflict, false, group, "synthetic-hotpotqa")
		var gold string
		for _, c := range s.Contexts {
			if v, ok := r.Expected.ChunkLabel(c.ID); ok && v {
				gold = c.Text
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
			// The changed fact, reworded and set among other text, as a
			// second source would state it.
			filler := ""
			if other := splitSentences(s.Contexts[rng.IntN(len(s.Contexts))].Text); len(other) > 0 {
				filler = " " + other[rng.IntN(len(other))]
			}
			for _, p := range ps[:1] {
				cs := s
				cs.Contexts = append(append([]guard.Context(nil), s.Contexts...), guard.Context{ID: "perturbed", Text: reword(p, rng) + filler})
				f := j.Features(&cs)
				add(guard.ContextConflict, f.ContextConflict, true, group, "synthetic-hotpotqa")
			}
			cs := s
			cs.Contexts = append(append([]guard.Context(nil), s.Contexts...), guard.Context{ID: "copy", Text: reword(sent, rng) + filler})
			f := j.Features(&cs)
			add(guard.ContextConflict, f.ContextConflict, false, group, "synthetic-hotpotqa")
			break
		}
	}
	return ex
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
