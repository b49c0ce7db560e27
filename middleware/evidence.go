package middleware

import (
	"math/bits"
	"slices"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
)

// Evidence kinds say why a decision leans the way it does, without the
// texts. Spans and records carry them with or without content capture: a
// dashboard can then tell "90 days" against a context's "30 days"
// (groundedness:number_mismatch) from a supported answer. Only names from
// fixed lists leave the process this way: the seven decision names and
// the guard's evidence kinds. A kind or decision outside them (a custom
// judge's) reads as "other", so the number of distinct values stays
// bounded whatever the judges say.

// evidenceVocabulary is the guard's evidence kinds (guard.EvidenceKinds)
// and otelkeys.EvidenceOther, in byte order, so that a set of them is
// written sorted by walking its bits.
var evidenceVocabulary = func() []guard.EvidenceKind {
	v := append(slices.Clone(guard.EvidenceKinds), otelkeys.EvidenceOther)
	slices.Sort(v)
	return slices.Compact(v)
}()

// kindMask is a set of evidenceVocabulary entries, one bit each.
type kindMask uint16

// Indexes into evidenceVocabulary, and the names a span or record carries.
var (
	otherKind int
	// decisionOrder lists the decisions' slots (the decision's value; 0
	// for "other") in the byte order of their names.
	decisionOrder []guard.Decision
	// pairNames[d][k] is "decision:kind" for decision slot d and kind k.
	pairNames [len(decisionSlots)][]string
	// kindNames[k] is kind k's name.
	kindNames []string
)

// decisionSlots holds one slot per decision value, 0 being "other".
var decisionSlots = [...]string{0: otelkeys.EvidenceOther,
	guard.ChunkRelevance: guard.ChunkRelevance.String(), guard.ContextSufficiency: guard.ContextSufficiency.String(),
	guard.ContextConflict: guard.ContextConflict.String(), guard.AnswerRelevance: guard.AnswerRelevance.String(),
	guard.Groundedness: guard.Groundedness.String(), guard.Contradiction: guard.Contradiction.String(),
	guard.Correctness: guard.Correctness.String()}

func init() {
	if len(evidenceVocabulary) > 16 {
		panic("middleware: evidence vocabulary outgrew kindMask")
	}
	if !slices.IsSorted(evidenceVocabulary) {
		panic("middleware: evidence vocabulary not sorted")
	}
	kindNames = make([]string, len(evidenceVocabulary))
	for i, k := range evidenceVocabulary {
		kindNames[i] = string(k)
	}
	otherKind, _ = slices.BinarySearch(evidenceVocabulary, otelkeys.EvidenceOther)
	for d := range decisionSlots {
		decisionOrder = append(decisionOrder, guard.Decision(d))
		pairNames[d] = make([]string, len(evidenceVocabulary))
		for k, name := range kindNames {
			pairNames[d][k] = decisionSlots[d] + ":" + name
		}
	}
	slices.SortFunc(decisionOrder, func(a, b guard.Decision) int {
		return strings.Compare(decisionSlots[a], decisionSlots[b])
	})
}

// kindBit is the bit of k in a kindMask; a kind outside the vocabulary
// (or an empty one) is "other".
func kindBit(k guard.EvidenceKind) kindMask {
	i, ok := slices.BinarySearch(evidenceVocabulary, k)
	if !ok {
		i = otherKind
	}
	return 1 << i
}

// boundedKind is k when the guard knows it, and "other" otherwise.
func boundedKind(k guard.EvidenceKind) guard.EvidenceKind {
	if _, ok := slices.BinarySearch(evidenceVocabulary, k); ok {
		return k
	}
	return otelkeys.EvidenceOther
}

// decisionSlot is d's slot in evidenceKinds.byDecision: d itself, or 0
// ("other") for a decision outside the seven.
func decisionSlot(d guard.Decision) int {
	if d.Valid() {
		return int(d)
	}
	return 0
}

// evidenceKinds is the evidence kinds of one result, per decision and,
// for chunk relevance, per context.
type evidenceKinds struct {
	byDecision [len(decisionSlots)]kindMask
	// chunks holds the chunk-relevance kinds per context ID, for the
	// chunk events; nil when there are none.
	chunks map[string]kindMask
	// pairs is the whole set as "decision:kind" strings (see pairsOf).
	pairs []string
	// scratch backs what of returns.
	scratch []string
}

// kindsOf gathers the kinds of r's evidence (every kept estimate's).
// Chunk-relevance evidence counts for the context its quote (or
// counterpart) is taken from. It allocates nothing when r has no
// evidence.
func kindsOf(r *guard.Result) evidenceKinds {
	var ek evidenceKinds
	for i := range r.Evidence {
		e := &r.Evidence[i]
		bit := kindBit(e.Kind)
		ek.byDecision[decisionSlot(e.Decision)] |= bit
		if e.Decision != guard.ChunkRelevance {
			continue
		}
		id := chunkOf(e)
		if id == "" {
			continue
		}
		if ek.chunks == nil {
			ek.chunks = map[string]kindMask{}
		}
		ek.chunks[id] |= bit
	}
	ek.pairs = ek.pairsOf()
	return ek
}

// chunkOf is the context a chunk-relevance finding is about, or "".
func chunkOf(e *guard.Evidence) string {
	switch {
	case e.Quote.Source == guard.SourceContext:
		return e.Quote.ContextID
	case e.Counterpart.Source == guard.SourceContext:
		return e.Counterpart.ContextID
	}
	return ""
}

// pairsOf returns the set as sorted, unique "decision:kind" strings (the
// ragtriage.evidence.kinds span attribute and Record.EvidenceKinds), or
// nil when it is empty.
func (ek *evidenceKinds) pairsOf() []string {
	n := 0
	for _, m := range ek.byDecision {
		n += bitCount(m)
	}
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for _, d := range decisionOrder {
		if m := ek.byDecision[d]; m != 0 {
			out = appendKinds(out, m, pairNames[d])
		}
	}
	return out
}

// of returns one decision's kinds, sorted (the event attribute), or nil.
// ctxID names the context of a chunk-relevance event. The slice is valid
// until the next call: attribute.StringSlice copies it.
func (ek *evidenceKinds) of(d guard.Decision, ctxID string) []string {
	m := ek.byDecision[decisionSlot(d)]
	if d == guard.ChunkRelevance {
		m = ek.chunks[ctxID]
	}
	if m == 0 {
		return nil
	}
	ek.scratch = appendKinds(ek.scratch[:0], m, kindNames)
	return ek.scratch
}

// appendKinds appends names[k] for each bit k of m, in bit order.
func appendKinds(out []string, m kindMask, names []string) []string {
	for ; m != 0; m &= m - 1 {
		out = append(out, names[bits.TrailingZeros16(uint16(m))])
	}
	return out
}

func bitCount(m kindMask) int { return bits.OnesCount16(uint16(m)) }
