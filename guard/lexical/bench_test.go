package lexical_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// benchSample is the benchmark shape: 5 contexts of about 120 words,
// a 3-sentence answer, and a reference.
func benchSample() guard.Sample {
	paras := []string{
		"The Rhine is a European river that begins in the Swiss canton of Graubünden in the southeastern Swiss Alps, forms part of the Swiss-Austrian, Swiss-Liechtenstein border, Swiss-German and then the Franco-German border, then flows through the Rhineland and eventually empties into the North Sea in the Netherlands. The biggest city on the river Rhine is Cologne, Germany with a population of more than 1,050,000 people. It is the second-longest river in Central and Western Europe, after the Danube, at about 1,230 km (760 mi), with an average discharge of about 2,900 m3/s.",
		"The Rhine and the Danube comprised much of the northern inland frontier of the Roman Empire and, since those days, the Rhine has been a vital and navigable waterway carrying trade and goods deep inland. Its importance as a waterway in the Holy Roman Empire is supported by the many castles and fortifications built along it. In the modern era, it has become a symbol of German nationalism. The river was an important trade route in the Middle Ages and remains one of the busiest waterways in the world today.",
		"The variant forms of the name of the Rhine in modern languages are all derived from the Gaulish name Rēnos, which was adapted in Roman-era geography as Greek Rhēnos and Latin Rhenus. The spelling with Rh- in English Rhine as well as in German Rhein and French Rhin is due to the influence of Greek orthography, while the vocalisation -i- is due to the Proto-Germanic adoption of the Gaulish name as Rīnaz, via Fränkisch Rīn. The name is very old and its roots are shared with many other European rivers.",
		"The length of the Rhine is conventionally measured in Rhine-kilometers, a scale introduced in 1939 which runs from the Old Rhine Bridge at Constance to Hoek van Holland. The river length was significantly shortened from the river's natural course due to number of canalisation projects completed in the 19th and 20th century. The total length of the Rhine, to the inclusion of Lake Constance and the Alpine Rhine, is more difficult to measure objectively; it was cited as 1,232 kilometres by the Dutch Rijkswaterstaat in 2010.",
		"Lake Constance consists of three bodies of water: the Obersee, the Untersee and a connecting stretch of the Rhine called the Seerhein. The lake is situated where Germany, Switzerland and Austria meet. Its shorelines lie in the districts of Konstanz and Bodensee in Baden-Württemberg, Lindau in Bavaria and the Swiss cantons of Thurgau and St. Gallen. The Rhine flows into it from the south following the Swiss-Austrian border, and it is located at approximately 395 metres above sea level.",
	}
	s := guard.Sample{
		ID:        "bench",
		Question:  "How long is the Rhine and where does it end?",
		Answer:    "The Rhine is about 1,230 km long. It empties into the North Sea in the Netherlands. Its largest city is Cologne, with more than a million people.",
		Reference: guard.Ref("About 1,230 km; it flows into the North Sea."),
	}
	for i, p := range paras {
		s.Contexts = append(s.Contexts, guard.Context{ID: "c" + string(rune('1'+i)), Text: p})
	}
	return s
}

func BenchmarkEvaluate(b *testing.B) {
	g, err := lexical.NewGuard()
	if err != nil {
		b.Fatal(err)
	}
	s := benchSample()
	words := 0
	for _, c := range s.Contexts {
		words += len(strings.Fields(c.Text))
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := g.Evaluate(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(words)/float64(len(s.Contexts)), "words/context")
}
