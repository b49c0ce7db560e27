package lexical_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// benchSample is the benchmark shape: 5 contexts of about 120 words
// of ordinary encyclopedic prose (written for this benchmark), a 3-sentence
// answer, and a reference.
func benchSample() guard.Sample {
	paras := []string{
		"The Rhine rises in the Swiss Alps, in the canton of Graubünden, where two headwater streams, the Anterior Rhine and the Posterior Rhine, meet near the village of Reichenau. From there it runs north into Lake Constance, turns west along the border between Switzerland and Germany, and at Basel bends north again to form the boundary between France and Germany. Below Mainz it cuts through the narrow Middle Rhine gorge, passes Koblenz, Bonn and Cologne, and finally crosses into the Netherlands, where it splits into several branches before reaching the North Sea near Rotterdam. Measured along its course the river is about 1,230 kilometres long, and its average discharge at the Dutch border is roughly 2,900 cubic metres per second.",
		"For centuries the Rhine has been one of the busiest waterways in Europe. In Roman times it marked much of the northern frontier of the empire, and legions built forts at places that later grew into cities such as Cologne, Bonn and Mainz. During the Middle Ages dozens of castles were raised on the cliffs above the Middle Rhine, and their owners charged tolls on every boat that passed. Today barges carry coal, grain, chemicals and containers between the port of Rotterdam and inland harbours such as Duisburg, which handles more cargo than any other inland port in the world. The river also supplies drinking water to millions of people, and it remains a popular route for passenger cruises.",
		"Cologne is the largest city on the Rhine and the fourth largest city in Germany, with a population of a little more than one million people. It was founded by the Romans in the first century and received the rights of a colony in the year 50, which gave the city its name. Its Gothic cathedral, begun in 1248 and not completed until 1880, is one of the most visited landmarks in the country and was declared a World Heritage Site in 1996. The city is known for its annual carnival, its many museums and its trade fairs. Several bridges cross the river there, including the Hohenzollern Bridge, which carries more than a thousand trains every day.",
		"The length of the Rhine has long been a matter of dispute. For most of the twentieth century reference books gave a figure of 1,320 kilometres, but in 2010 a biologist at the University of Cologne noticed that this number had probably come from a simple typing error that swapped two digits. Official measurements by the Dutch water authority put the total at about 1,232 kilometres, including the stretch through Lake Constance. Distances along the river are marked by Rhine kilometre signs, a system introduced in 1939 that starts at the old bridge in Constance and counts downstream to the mouth near Hoek van Holland. Straightening projects in the nineteenth century also shortened the river by about eighty kilometres.",
		"Lake Constance lies on the northern edge of the Alps where Germany, Austria and Switzerland meet, and it is fed mainly by the Alpine Rhine, which enters the lake from the south near Bregenz. The lake has three parts: the large upper lake, the smaller lower lake, and a short channel of the river that connects the two near the town of Konstanz. Its surface is about 395 metres above sea level, and its greatest depth is more than 250 metres. The lake supplies drinking water to around four million people in southern Germany. Because the three countries have never agreed on where their borders run across the water, it is one of the few places in Europe without a formally defined boundary.",
	}
	s := guard.Sample{
		ID:        "bench",
		Question:  "How long is the Rhine and where does it end?",
		Answer:    "The Rhine is about 1,230 kilometres long. It flows through the Netherlands and empties into the North Sea near Rotterdam. The largest city on its banks is Cologne, which has more than a million people.",
		Reference: guard.Ref("About 1,230 km; it flows into the North Sea."),
	}
	for i, p := range paras {
		s.Contexts = append(s.Contexts, guard.Context{ID: "c" + string(rune('1'+i)), Text: p})
	}
	return s
}

// haluSample is the shape of a HaluEval row: one context of about 60 words,
// a short answer, a reference.
func haluSample() guard.Sample {
	return guard.Sample{
		ID:        "halu",
		Question:  "Which city did the Rhine shipping company that owns the Goethe paddle steamer have its head office in?",
		Contexts:  []guard.Context{{ID: "c1", Text: "The Goethe is a paddle steamer built in 1913 that carried passengers on the Middle Rhine for more than a century. She belonged to the Köln-Düsseldorfer company, whose head office is in Cologne.The Köln-Düsseldorfer is a shipping line founded in 1826 that runs river cruises between Mainz and Cologne."}},
		Answer:    "The head office was in Cologne.",
		Reference: guard.Ref("Cologne"),
	}
}

func benchEvaluate(b *testing.B, s guard.Sample, opts ...guard.Option) {
	g, err := lexical.NewGuard(opts...)
	if err != nil {
		b.Fatal(err)
	}
	words := 0
	for _, c := range s.Contexts {
		words += len(strings.Fields(c.Text))
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu, n := startThreadCPU(), 0
	for b.Loop() {
		if _, err := g.Evaluate(ctx, s); err != nil {
			b.Fatal(err)
		}
		n++
	}
	cpu.report(b, n)
	b.ReportMetric(float64(words)/float64(len(s.Contexts)), "words/context")
}

// BenchmarkEvaluate is the benchmark: 5 contexts × ~120 words, a
// 3-sentence answer, with reference, all seven decisions.
func BenchmarkEvaluate(b *testing.B) { benchEvaluate(b, benchSample()) }

// BenchmarkEvaluateHaluEval is one HaluEval-sized row: the per-row judging
// cost of `ragtriage judge` on that data.
func BenchmarkEvaluateHaluEval(b *testing.B) { benchEvaluate(b, haluSample()) }

// BenchmarkEvaluateNoCache and BenchmarkEvaluateHaluEvalNoCache are the two
// above without the text cache: the same sample evaluated again and again
// finds its texts in the cache from the third time on, which a sample met
// once never does.
func BenchmarkEvaluateNoCache(b *testing.B) { benchEvaluate(b, benchSample(), noCache) }

func BenchmarkEvaluateHaluEvalNoCache(b *testing.B) { benchEvaluate(b, haluSample(), noCache) }

func benchJudge(b *testing.B) *lexical.Judge {
	j, err := lexical.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	return j
}

// BenchmarkJudgeDecision is the judge alone on the sample, asked for
// one decision at a time and for all seven: a partial request computes
// only the features it reads.
func BenchmarkJudgeDecision(b *testing.B) {
	j := benchJudge(b)
	s := benchSample()
	ctx := context.Background()
	cases := []struct {
		name string
		ds   []guard.Decision
	}{{"all", guard.Decisions}}
	for _, d := range guard.Decisions {
		cases = append(cases, struct {
			name string
			ds   []guard.Decision
		}{d.String(), []guard.Decision{d}})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			req := guard.Request{Sample: &s, Decisions: c.ds}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := j.Judge(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// claimsSample is the sample with a six-sentence answer, and its
// sentences as claims.
func claimsSample() (guard.Sample, []string) {
	s := benchSample()
	s.Answer = "The Rhine rises in the Swiss Alps. It is about 1,230 kilometres long. Below Mainz it cuts through the Middle Rhine gorge. Cologne is the largest city on the river. Duisburg has the largest inland port in the world. The river empties into the North Sea near Rotterdam."
	return s, lexical.Sentences(s.Answer)
}

// BenchmarkClaimsPerCall judges the claims of claimsSample the way claims
// mode did before JudgeClaims: one Groundedness request per claim, each
// analysing the question and the contexts again.
func BenchmarkClaimsPerCall(b *testing.B) {
	j := benchJudge(b)
	s, claims := claimsSample()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range claims {
			cs := s
			cs.Answer = c
			if _, err := j.Judge(ctx, guard.Request{Sample: &cs, Decisions: []guard.Decision{guard.Groundedness}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(claims)), "claims")
}
