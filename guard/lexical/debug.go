package lexical

import (
	"fmt"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
)

// Explain describes, in plain text, the hard evidence the judges find in s:
// quantities without support, flips, absent and misplaced names. It is a
// development aid for offline tools; judges never call it.
func (j *Judge) Explain(s *guard.Sample) string {
	a := analysisPool.Get().(*analysis)
	defer analysisPool.Put(a)
	var f featureSet
	loadSample(a, s, j.vocab)
	extract(a, j.vocab, &f)
	var b strings.Builder
	for _, m := range f.mismatches {
		q := a.a.quants[m.ans]
		if m.sameSlot {
			c := a.ctxs[m.ctx].quants[m.cq]
			fmt.Fprintf(&b, "number mismatch: %q vs context %q; ", s.Answer[q.Start:q.End], s.Contexts[m.ctx].Text[c.Start:c.End])
		} else {
			fmt.Fprintf(&b, "unsupported number: %q; ", s.Answer[q.Start:q.End])
		}
	}
	for _, fl := range f.flips {
		if fl.tok < 0 {
			sp := a.a.sents[fl.sent]
			ws := a.windowSpan(fl.win)
			fmt.Fprintf(&b, "negation flip: %q vs %q; ", s.Answer[sp.start:sp.end], s.Contexts[fl.win.ctx].Text[ws.start:ws.end])
		} else {
			t := a.a.toks[fl.tok]
			fmt.Fprintf(&b, "antonym flip: %q; ", s.Answer[t.start:t.end])
		}
	}
	for _, ti := range f.absent {
		t := a.a.toks[ti]
		fmt.Fprintf(&b, "absent entity: %q; ", s.Answer[t.start:t.end])
	}
	for _, ti := range f.swapped {
		t := a.a.toks[ti]
		fmt.Fprintf(&b, "entity outside window: %q; ", s.Answer[t.start:t.end])
	}
	if f.ground[gAbsent] > 0 {
		b.WriteString("absent claim; ")
	}
	return b.String()
}
