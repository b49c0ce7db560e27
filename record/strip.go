package record

import (
	"slices"

	"github.com/ragtriage/ragtriage/guard"
)

// OtherKind stands for an evidence kind guard does not name (a custom
// judge's, which may be any text) in a result without text.
const OtherKind guard.EvidenceKind = "other"

// WithoutText returns the copy of r a record carries when content capture
// is off, the record sink's default: no user text and no quoted excerpt.
// It drops the raw estimates; the texts and details of evidence, citations
// and claims (their kinds, sources and offsets stay; a kind guard does not
// name reads OtherKind); and it withholds every quoted excerpt of a reason
// or error message (guard.WithholdQuotes). The teacher's estimates are
// treated the same way. Numbers stay: probabilities, verdicts, the feature
// vectors (Result.Features), the draw and the teacher's verdicts. r is not
// modified. The middleware's sink writes this copy without WithContent;
// `ragtriage eval -records-out` writes it without -records-content.
func WithoutText(r *guard.Result) guard.Result {
	out := *r
	out.Estimates = nil
	out.Reason = guard.WithholdQuotes(r.Reason)
	out.Evidence = evidenceWithoutText(r.Evidence)
	out.Citations = citationsWithoutText(r.Citations)
	if r.Abstentions != nil {
		out.Abstentions = make([]guard.Abstention, len(r.Abstentions))
		for i, a := range r.Abstentions {
			a.Reason = guard.WithholdQuotes(a.Reason)
			out.Abstentions[i] = a
		}
	}
	if r.Errors != nil {
		out.Errors = make([]guard.JudgeError, len(r.Errors))
		for i, e := range r.Errors {
			e.Message = guard.WithholdQuotes(e.Message)
			out.Errors[i] = e
		}
	}
	if r.Fallback != nil {
		f := *r.Fallback
		f.Reason = guard.WithholdQuotes(f.Reason)
		out.Fallback = &f
	}
	if r.Claims != nil {
		out.Claims = make([]guard.Claim, len(r.Claims))
		for i, cl := range r.Claims {
			cl.Text = ""
			cl.Reason = guard.WithholdQuotes(cl.Reason)
			cl.Evidence = evidenceWithoutText(cl.Evidence)
			out.Claims[i] = cl
		}
	}
	if r.Teacher != nil {
		t := *r.Teacher
		t.Reason = guard.WithholdQuotes(t.Reason)
		t.Estimates = EstimatesWithoutText(t.Estimates)
		out.Teacher = &t
	}
	return out
}

// EstimatesWithoutText returns a copy of ests without user text: reasons
// with their quoted excerpts withheld, evidence and citations without texts
// and details (see WithoutText). Feature vectors are left out too (they are
// not part of an estimate's JSON form).
func EstimatesWithoutText(ests []guard.Estimate) []guard.Estimate {
	if ests == nil {
		return nil
	}
	out := make([]guard.Estimate, len(ests))
	for i, e := range ests {
		e.Reason = guard.WithholdQuotes(e.Reason)
		e.Evidence = evidenceWithoutText(e.Evidence)
		e.Citations = citationsWithoutText(e.Citations)
		e.Features = nil
		out[i] = e
	}
	return out
}

// BoundedKind is k when guard names it (guard.EvidenceKinds), and
// OtherKind otherwise.
func BoundedKind(k guard.EvidenceKind) guard.EvidenceKind {
	if slices.Contains(guard.EvidenceKinds, k) {
		return k
	}
	return OtherKind
}

func evidenceWithoutText(ev []guard.Evidence) []guard.Evidence {
	if ev == nil {
		return nil
	}
	out := make([]guard.Evidence, len(ev))
	for i, e := range ev {
		e.Kind = BoundedKind(e.Kind)
		e.Detail = ""
		e.Quote.Text, e.Counterpart.Text = "", ""
		out[i] = e
	}
	return out
}

func citationsWithoutText(cs []guard.Citation) []guard.Citation {
	if cs == nil {
		return nil
	}
	out := make([]guard.Citation, len(cs))
	for i, c := range cs {
		c.Sentence.Text, c.Context.Text = "", ""
		out[i] = c
	}
	return out
}
