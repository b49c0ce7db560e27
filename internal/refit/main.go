// Command refit recounts the lexical judges' vocabulary and refits their
// calibration profile on the labelled data shipped in data/, writing the
// quality report the README quotes.
//
//	go run ./internal/refit -stage vocab   # writes guard/lexical/vocab.txt
//	go run ./internal/refit -stage fit     # writes guard/lexical/profile.json and testdata/quality/
//
// The vocab stage must run first when the tokenizer changes (the fit stage
// uses the embedded vocabulary, so it needs a rebuild in between: two
// commands). Every quality figure is out of fold: 5-fold cross-validation
// grouped so that rows sharing a passage never straddle folds. The policy
// check is nested: for each outer fold, models, thresholds, gates and the
// pass rule are chosen on the other four folds alone (with their own inner
// cross-validation) and applied to the fifth.
//
// The output is deterministic: the same data and settings give the same
// profile, byte for byte (`-check` compares instead of writing).
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// sourceFiles maps each labelled file (relative to -data) to the name its
// rows are reported under.
var sourceFiles = []struct{ path, name string }{
	{"dev/halueval.jsonl", "halueval"},
	{"dev/squad_v2.jsonl", "squad_v2"},
	{"dev/hotpotqa.jsonl", "hotpotqa"},
	{"dev/hotpotqa_ablated.jsonl", "hotpotqa_ablated"},
	{"dev/truthfulqa.jsonl", "truthfulqa"},
	{"dev/expertqa_groundedness.jsonl", "expertqa"},
	{"dev/factcheckgpt_evidence.jsonl", "factcheckgpt"},
	{"dev/begin_wow_groundedness.jsonl", "begin"},
	{"dev/wice_groundedness.jsonl", "wice"},
	{"dev/nli_scitail.jsonl", "scitail"},
	{"dev/nli_mnli.jsonl", "mnli"},
	{"dev/nli_snli.jsonl", "snli"},
	{"dev/nli_fever_nli.jsonl", "fever_nli"},
	{"natural/natural.jsonl", "natural"},
}

type labelled struct {
	name string
	rows []dataset.Row
	file lexical.DataFile
}

func main() {
	log.SetFlags(0)
	data := flag.String("data", "data", "folder of the labelled data (see data/README.md)")
	stage := flag.String("stage", "fit", "vocab or fit")
	vocabOut := flag.String("vocab", "guard/lexical/vocab.txt", "vocabulary file to write (stage vocab)")
	profOut := flag.String("profile", "guard/lexical/profile.json", "profile to write (stage fit)")
	reportOut := flag.String("report", "testdata/quality/dev-report", "report path without extension (stage fit): .json and .md are written")
	alpha := flag.Float64("alpha", 0.05, "largest error rate allowed in each auto-decided region, on every source")
	confidence := flag.Float64("confidence", 0.95, "confidence of the Clopper–Pearson bound on that error")
	check := flag.Bool("check", false, "compare with the files on disk instead of writing them; exit 1 if they differ")
	flag.BoolVar(&verbose, "v", false, "log every threshold selection")
	flag.StringVar(&dumpDir, "dump", "", "with -v: write each decision's selection data (p, label, source, hard) to this folder")
	flag.Parse()

	var sets []labelled
	for _, f := range sourceFiles {
		ds, err := load(filepath.Join(*data, f.path), f.name)
		if err != nil {
			log.Fatal(err)
		}
		ds.file.Path = f.path
		sets = append(sets, ds)
	}
	out := map[string][]byte{}
	var err error
	switch *stage {
	case "vocab":
		out[*vocabOut], err = vocab(sets)
	case "fit":
		err = fitProfile(sets, settings{alpha: *alpha, confidence: *confidence}, *profOut, *reportOut, out)
	case "features":
		err = diagnose(sets)
	case "errors":
		err = topErrors(sets, settings{alpha: *alpha, confidence: *confidence}, flag.Arg(0), flag.Arg(1))
	case "explain":
		err = explainHard(sets, flag.Arg(0))
	case "dump":
		err = dumpFeatures(sets, "/tmp/features.tsv")
	case "precision":
		err = precisionAtFull(sets)
	default:
		log.Fatalf("refit: unknown stage %q", *stage)
	}
	if err != nil {
		log.Fatal(err)
	}
	paths := make([]string, 0, len(out))
	for p := range out {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	differ := false
	for _, p := range paths {
		if *check {
			old, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(old, out[p]) {
				log.Printf("refit: %s differs from what refit computes", p)
				differ = true
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, out[p], 0o644); err != nil {
			log.Fatal(err)
		}
		log.Printf("refit: wrote %s", p)
	}
	if differ {
		os.Exit(1)
	}
	if *check {
		log.Printf("refit: %d files match", len(paths))
	}
}

func load(path, name string) (labelled, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return labelled{}, err
	}
	sum := sha256.Sum256(b)
	ds := labelled{name: name}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, dataset.MaxLineBytes+1)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		row, err := dataset.ParseRow(sc.Bytes())
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

// vocab counts document frequencies of stems over the passages and questions
// (never answers or references, and never labels), keeping stems seen in at
// least two documents.
func vocab(sets []labelled) ([]byte, error) {
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
	var b bytes.Buffer
	fmt.Fprintf(&b, "#docs %d\n", docs)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %d\n", k, df[k])
	}
	log.Printf("refit: %d documents, %d stems kept", docs, len(keys))
	return b.Bytes(), nil
}
