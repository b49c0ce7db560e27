package middleware

import (
	"github.com/ragtriage/ragtriage/guard"
)

// Judges explain themselves in free text that may quote the user's texts:
// the embedded judges name a word of the answer that no context holds
// (`"Acme" appears in no context`) or the quantities that differ, the LLM
// judge repeats a quote it could not find (`quote "…" is not in context
// "c1"`) or the start of a reply it could not read, and a server's error
// message may echo its input. Those texts leave the process on spans, in
// records and through the error handler. Without content capture the
// middleware withholds every quoted excerpt of a reason or an error message,
// and drops the texts and details of a result's evidence, citations and
// claims (keeping their kinds, sources and offsets). With content capture
// each of them goes through the Redactor first: quotes and details as the
// field their quote comes from, reasons as FieldCompletion (judges' words).
// Error messages given to the error handler always have their quoted
// excerpts withheld.

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

// quoteText is the text a structured quote may carry out of the process:
// none without content capture, the redacted text with it.
func (c *config) quoteText(q guard.Quote) string {
	if c.redact == nil || q.Text == "" {
		return ""
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

func (c *config) exportQuote(q guard.Quote) guard.Quote {
	q.Text = c.quoteText(q)
	return q
}

func (c *config) exportEvidence(ev []guard.Evidence) []guard.Evidence {
	if ev == nil {
		return nil
	}
	out := make([]guard.Evidence, len(ev))
	for i, e := range ev {
		if c.redact == nil || e.Detail == "" {
			e.Detail = ""
		} else {
			e.Detail = c.text(fieldOf(e.Quote), e.Detail)
		}
		e.Quote, e.Counterpart = c.exportQuote(e.Quote), c.exportQuote(e.Counterpart)
		out[i] = e
	}
	return out
}

// exportResult returns the copy of r that a record carries (see above),
// without the raw estimates.
func (c *config) exportResult(r *guard.Result) guard.Result {
	out := *r
	out.Estimates = nil
	out.Reason = c.reasonText(r.Reason)
	out.Evidence = c.exportEvidence(r.Evidence)
	if r.Citations != nil {
		out.Citations = make([]guard.Citation, len(r.Citations))
		for i, ct := range r.Citations {
			ct.Sentence, ct.Context = c.exportQuote(ct.Sentence), c.exportQuote(ct.Context)
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
			if c.redact == nil {
				cl.Text = ""
			} else {
				cl.Text = c.text(FieldAnswer, cl.Text)
			}
			cl.Reason = c.reasonText(cl.Reason)
			cl.Evidence = c.exportEvidence(cl.Evidence)
			out.Claims[i] = cl
		}
	}
	return out
}
