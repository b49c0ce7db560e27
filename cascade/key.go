package cascade

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/guard"
)

// keyVersion changes whenever the key layout or the normalization changes,
// so that no cache ever mixes keys of two layouts.
const keyVersion = "ragtriage.cascade.key.v1"

// itemKey names one cached estimate: the digest of everything the fallback
// saw (judge, definitions, normalized texts) plus the decision and, for
// chunk relevance, the context.
type itemKey struct {
	digest    [32]byte
	decision  guard.Decision
	contextID string
}

// hasher is a pooled SHA-256 with a scratch buffer for normalized text.
type hasher struct {
	h   hash.Hash
	buf []byte
}

var hasherPool = sync.Pool{New: func() any { return &hasher{h: sha256.New(), buf: make([]byte, 0, 1024)} }}

// field writes a tag byte, then s as is, then a 0 terminator. s must not
// hold NUL bytes (IDs and names; text goes through text).
func (h *hasher) field(tag byte, s string) {
	h.buf = append(h.buf, tag)
	h.buf = append(h.buf, s...)
	h.buf = append(h.buf, 0)
	h.flush(false)
}

// flush hands the buffered bytes to the hash once there are enough of them
// (or always, when all is set), so that short fields cost no call each.
func (h *hasher) flush(all bool) {
	if len(h.buf) >= 8192 || (all && len(h.buf) > 0) {
		h.h.Write(h.buf)
		h.buf = h.buf[:0]
	}
}

// sum flushes and returns the digest.
func (h *hasher) sum() (out [32]byte) {
	h.flush(true)
	h.h.Sum(out[:0])
	return out
}

// text writes a tag byte, the normalized form of s, and a 0 terminator.
// Normalization trims s and turns every run of Unicode white space (and NUL
// bytes) into one ASCII space, so that texts differing only in spacing or
// line breaks share a key. Case, punctuation and letters are kept: they can
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

// byteClass sorts bytes for the normalization scan: 0 a byte kept as is,
// 1 ASCII white space (or NUL), 2 the start or continuation of a non-ASCII
// rune.
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

// The two definition sets a sample's decisions can belong to (see
// guard.Definitions).
var (
	defsWithRef    = guard.Definitions(guard.WithReference)
	defsWithoutRef = guard.Definitions(guard.WithoutReference)
)

// sampleDigest hashes what the fallback judge sees for a sample: the judge
// and its version, the definition set of the sample's variant (and each
// definition's ID and version), and the normalized question, contexts (ID
// and text, in order), answer and reference (present or absent). Metadata,
// scores and the sample ID are left out: they do not reach the question a
// judge answers.
func sampleDigest(judge guard.JudgeInfo, s *guard.Sample) [32]byte {
	h := hasherPool.Get().(*hasher)
	h.h.Reset()
	h.buf = h.buf[:0]
	h.field('k', keyVersion)
	h.field('j', judge.Name)
	h.field('v', judge.Version)
	defs := &defsWithoutRef
	if s.Reference != nil {
		defs = &defsWithRef
	}
	h.field('D', defs.ID)
	h.field('V', defs.Version)
	h.field('T', string(defs.Variant))
	for i := range defs.Definitions {
		d := &defs.Definitions[i]
		h.int('d', int(d.Decision))
		h.field('i', d.ID)
		h.field('r', d.Version)
	}
	h.text('q', s.Question)
	h.int('n', len(s.Contexts))
	for i := range s.Contexts {
		h.field('c', s.Contexts[i].ID)
		h.text('t', s.Contexts[i].Text)
	}
	h.text('a', s.Answer)
	if s.Reference != nil {
		h.text('R', *s.Reference)
	} else {
		h.field('N', "")
	}
	out := h.sum()
	if cap(h.buf) <= 64<<10 {
		hasherPool.Put(h)
	}
	return out
}

// callKey names a fallback call: the sample digest plus the decisions and
// contexts it asks for.
func callKey(digest [32]byte, ds []guard.Decision, ctxIDs []string) [32]byte {
	h := hasherPool.Get().(*hasher)
	h.h.Reset()
	h.buf = append(h.buf[:0], digest[:]...)
	for _, d := range ds {
		h.int('d', int(d))
	}
	for _, id := range ctxIDs {
		h.field('c', id)
	}
	out := h.sum()
	hasherPool.Put(h)
	return out
}
