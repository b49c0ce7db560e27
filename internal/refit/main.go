// Command refit recounts the lexical judges' vocabulary and refits their
// calibration profile on the labeled development data, writing the quality
// report the README quotes.
//
//	go run ./internal/refit -stage vocab -data ../shared/data/dev   # writes guard/lexical/vocab.txt
//	go run ./internal/refit -stage fit   -data ../shared/data/dev   # writes guard/lexical/profile.json and testdata/quality/
//
// The vocab stage must run first when the tokenizer changes (the fit stage
// uses the embedded vocabulary, so it needs a rebuild in between: two
// commands). Quality figures are out-of-fold: 5-fold cross-validation grouped
// so that rows sharing a question or a passage never straddle folds, and the
// shipped thresholds are judged on folds they were not chosen on.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ragtriage/ragtriage/evalkit"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

var files = []string{"halueval.jsonl", "squad_v2.jsonl", "hotpotqa.jsonl", "hotpotqa_ablated.jsonl", "truthfulqa.jsonl"}

type dataset struct {
	name string
	rows []evalkit.Row
	file lexical.DataFile
}

func main() {
	log.SetFlags(0)
	data := flag.String("data", "../shared/data/dev", "folder of the development data")
	stage := flag.String("stage", "fit", "vocab or fit")
	vocabOut := flag.String("vocab", "guard/lexical/vocab.txt", "vocabulary file to write (stage vocab)")
	profOut := flag.String("profile", "guard/lexical/profile.json", "profile to write (stage fit)")
	reportOut := flag.String("report", "testdata/quality/dev-report", "report path without extension (stage fit): .json and .md are written")
	alpha := flag.Float64("alpha", 0.05, "largest error rate allowed in each auto-decided region")
	confidence := flag.Float64("confidence", 0.95, "confidence of the Clopper–Pearson bound on that error")
	flag.Parse()

	var sets []dataset
	for _, f := range files {
		ds, err := load(filepath.Join(*data, f))
		if err != nil {
			log.Fatal(err)
		}
		sets = append(sets, ds)
	}
	switch *stage {
	case "vocab":
		if err := writeVocab(sets, *vocabOut); err != nil {
			log.Fatal(err)
		}
	case "fit":
		if err := fit(sets, *profOut, *reportOut, *alpha, *confidence); err != nil {
			log.Fatal(err)
		}
	default:
		log.Fatalf("refit: unknown stage %q", *stage)
	}
}

func load(path string) (dataset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return dataset{}, err
	}
	sum := sha256.Sum256(b)
	ds := dataset{name: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, evalkit.MaxLineBytes+1)
	line := 0
	for sc.Scan() {
		line++
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		row, err := evalkit.ParseRow(sc.Bytes())
		if err != nil {
			return ds, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		ds.rows = append(ds.rows, row)
	}
	if err := sc.Err(); err != nil {
		return ds, fmt.Errorf("%s: %v", path, err)
	}
	ds.file = lexical.DataFile{Path: filepath.Base(path), SHA256: hex.EncodeToString(sum[:]), Rows: len(ds.rows)}
	return ds, nil
}

// writeVocab counts document frequencies of stems over the passages and
// questions (never answers or references, and never labels), keeping stems
// seen in at least two documents.
func writeVocab(sets []dataset, out string) error {
	seen := map[string]bool{}
	df := map[string]int{}
	docs := 0
	add := func(text string) {
		if seen[text] || strings.TrimSpace(text) == "" {
			return
		}
		seen[text] = true
		docs++
		uniq := map[string]bool{}
		for _, s := range lexical.Stems(text) {
			uniq[s] = true
		}
		for s := range uniq {
			df[s]++
		}
	}
	for _, ds := range sets {
		for _, r := range ds.rows {
			add(r.Sample.Question)
			for _, c := range r.Sample.Contexts {
				add(c.Text)
			}
		}
	}
	keys := make([]string, 0, len(df))
	for k, n := range df {
		if n >= 2 && !strings.ContainsAny(k, " \t\n") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "#docs %d\n", docs)
	for _, k := range keys {
		fmt.Fprintf(w, "%s %d\n", k, df[k])
	}
	if err := w.Flush(); err != nil {
		return err
	}
	log.Printf("refit: %d documents, %d stems kept → %s", docs, len(keys), out)
	return f.Close()
}
