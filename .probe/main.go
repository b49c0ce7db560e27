package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

func timeIt(g *guard.Guard, s guard.Sample, reps int) (time.Duration, guard.Result) {
	var res guard.Result
	best := time.Duration(1 << 62)
	for i := 0; i < reps; i++ {
		t0 := time.Now()
		res, _ = g.Evaluate(context.Background(), s)
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	return best, res
}

func causes(r guard.Result) string {
	m := map[guard.Cause]int{}
	for _, a := range r.Abstentions {
		m[a.Cause]++
	}
	return fmt.Sprint(m)
}

func main() {
	g, _ := lexical.NewGuard()
	reps := 5
	if len(os.Args) > 1 {
		reps, _ = strconv.Atoi(os.Args[1])
	}
	num := func(n int) guard.Sample {
		return guard.Sample{Question: "What number is it?", Answer: strings.Repeat("7 ", n), Contexts: []guard.Context{{ID: "c1", Text: strings.Repeat("8 ", n)}}}
	}
	sen := func(size int) guard.Sample {
		t := strings.Repeat("Refund ok. ", size/11)
		return guard.Sample{Question: "Is the refund ok?", Answer: t, Contexts: []guard.Context{{ID: "c1", Text: t}}}
	}
	var prev time.Duration
	for _, n := range []int{1000, 3000, 10000} {
		d, r := timeIt(g, num(n), reps)
		fmt.Printf("numbers N=%d: %v  %s %s ratio-to-prev %.2f abst %s\n", n, d, r.Diagnosis, r.Action, float64(d)/float64(max(prev, 1)), causes(r))
		prev = d
	}
	prev = 0
	for _, kb := range []int{3, 33, 300} {
		d, r := timeIt(g, sen(kb*1000), max(1, reps/ (kb/3+1)*1))
		fmt.Printf("sentences %dKB: %v  %s %s ratio-to-prev %.2f abst %s\n", kb, d, r.Diagnosis, r.Action, float64(d)/float64(max(prev, 1)), causes(r))
		prev = d
	}
	// distinct sentences made of the same few words: the work ceiling
	var b strings.Builder
	for i := 0; b.Len() < 33000; i++ {
		fmt.Fprintf(&b, "Refund ok %d. ", i)
	}
	adv := guard.Sample{Question: "Is the refund ok?", Answer: b.String(), Contexts: []guard.Context{{ID: "c1", Text: b.String()}}}
	d, r := timeIt(g, adv, 1)
	fmt.Printf("distinct sentences 33KB: %v %s %s abst %s\n", d, r.Diagnosis, r.Action, causes(r))
	// deadline probe
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	s := num(10000)
	s.Contexts = append(s.Contexts, guard.Context{ID: "c2", Text: strings.Repeat("9 ", 10000)})
	t0 := time.Now()
	res, err := g.Evaluate(ctx, s)
	cancel()
	fmt.Printf("deadline 100ms, 10k numbers: returned in %v, err %v, %s %s abst %s\n", time.Since(t0), err, res.Diagnosis, res.Action, causes(res))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Println("GOMAXPROCS", runtime.GOMAXPROCS(0))
}
