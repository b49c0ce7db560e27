package quant

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// devTexts reads the question, answer, reference and every context text of
// the development rows that BenchmarkExtractDev runs on: HaluEval, SQuAD v2
// and HotpotQA, ordinary English prose with few numbers in it.
func devTexts(tb testing.TB) []string {
	var texts []string
	for _, name := range []string{"halueval.jsonl", "squad_v2.jsonl", "hotpotqa.jsonl"} {
		f, err := os.Open("../../../../data/dev/" + name)
		if err != nil {
			tb.Skip("no development data:", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<22)
		for sc.Scan() {
			var row struct {
				Question  string `json:"question"`
				Answer    string `json:"answer"`
				Reference string `json:"referenceAnswer"`
				Contexts  []struct {
					Text string `json:"text"`
				} `json:"contexts"`
			}
			if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
				tb.Fatal(err)
			}
			texts = append(texts, row.Question, row.Answer, row.Reference)
			for _, c := range row.Contexts {
				texts = append(texts, c.Text)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			tb.Fatal(err)
		}
	}
	return texts
}

// BenchmarkExtractDev extracts from every text of three development files
// per op; bytes/op is the text they hold.
func BenchmarkExtractDev(b *testing.B) {
	texts := devTexts(b)
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	dst := make([]Quantity, 0, 256)
	for b.Loop() {
		for _, t := range texts {
			dst = Extract(dst[:0], t)
		}
	}
}
