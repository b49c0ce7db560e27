package middleware

import (
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

// Judges explain themselves in free text that may quote the user's texts.
// The embedded judges name a word of the answer that no context holds
// (`"Acme" appears in no context`), or the quantities that differ. The LLM
// judge repeats a quote it could not find (`quote "…" is not in context
// "c1"`), or the start of a reply it could not read. A server's error
// message may echo its input. Those texts leave the process on spans, in
// records and through the error handler.
//
// Without content capture, the middleware withholds every quoted excerpt
// of a reason or an error message. It drops the texts and details of a
// result's evidence, citations and claims, and keeps their kinds, sources
// and offsets. An evidence kind outside the guard's list (a custom
// judge's, which may be any text) reads "other". With content capture,
// each of them goes through the Redactor first. Quotes and details go as
// the field their quote comes from, and reasons as FieldCompletion
// (judges' words). Error messages given to the
// error handler always have their quoted excerpts withheld.

// scrubText returns s with every quoted excerpt withheld
// (guard.WithholdQuotes).
func scrubText(s string) string { return guard.WithholdQuotes(s) }

// scrubbedError is an error whose message has its quoted excerpts withheld;
// errors.Is and errors.As still see the error it wraps.
type scrubbedError struct{ err error }

func (e *scrubbedError) Error() string { return scrubText(e.err.Error()) }
func (e *scrubbedError) Unwrap() error { return e.err }

// fieldOf is the field a quote's text comes from.
func fieldOf(q guard.Quote) Field {
	switch q.Source {
	case guard.SourceQuestion:
		return FieldQuestion
	case guard.SourceContext:
		return FieldContext
	case guard.SourceReference:
		return FieldReference
	}
	return FieldAnswer
}

// sampleTexts holds one sample's user texts as they may leave the process.
// Each text goes through the Redactor once. The chain span, the evaluation
// span and the record then all write these copies. A quote or claim that
// spans a whole text reuses that text's copy too. The texts are redacted on
// first use, in two steps: the chain span needs only the question and the
// answer, and the caller of a shadow chain redacts no more than that.
type sampleTexts struct {
	raw         *guard.Sample
	rawOriginal string
	// pre holds the context texts the retriever spans redacted, in context
	// order, or nil; those are reused as they are.
	pre []string

	hasAsked                   bool // the question, original and answer are set
	question, original, answer string

	full      bool // the reference and contexts are set too
	reference string
	contexts  []string
}

// redactAsked redacts the question, the original question and the answer.
func (c *config) redactAsked(t *sampleTexts) {
	s := t.raw
	t.question, t.answer = c.text(FieldQuestion, s.Question), c.text(FieldAnswer, s.Answer)
	if t.rawOriginal != "" {
		t.original = c.text(FieldOriginalQuestion, t.rawOriginal)
	}
	t.hasAsked = true
}

// redactRest redacts the reference and the contexts, or reuses t.pre.
func (c *config) redactRest(t *sampleTexts) {
	s := t.raw
	if s.Reference != nil {
		t.reference = c.text(FieldReference, *s.Reference)
	}
	t.contexts = t.pre
	if len(t.pre) != len(s.Contexts) {
		t.contexts = make([]string, len(s.Contexts))
		for i := range s.Contexts {
			t.contexts[i] = c.text(FieldContext, s.Contexts[i].Text)
		}
	}
	t.full = true
}

// asked is the user's question: the original one when the chain condensed
// it.
func (t *sampleTexts) asked() string {
	if t.rawOriginal != "" {
		return t.original
	}
	return t.question
}

// whole returns the redacted copy of the text q is taken from, when q
// quotes all of it. t may be nil.
func (t *sampleTexts) whole(q guard.Quote) (string, bool) {
	if t == nil || !t.full {
		return "", false
	}
	s := t.raw
	switch q.Source {
	case guard.SourceAnswer:
		return t.answer, q.Text == s.Answer
	case guard.SourceQuestion:
		return t.question, q.Text == s.Question
	case guard.SourceReference:
		return t.reference, s.Reference != nil && q.Text == *s.Reference
	case guard.SourceContext:
		for i := range s.Contexts {
			if s.Contexts[i].ID == q.ContextID {
				return t.contexts[i], q.Text == s.Contexts[i].Text
			}
		}
	}
	return "", false
}

// quoteText is the text a structured quote may carry out of the process:
// none without content capture, the redacted text with it.
func (c *config) quoteText(q guard.Quote, t *sampleTexts) string {
	if c.redact == nil || q.Text == "" {
		return ""
	}
	if w, ok := t.whole(q); ok {
		return w
	}
	return c.text(fieldOf(q), q.Text)
}

// reasonText is a judge's or the diagnosis's free-text reason as it may
// leave the process.
func (c *config) reasonText(s string) string {
	if c.redact == nil {
		return scrubText(s)
	}
	if s == "" {
		return s
	}
	return c.text(FieldCompletion, s)
}

func (c *config) exportQuote(q guard.Quote, t *sampleTexts) guard.Quote {
	q.Text = c.quoteText(q, t)
	return q
}

func (c *config) exportEvidence(ev []guard.Evidence, t *sampleTexts) []guard.Evidence {
	if ev == nil {
		return nil
	}
	out := make([]guard.Evidence, len(ev))
	for i, e := range ev {
		if c.redact == nil {
			e.Kind = boundedKind(e.Kind)
		}
		if c.redact == nil || e.Detail == "" {
			e.Detail = ""
		} else {
			e.Detail = c.text(fieldOf(e.Quote), e.Detail)
		}
		e.Quote, e.Counterpart = c.exportQuote(e.Quote, t), c.exportQuote(e.Counterpart, t)
		out[i] = e
	}
	return out
}

// claimText is a claim's text as it may leave the process.
func (c *config) claimText(text string, t *sampleTexts) string {
	switch {
	case c.redact == nil:
		return ""
	case t != nil && text == t.raw.Answer:
		return t.answer
	}
	return c.text(FieldAnswer, text)
}

// exportResult returns the copy of r that a record carries (see above),
// without the raw estimates. t holds the sample's redacted texts (nil
// without content capture).
func (c *config) exportResult(r *guard.Result, t *sampleTexts) guard.Result {
	if c.redact == nil {
		return record.WithoutText(r)
	}
	out := *r
	out.Estimates = nil
	out.Reason = c.reasonText(r.Reason)
	out.Evidence = c.exportEvidence(r.Evidence, t)
	if r.Citations != nil {
		out.Citations = make([]guard.Citation, len(r.Citations))
		for i, ct := range r.Citations {
			ct.Sentence, ct.Context = c.exportQuote(ct.Sentence, t), c.exportQuote(ct.Context, t)
			out.Citations[i] = ct
		}
	}
	if r.Abstentions != nil {
		out.Abstentions = make([]guard.Abstention, len(r.Abstentions))
		for i, a := range r.Abstentions {
			a.Reason = c.reasonText(a.Reason)
			out.Abstentions[i] = a
		}
	}
	if r.Errors != nil {
		out.Errors = make([]guard.JudgeError, len(r.Errors))
		for i, e := range r.Errors {
			e.Message = c.reasonText(e.Message)
			out.Errors[i] = e
		}
	}
	if r.Fallback != nil {
		f := *r.Fallback
		f.Reason = c.reasonText(f.Reason)
		out.Fallback = &f
	}
	if r.Claims != nil {
		out.Claims = make([]guard.Claim, len(r.Claims))
		for i, cl := range r.Claims {
			cl.Text = c.claimText(cl.Text, t)
			cl.Reason = c.reasonText(cl.Reason)
			cl.Evidence = c.exportEvidence(cl.Evidence, t)
			out.Claims[i] = cl
		}
	}
	if r.Teacher != nil {
		tc := *r.Teacher
		tc.Reason = c.reasonText(tc.Reason)
		if tc.Estimates != nil {
			tc.Estimates = make([]guard.Estimate, len(r.Teacher.Estimates))
			for i, e := range r.Teacher.Estimates {
				e.Reason = c.reasonText(e.Reason)
				e.Evidence = c.exportEvidence(e.Evidence, t)
				if e.Citations != nil {
					cs := make([]guard.Citation, len(e.Citations))
					for k, ct := range e.Citations {
						ct.Sentence, ct.Context = c.exportQuote(ct.Sentence, t), c.exportQuote(ct.Context, t)
						cs[k] = ct
					}
					e.Citations = cs
				}
				e.Features = nil
				tc.Estimates[i] = e
			}
		}
		out.Teacher = &tc
	}
	return out
}
