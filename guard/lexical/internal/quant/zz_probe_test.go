package quant

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZProbe(t *testing.T) {
	in := os.Getenv("PROBE")
	for _, s := range strings.Split(in, "|") {
		fmt.Printf("%-34q", s)
		for _, q := range Extract(nil, s) {
			fmt.Printf(" {%v %.6g %q %q h=%v}", q.Kind, q.Value, q.Unit, s[q.Start:q.End], q.Hedged)
		}
		fmt.Println()
	}
}
