package guard

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sample is one question, what was retrieved for it, and the answer the
// application produced. A Sample is plain data: safe to share between
// goroutines as long as nobody mutates it.
type Sample struct {
	// ID identifies the sample in records and reports. Optional.
	ID string `json:"id,omitempty"`
	// Question is what the user asked.
	Question string `json:"question"`
	// Contexts are the retrieved chunks, in retrieval order. Each needs a
	// non-empty ID unique within the sample.
	Contexts []Context `json:"contexts"`
	// Answer is what the application answered.
	Answer string `json:"answer"`
	// Reference is the known right answer, when there is one. nil means
	// absent, which is not the same as the empty string: without a reference,
	// correctness is not judged at all. Its JSON and dataset name is
	// "referenceAnswer" everywhere (samples, records, dataset rows); in Go it
	// is Reference, set through middleware.WithReference(ctx, ref), which
	// takes the plain string because attaching one means there is one.
	Reference *string `json:"referenceAnswer,omitempty"`
	// Metadata is carried through to records untouched.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Context is one retrieved chunk.
type Context struct {
	ID       string         `json:"id"`
	Text     string         `json:"text"`
	Score    *float64       `json:"score,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Ref returns a pointer to s, for Sample.Reference.
func Ref(s string) *string { return &s }

// HasReference reports whether the sample carries a reference answer.
func (s *Sample) HasReference() bool { return s.Reference != nil }

// Variant is WithReference when the sample has a reference answer.
func (s *Sample) Variant() Variant {
	if s.Reference != nil {
		return WithReference
	}
	return WithoutReference
}

// Limits bound what one sample may hold. The zero value of a field means its
// default (see DefaultLimits).
type Limits struct {
	// MaxContexts is the largest number of contexts in a sample. Default 1000.
	MaxContexts int
	// MaxTextBytes is the largest size of one text (question, answer,
	// reference, or one context). Default 1 MiB.
	MaxTextBytes int
	// MaxTotalBytes is the largest size of all texts together. Default 8 MiB.
	MaxTotalBytes int
}

// DefaultLimits are the limits used when none are configured.
var DefaultLimits = Limits{MaxContexts: 1000, MaxTextBytes: 1 << 20, MaxTotalBytes: 8 << 20}

func (l Limits) withDefaults() Limits {
	if l.MaxContexts <= 0 {
		l.MaxContexts = DefaultLimits.MaxContexts
	}
	if l.MaxTextBytes <= 0 {
		l.MaxTextBytes = DefaultLimits.MaxTextBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultLimits.MaxTotalBytes
	}
	return l
}

// ErrInvalidSample is wrapped by every error Validate returns.
var ErrInvalidSample = errors.New("invalid sample")

// SampleError says which field of a sample is wrong and why.
type SampleError struct {
	Field  string // e.g. "answer", "contexts[3].id"
	Reason string
}

func (e *SampleError) Error() string { return "guard: invalid sample: " + e.Field + ": " + e.Reason }

// Unwrap makes errors.Is(err, ErrInvalidSample) true.
func (e *SampleError) Unwrap() error { return ErrInvalidSample }

// Validate checks a sample against limits (zero fields mean the defaults): texts
// must be valid UTF-8 without NUL bytes and within size, context IDs non-empty
// and unique. It returns a *SampleError naming the first bad field.
func (s *Sample) Validate(l Limits) error {
	l = l.withDefaults()
	total := len(s.Question) + len(s.Answer)
	if why := checkText(s.ID, l); why != "" {
		return &SampleError{"id", why}
	}
	if why := checkText(s.Question, l); why != "" {
		return &SampleError{"question", why}
	}
	if why := checkText(s.Answer, l); why != "" {
		return &SampleError{"answer", why}
	}
	if s.Reference != nil {
		total += len(*s.Reference)
		if why := checkText(*s.Reference, l); why != "" {
			return &SampleError{"referenceAnswer", why}
		}
	}
	if len(s.Contexts) > l.MaxContexts {
		return &SampleError{"contexts", fmt.Sprintf("%d contexts, over the limit of %d", len(s.Contexts), l.MaxContexts)}
	}
	// A linear scan finds duplicates in few contexts; a map in many.
	var seen map[string]int
	if len(s.Contexts) > 32 {
		seen = make(map[string]int, len(s.Contexts))
	}
	for i := range s.Contexts {
		c := &s.Contexts[i]
		if c.ID == "" {
			return &SampleError{fmt.Sprintf("contexts[%d].id", i), "empty"}
		}
		if why := checkText(c.ID, l); why != "" {
			return &SampleError{fmt.Sprintf("contexts[%d].id", i), why}
		}
		if seen == nil {
			for j := 0; j < i; j++ {
				if s.Contexts[j].ID == c.ID {
					return &SampleError{fmt.Sprintf("contexts[%d].id", i), fmt.Sprintf("duplicate of contexts[%d].id %q", j, c.ID)}
				}
			}
		} else {
			if j, ok := seen[c.ID]; ok {
				return &SampleError{fmt.Sprintf("contexts[%d].id", i), fmt.Sprintf("duplicate of contexts[%d].id %q", j, c.ID)}
			}
			seen[c.ID] = i
		}
		total += len(c.Text)
		if why := checkText(c.Text, l); why != "" {
			return &SampleError{fmt.Sprintf("contexts[%d].text", i), why}
		}
	}
	if total > l.MaxTotalBytes {
		return &SampleError{"sample", fmt.Sprintf("%d bytes of text, over the limit of %d", total, l.MaxTotalBytes)}
	}
	return nil
}

// checkText returns why text is unacceptable, or "".
func checkText(text string, l Limits) string {
	if len(text) > l.MaxTextBytes {
		return fmt.Sprintf("%d bytes, over the limit of %d", len(text), l.MaxTextBytes)
	}
	i := plainPrefix(text)
	if i == len(text) {
		return "" // the usual text, in one pass instead of two
	}
	// text[:i] is ASCII without NUL: the rest is checked as a whole text
	// would be, so that the reasons stay those of utf8.ValidString and a
	// search for NUL over all of it.
	rest := text[i:]
	if !utf8.ValidString(rest) {
		return "not valid UTF-8"
	}
	if j := strings.IndexByte(rest, 0); j >= 0 {
		return fmt.Sprintf("NUL byte at offset %d", i+j)
	}
	return ""
}

// plainPrefix returns the length of a prefix of text that is ASCII without
// a NUL byte, so valid UTF-8 without NUL: all of text when it is plain, else
// usually up to its first byte outside ASCII or NUL. It reads sixteen bytes
// at a time. For an ASCII byte b, b+0x7f has its high bit set exactly when
// b is not 0 (and no carry leaves the byte), so words are plain when their
// high bits are clear and those of their sums with 0x7f7f... are all set.
// The sums are checked once, after the loop: should a NUL have been read,
// the plain prefix is taken to be empty (a text with NUL is refused, and
// rare).
func plainPrefix(text string) int {
	const high, add = 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	sums := uint64(high) // the high bits of every word's sum
	i := 0
	for ; i+16 <= len(text); i += 16 {
		b := text[i : i+16]
		v := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		w := uint64(b[8]) | uint64(b[9])<<8 | uint64(b[10])<<16 | uint64(b[11])<<24 |
			uint64(b[12])<<32 | uint64(b[13])<<40 | uint64(b[14])<<48 | uint64(b[15])<<56
		if (v|w)&high != 0 {
			break
		}
		sums &= (v + add) & (w + add)
	}
	if sums&high != high {
		return 0
	}
	for ; i < len(text); i++ {
		if b := text[i]; b == 0 || b >= utf8.RuneSelf {
			break
		}
	}
	return i
}
