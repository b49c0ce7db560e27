package cascade

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/guard"
)

// keyVersion changes whenever the key layout or the normalization changes.
// That way no cache (in-process or shared) ever mixes keys of two layouts.
// In v2, each decision's key covers only the inputs its prompt shows.
const keyVersion = "ragtriage.cascade.key.v2"

// Key names one cached estimate. It is a SHA-256 over several fields. They
// are the key layout's version and the fallback judge's name and version.
// Then come the decision's definition (its ID and version in
// guard.Definitions of the sample's variant) and the decision. For chunk
// relevance, the context ID follows. Last come the normalized texts of the
// inputs that decision's question shows (see Inputs). Two samples may differ
// only in what a decision does not look at. Then they share that decision's
// key. A right and a hallucinated answer to the same question over the same
// contexts share chunk relevance, sufficiency and conflict.
type Key [32]byte

// String returns the key in hexadecimal (the form a shared store uses in its
// entry names).
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Input is one part of a sample a decision's question can show.
type Input uint8

const (
	InputQuestion  Input = 1 << iota // the question
	InputChunk                       // one context (ID and text): chunk relevance
	InputContexts                    // every context, in order (IDs and texts)
	InputAnswer                      // the answer
	InputReference                   // the reference answer (present or absent)
)

// Inputs returns the parts of a sample the question of decision d shows.
// That is also what its cache key covers. The prompts of package
// guard/llmjudge show exactly these:
//
//	chunk_relevance                        question, that one context
//	context_sufficiency, context_conflict  question, every context
//	answer_relevance                       question, answer
//	groundedness, contradiction            question, every context, answer
//	correctness                            question, reference, answer
//
// A fallback judge behind a cascade must not let an estimate of d depend on
// anything else of the sample. Metadata, scores and the sample ID are never
// part of a key. The cache hands the estimate to every sample that agrees
// on these inputs. Inputs of an invalid decision are every part.
func Inputs(d guard.Decision) Input {
	switch d {
	case guard.ChunkRelevance:
		return InputQuestion | InputChunk
	case guard.ContextSufficiency, guard.ContextConflict:
		return InputQuestion | InputContexts
	case guard.AnswerRelevance:
		return InputQuestion | InputAnswer
	case guard.Groundedness, guard.Contradiction:
		return InputQuestion | InputContexts | InputAnswer
	case guard.Correctness:
		return InputQuestion | InputReference | InputAnswer
	}
	return InputQuestion | InputContexts | InputAnswer | InputReference
}

// hasher is a pooled SHA-256 with a scratch buffer for normalized text.
type hasher struct {
	h   hash.Hash
	buf []byte
	out [32]byte // scratch for Sum, so that summing allocates nothing
}

var hasherPool = sync.Pool{New: func() any { return &hasher{h: sha256.New(), buf: make([]byte, 0, 1024)} }}

// field writes a tag byte, then s as is, then a 0 terminator. The string s
// must not hold NUL bytes. It is for IDs and names; text goes through text.
func (h *hasher) field(tag byte, s string) {
	h.buf = append(h.buf, tag)
	h.buf = append(h.buf, s...)
	h.buf = append(h.buf, 0)
	h.flush(false)
}

// flush hands the buffered bytes to the hash once there are enough of them.
// When all is set, it always hands them over. Short fields thus cost no
// call each.
func (h *hasher) flush(all bool) {
	if len(h.buf) >= 8192 || (all && len(h.buf) > 0) {
		h.h.Write(h.buf)
		h.buf = h.buf[:0]
	}
}

// sum flushes and returns the digest.
func (h *hasher) sum() [32]byte {
	h.flush(true)
	h.h.Sum(h.out[:0])
	return h.out
}

// text writes a tag byte, the normalized form of s, and a 0 terminator.
// Normalization trims s and turns every run of Unicode white space (and NUL
// bytes) into one ASCII space. Texts that differ only in spacing or line
// breaks thus share a key. Case, punctuation and letters are kept: they can
// change what a judge says.
func (h *hasher) text(tag byte, s string) {
	b := append(h.buf, tag)
	wrote := false
	i := 0
	for i < len(s) {
		// Skip white space; a run of it becomes one space between words.
		j := i
		for j < len(s) {
			if c := s[j]; c < utf8.RuneSelf {
				if !asciiSpace(c) {
					break
				}
				j++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsSpace(r) {
				break
			}
			j += n
		}
		if j == len(s) {
			break
		}
		if wrote && j > i {
			b = append(b, ' ')
		}
		// Copy the longest stretch that normalization leaves as it is:
		// words joined by single ASCII spaces.
		k := j
		for k < len(s) {
			c := s[k]
			switch byteClass[c] {
			case 0:
				k++
				continue
			case 1:
				if c == ' ' && k+1 < len(s) && byteClass[s[k+1]] == 0 {
					k += 2
					continue
				}
			}
			if c < utf8.RuneSelf {
				break
			}
			r, n := utf8.DecodeRuneInString(s[k:])
			if unicode.IsSpace(r) {
				break
			}
			k += n
		}
		b = append(b, s[j:k]...)
		wrote = true
		i = k
		if len(b) >= 8192 {
			h.h.Write(b)
			b = b[:0]
		}
	}
	h.buf = append(b, 0)
	h.flush(false)
}

// byteClass sorts bytes for the normalization scan. Class 0 is a byte kept
// as is. Class 1 is ASCII white space (or NUL). Class 2 is the start or
// continuation of a non-ASCII rune.
var byteClass = func() (t [256]uint8) {
	for _, c := range []byte{' ', '\t', '\n', '\r', '\v', '\f', 0} {
		t[c] = 1
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = 2
	}
	return t
}()

func asciiSpace(c byte) bool { return byteClass[c] == 1 }

func (h *hasher) int(tag byte, n int) {
	h.buf = append(h.buf, tag)
	h.buf = binary.AppendUvarint(h.buf, uint64(n))
}

// keyer computes the keys of one escalation's items. The parts of a sample
// are its question, each context, the context set, its answer and its
// reference. Each part is normalized and hashed once, when the first item
// that shows it asks for it. An item's key is then a SHA-256 over fixed
// fields and the digests of its parts. Not safe for concurrent use.
type keyer struct {
	judge guard.JudgeInfo
	defs  *guard.DefinitionSet
	s     *guard.Sample
	have  Input
	q, a  [32]byte
	r     [32]byte
	set   [32]byte
	// Per-context digests. The first 8 are inline, so the usual sample
	// needs no allocation. The rest are in more. The done field has a bit
	// per hashed inline context. The moreDone field has one per context in
	// more.
	ctx      [8][32]byte
	done     uint64
	more     [][32]byte
	moreDone []bool
}

// The two definition sets a sample's decisions can belong to (see
// guard.Definitions). A key names the definition of its decision in the set
// of the sample's variant.
var (
	defsWithRef    = guard.Definitions(guard.WithReference)
	defsWithoutRef = guard.Definitions(guard.WithoutReference)
)

func newKeyer(judge guard.JudgeInfo, s *guard.Sample) keyer {
	defs := &defsWithoutRef
	if s.Reference != nil {
		defs = &defsWithRef
	}
	return keyer{judge: judge, defs: defs, s: s}
}

// getHasher returns a reset pooled hasher; putHasher gives it back.
func getHasher() *hasher {
	h := hasherPool.Get().(*hasher)
	h.h.Reset()
	h.buf = h.buf[:0]
	return h
}

func putHasher(h *hasher) {
	if cap(h.buf) <= 64<<10 {
		hasherPool.Put(h)
	}
}

// digestText hashes one normalized text under tag.
func digestText(tag byte, s string) [32]byte {
	h := getHasher()
	h.text(tag, s)
	out := h.sum()
	putHasher(h)
	return out
}

// context returns the digest of context i (ID and normalized text).
func (k *keyer) context(i int) [32]byte {
	if i < len(k.ctx) {
		if k.done&(1<<i) == 0 {
			k.ctx[i] = contextDigest(&k.s.Contexts[i])
			k.done |= 1 << i
		}
		return k.ctx[i]
	}
	j := i - len(k.ctx)
	if k.more == nil {
		k.more = make([][32]byte, len(k.s.Contexts)-len(k.ctx))
		k.moreDone = make([]bool, len(k.more))
	}
	if !k.moreDone[j] {
		k.more[j] = contextDigest(&k.s.Contexts[i])
		k.moreDone[j] = true
	}
	return k.more[j]
}

// contextDigest hashes a context's ID and normalized text.
func contextDigest(c *guard.Context) [32]byte {
	h := getHasher()
	h.field('c', c.ID)
	h.text('t', c.Text)
	out := h.sum()
	putHasher(h)
	return out
}

// part computes the digest of one sample-wide part once.
func (k *keyer) part(p Input) [32]byte {
	if k.have&p == 0 {
		switch p {
		case InputQuestion:
			k.q = digestText('q', k.s.Question)
		case InputAnswer:
			k.a = digestText('a', k.s.Answer)
		case InputReference:
			if k.s.Reference != nil {
				k.r = digestText('R', *k.s.Reference)
			} else {
				k.r = sha256.Sum256([]byte("N\x00"))
			}
		case InputContexts:
			h := getHasher()
			h.int('n', len(k.s.Contexts))
			for i := range k.s.Contexts {
				d := k.context(i)
				h.buf = append(h.buf, d[:]...)
			}
			k.set = h.sum()
			putHasher(h)
		}
		k.have |= p
	}
	switch p {
	case InputQuestion:
		return k.q
	case InputAnswer:
		return k.a
	case InputReference:
		return k.r
	}
	return k.set
}

// key returns the key of the estimate of d (for chunk relevance: about
// context ci, whose ID is ctxID).
func (k *keyer) key(d guard.Decision, ctxID string, ci int) Key {
	var parts [4][32]byte
	n := 0
	in := Inputs(d)
	for _, p := range [...]Input{InputQuestion, InputContexts, InputAnswer, InputReference} {
		if in&p != 0 {
			parts[n] = k.part(p)
			n++
		}
	}
	if in&InputChunk != 0 && ci >= 0 {
		parts[n] = k.context(ci)
		n++
	}
	h := getHasher()
	h.field('k', keyVersion)
	h.field('j', k.judge.Name)
	h.field('v', k.judge.Version)
	h.int('d', int(d))
	if k.defs != nil {
		if def, ok := k.defs.Lookup(d); ok {
			h.field('i', def.ID)
			h.field('r', def.Version)
		} else {
			h.field('u', "")
		}
	}
	h.field('x', ctxID)
	for i := 0; i < n; i++ {
		h.buf = append(h.buf, parts[i][:]...)
	}
	out := Key(h.sum())
	putHasher(h)
	return out
}

// callKey names a fallback call by the keys of the estimates it asks for.
// Two calls that ask for the same keys would get interchangeable answers.
// So they are collapsed into one.
func callKey(keys []Key) [32]byte {
	h := getHasher()
	h.field('K', keyVersion)
	for i := range keys {
		h.buf = append(h.buf, keys[i][:]...)
		h.flush(false)
	}
	out := h.sum()
	putHasher(h)
	return out
}
