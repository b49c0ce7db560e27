package otlp_test

import (
	"fmt"
	"os"

	"github.com/ragtriage/ragtriage/evalkit/otlp"
	"github.com/ragtriage/ragtriage/record"
)

// A Reader counts a span once across files: the second copy of the same
// export replays nothing and lists its spans as repeats.
func ExampleReader() {
	rd := otlp.NewReader()
	for range 2 {
		f, err := os.Open("testdata/otlp-roundtrip.jsonl")
		if err != nil {
			panic(err)
		}
		st, err := rd.Read(f, func(int, record.Record) error { return nil })
		f.Close()
		if err != nil {
			panic(err)
		}
		fmt.Printf("%d records, %d repeated\n", st.Records, st.Repeated)
	}
	// Output:
	// 6 records, 0 repeated
	// 0 records, 6 repeated
}
