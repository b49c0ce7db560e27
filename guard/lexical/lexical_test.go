package lexical

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/guard"
)

func TestStems(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"Arthur's Magazine", "arthur magazin"},
		{"It is based on bases", "it is bas on bas"},
		{"The company was founded", "the company was found"},
		{"running cities", "run city"},
		{"Café Zürich", "caf zurich"},
		{"He didn't go", "he did not go"},
		{"1,234.5 people", "1234.5 peopl"},
		{"state-of-the-art", "stat of the art"},
	}
	for _, tt := range tests {
		if got := strings.Join(Stems(tt.in), " "); got != tt.want {
			t.Errorf("Stems(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two! Three?", []string{"One.", "Two!", "Three?"}},
		{"Dr. Smith met J. K. Rowling in the U.S. in 1990. Then he left.", []string{"Dr. Smith met J. K. Rowling in the U.S. in 1990.", "Then he left."}},
		{"It cost 3.5 dollars. OK", []string{"It cost 3.5 dollars.", "OK"}},
		{"in the 19th century.First for Women is a magazine.", []string{"in the 19th century.", "First for Women is a magazine."}},
		{"Title\nBody text here.", []string{"Title\n", "Body text here."}},
		{"", nil},
		{"...", nil},
	}
	for _, tt := range tests {
		var tz tokenizer
		_, sents := tz.tokenize(nil, tt.in, nil)
		var got []string
		for _, s := range sents {
			got = append(got, strings.TrimSpace(tt.in[s.start:s.end]))
		}
		var want []string
		for _, w := range tt.want {
			want = append(want, strings.TrimSpace(w))
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("sentences(%q) = %q; want %q", tt.in, got, want)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Hello, world. It's 3.5 km!", "don't\nstop", "\xff\xfe", "a.B", "1,2,3", "’s n’t", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var tz tokenizer
		toks, sents := tz.tokenize(nil, s, nil)
		prev := 0
		for _, tk := range toks {
			if tk.start < 0 || tk.end > int32(len(s)) || tk.start > tk.end || int(tk.start) < prev {
				t.Fatalf("token %+v out of order or bounds in %q", tk, s)
			}
			prev = int(tk.start)
		}
		prevEnd := 0
		for _, sp := range sents {
			if sp.start < prevEnd || sp.end > len(s) || sp.start > sp.end {
				t.Fatalf("sentence %+v out of order or bounds in %q", sp, s)
			}
			prevEnd = sp.end
		}
		if len(toks) > 0 && int(toks[len(toks)-1].sent) >= len(sents) {
			t.Fatalf("token sentence %d beyond %d sentences in %q", toks[len(toks)-1].sent, len(sents), s)
		}
		var a analysis
		var d doc
		a.analyze(&d, s, -1)
		if want := refSentStarts(d.toks, len(d.sents)); !slices.Equal(d.sentAt, want) {
			t.Fatalf("analyze's sentAt = %v; want %v in %q", d.sentAt, want, s)
		}
	})
}

func newGuard(t testing.TB) *guard.Guard {
	t.Helper()
	g, err := NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestEvaluateShapes(t *testing.T) {
	g := newGuard(t)
	ctx := context.Background()
	policy := guard.Sample{
		Question: "How many days do customers have to request a refund?",
		Contexts: []guard.Context{
			{ID: "policy", Text: "Customers may request a full refund within 30 days of purchase. Refunds are issued to the original payment method."},
			{ID: "shipping", Text: "Standard shipping takes 5 to 7 business days. Express shipping is available for an extra fee."},
		},
		Answer: "Customers can request a refund within 45 days of purchase.",
	}
	res, err := g.Evaluate(ctx, policy)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := res.Generation.Groundedness.Get(); p >= 0.5 {
		t.Errorf("groundedness of a fabricated number = %.3f; want < 0.5", p)
	}
	found := false
	for _, e := range res.Evidence {
		if e.Kind == guard.EvidenceNumberMismatch && e.Counterpart.ContextID == "policy" && strings.Contains(e.Counterpart.Text, "30") {
			found = true
		}
	}
	if !found {
		t.Errorf("no number_mismatch evidence pointing at the policy's 30 days: %+v", res.Evidence)
	}
	if len(res.Citations) != 1 || res.Citations[0].Supported {
		t.Errorf("citations = %+v; want one unsupported sentence", res.Citations)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), "correctness") {
		t.Errorf("result without reference mentions correctness: %s", b)
	}

	// The same answer, correct.
	policy.Answer = "Customers can request a refund within thirty days of purchase."
	res, _ = g.Evaluate(ctx, policy)
	if p, _ := res.Generation.Groundedness.Get(); p < 0.5 {
		t.Errorf("groundedness of a supported answer = %.3f; want ≥ 0.5 (evidence %+v)", p, res.Evidence)
	}
	if len(res.Citations) != 1 || !res.Citations[0].Supported || res.Citations[0].Context.ContextID != "policy" {
		t.Errorf("citations = %+v; want the sentence cited to policy", res.Citations)
	}
	if c := res.Citations[0].Context; c.Text != policy.Contexts[0].Text[c.Start:c.End] {
		t.Errorf("citation span %d..%d does not match its text %q", c.Start, c.End, c.Text)
	}

	// Zero contexts: every sentence unsupported, retrieval miss.
	policy.Contexts = nil
	res, _ = g.Evaluate(ctx, policy)
	if res.Diagnosis != guard.RetrievalMiss {
		t.Errorf("zero contexts: diagnosis %v; want RETRIEVAL_MISS", res.Diagnosis)
	}
	for _, c := range res.Citations {
		if c.Supported || !c.Context.IsZero() {
			t.Errorf("zero contexts: citation %+v; want unsupported", c)
		}
	}

	// With a reference, correctness is present.
	policy.Reference = guard.Ref("30 days")
	res, _ = g.Evaluate(ctx, policy)
	b, _ = json.Marshal(res)
	if !strings.Contains(string(b), `"correctness"`) {
		t.Errorf("result with reference lacks correctness: %s", b)
	}
}

func TestJudgeHonoursCancellation(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := guard.Sample{Question: "q?", Answer: "a", Contexts: []guard.Context{{ID: "c", Text: "a"}}}
	if _, err := j.Judge(ctx, guard.Request{Sample: &s, Decisions: guard.Decisions}); err == nil {
		t.Error("Judge with a cancelled context returned no error")
	}
}

func TestProfileValidation(t *testing.T) {
	p := DefaultProfile()
	if p.Version == "" || len(p.Data) == 0 || p.RefitCommand == "" {
		t.Fatalf("default profile lacks provenance: version %q, %d data files, command %q", p.Version, len(p.Data), p.RefitCommand)
	}
	for _, d := range guard.Decisions {
		if _, ok := p.Decisions[d.String()]; !ok {
			t.Errorf("default profile has no model for %v", d)
		}
	}
	bad := []string{
		`{}`,
		`{"version":"x","featuresVersion":"other"}`,
		`{"version":"x","featuresVersion":"` + FeaturesVersion + `","decisions":{"groundedness":{"features":["nope"],"model":{"weights":[1],"bias":0}}}}`,
		`{"version":"x","featuresVersion":"` + FeaturesVersion + `","decisions":{"bogus":{}}}`,
		`{"version":"x","featuresVersion":"` + FeaturesVersion + `","policy":{"groundedness":{"fail":0.9,"pass":0.1}}}`,
		`not json`,
	}
	for _, b := range bad {
		if _, err := ParseProfile([]byte(b)); err == nil {
			t.Errorf("ParseProfile(%s) = nil error; want an error", b)
		}
	}
}

func TestUTF8Offsets(t *testing.T) {
	g := newGuard(t)
	s := guard.Sample{
		Question: "Où se trouve la tour Eiffel ?",
		Contexts: []guard.Context{{ID: "c1", Text: "La tour Eiffel se trouve à Paris, en France. Elle mesure 330 mètres."}},
		Answer:   "Elle se trouve à Lyon. Elle mesure 330 mètres.",
	}
	res, err := g.Evaluate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Evidence {
		for _, q := range []guard.Quote{e.Quote, e.Counterpart} {
			if q.IsZero() {
				continue
			}
			if !utf8.ValidString(q.Text) {
				t.Errorf("evidence quote %q is not valid UTF-8", q.Text)
			}
		}
	}
}
