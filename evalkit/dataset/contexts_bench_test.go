package dataset

import (
	"fmt"
	"strings"
	"testing"
)

// contextsLine returns a dataset line with n contexts of one-letter texts:
// n = 100,000 gives a line of about 2 MB.
func contextsLine(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"id":"r","question":"q?","answer":"a","contexts":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"c%d","text":"x"}`, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkParseRowContexts parses one line of n contexts: the time per
// line grows linearly in n.
func BenchmarkParseRowContexts(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		line := contextsLine(n)
		b.Run(fmt.Sprintf("contexts=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := ParseRow(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
