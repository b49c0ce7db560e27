package hardening

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// BenchmarkHugeInputs measures the embedded judges on the largest inputs the
// hardening issue names, with the guard's limits raised to let them in (at
// the default limits both are rejected with an error naming the field:
// guard/lexical's TestBadSamplesNameTheField).
func BenchmarkHugeInputs(b *testing.B) {
	g, err := lexical.NewGuard(guard.WithLimits(guard.Limits{MaxContexts: 20000, MaxTextBytes: 16 << 20, MaxTotalBytes: 64 << 20}))
	if err != nil {
		b.Fatal(err)
	}
	words := strings.Fields("the museum opened in 1990 and has a café with 30 seats near the river")
	var sb strings.Builder
	for i := 0; sb.Len() < 10<<20; i++ {
		sb.WriteString(words[i%len(words)])
		if i%17 == 16 {
			sb.WriteString(". ")
		} else {
			sb.WriteByte(' ')
		}
	}
	bigAnswer := guard.Sample{Question: "When did the museum open?", Answer: sb.String(),
		Contexts: []guard.Context{{ID: "c1", Text: "The museum opened in 1990."}}}
	manyContexts := guard.Sample{Question: "When did the museum open?", Answer: "In 1990."}
	for i := range 10000 {
		manyContexts.Contexts = append(manyContexts.Contexts, guard.Context{ID: fmt.Sprint("c", i), Text: fmt.Sprintf("Shop %s sells maps of the river.", strings.Repeat("x", i%7+1))})
	}
	manyContexts.Contexts[4321].Text = "The museum opened in 1990."
	for _, bc := range []struct {
		name string
		s    guard.Sample
	}{{"10MB-answer", bigAnswer}, {"10000-contexts", manyContexts}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := g.Evaluate(context.Background(), bc.s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
