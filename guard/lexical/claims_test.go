package lexical_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

func TestSentenceSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"  . ! ", []string{}},
		{"Delhi", []string{"Delhi"}},
		{"Paris is the capital. It has 2 million people.", []string{"Paris is the capital.", "It has 2 million people."}},
		{"Is it? Yes! It is.", []string{"Is it?", "Yes!", "It is."}},
		// Abbreviations and initials do not end a sentence.
		{"Dr. Smith met J. K. Rowling in Jan. 1999. They talked.", []string{"Dr. Smith met J. K. Rowling in Jan. 1999.", "They talked."}},
		// A decimal point, or a full stop before a lower-case word, does not.
		{"It costs 3.5 dollars. e.g. apples cost less.", []string{"It costs 3.5 dollars. e.g. apples cost less."}},
		// Nor does one after a single digit, read as an initial (a known
		// limit of the splitter).
		{"It opens at 9. It closes at 17. Fine.", []string{"It opens at 9. It closes at 17.", "Fine."}},
		// Lines always end one; list markers are dropped.
		{"Two facts:\n- The shop opens at 9.\n* It closes at 5\n\n• Staff: 12", []string{"Two facts:", "The shop opens at 9.", "It closes at 5", "Staff: 12"}},
		// Scraped text glues sentences together.
		{"It was founded in the 19th century.First for Women is newer.", []string{"It was founded in the 19th century.", "First for Women is newer."}},
		{`He said "Stop." Then he left.`, []string{`He said "Stop."`, "Then he left."}},
		// Coordinated clauses stay one claim.
		{"The museum opened in 1901 and it closed in 1950.", []string{"The museum opened in 1901 and it closed in 1950."}},
	} {
		if got := lexical.Sentences(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Sentences(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestSentenceClaims(t *testing.T) {
	var x lexical.SentenceClaims
	ctx := context.Background()
	if info := x.Describe(); info.Name != lexical.SentenceClaimsName || info.Version != lexical.SentenceClaimsVersion {
		t.Errorf("Describe() = %+v", info)
	}
	got, err := x.ExtractClaims(ctx, &guard.Sample{Answer: "A is 10. B is 20."})
	if err != nil || !reflect.DeepEqual(got, []string{"A is 10.", "B is 20."}) {
		t.Errorf("ExtractClaims = %q, %v", got, err)
	}
	if got, err := x.ExtractClaims(ctx, &guard.Sample{Answer: " \n "}); err != nil || len(got) != 0 {
		t.Errorf("ExtractClaims(blank) = %q, %v; want no claim, no error", got, err)
	}
	long := strings.Repeat("It rains. ", guard.MaxClaims+1)
	if _, err := x.ExtractClaims(ctx, &guard.Sample{Answer: long}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d sentences", guard.MaxClaims+1)) {
		t.Errorf("ExtractClaims(%d sentences) error %v; want one naming the count", guard.MaxClaims+1, err)
	}
	if _, err := x.ExtractClaims(ctx, nil); err == nil {
		t.Error("ExtractClaims(nil) gave no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := x.ExtractClaims(cctx, &guard.Sample{Answer: "A."}); err != context.Canceled {
		t.Errorf("cancelled: error %v", err)
	}
}

// TestSentenceClaimsGuard: in claims mode with the lexical judges, an answer
// whose second sentence no context supports gets a failing claim for that
// sentence, and its groundedness is the weakest claim's.
func TestSentenceClaimsGuard(t *testing.T) {
	g, err := lexical.NewGuard(guard.WithClaims(lexical.SentenceClaims{}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Evaluate(context.Background(), guard.Sample{
		Question: "How long do I have to ask for a refund?",
		Contexts: []guard.Context{{ID: "refunds", Text: "Customers may request a full refund within 30 days of purchase."}},
		Answer:   "You can request a full refund within 30 days of purchase. Refunds are paid in gold bars by Captain Nemo.",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Claims) != 2 {
		t.Fatalf("claims %+v; want 2", res.Claims)
	}
	c0, c1 := res.Claims[0], res.Claims[1]
	// The shipped policy leaves groundedness's fail side undecided (no
	// region keeps the promise on every source), so an unsupported claim is
	// not a confident failure: it must read as unlikely and never pass.
	if c1.Verdict == guard.Pass || !c1.Groundedness.Known || c1.Groundedness.Value >= 0.5 {
		t.Errorf("unsupported claim %q: verdict %v, P %+v; want P < 0.5, not pass", c1.Text, c1.Verdict, c1.Groundedness)
	}
	if c0.Verdict == guard.Fail || c0.Groundedness.Value <= c1.Groundedness.Value {
		t.Errorf("supported claim %q: verdict %v, P %v (unsupported one: %v)", c0.Text, c0.Verdict, c0.Groundedness.Value, c1.Groundedness.Value)
	}
	if p := res.Prob(guard.Groundedness); p.Value != c1.Groundedness.Value {
		t.Errorf("groundedness %v; want the weakest claim's %v", p.Value, c1.Groundedness.Value)
	}
	if v, _ := res.Verdict(guard.Groundedness); v == guard.Pass || res.Diagnosis == guard.PassDiagnosis {
		t.Errorf("groundedness verdict %v, diagnosis %v; want neither pass", v, res.Diagnosis)
	}
}

func ExampleSentences() {
	for _, s := range lexical.Sentences("Dr. Lee founded it in 1999. It has 40 staff.\n- Open daily") {
		fmt.Println(s)
	}
	// Output:
	// Dr. Lee founded it in 1999.
	// It has 40 staff.
	// Open daily
}

func ExampleSentenceClaims() {
	g, _ := lexical.NewGuard(guard.WithClaims(lexical.SentenceClaims{}))
	res, _ := g.Evaluate(context.Background(), guard.Sample{
		Question: "When does the shop open?",
		Contexts: []guard.Context{{ID: "hours", Text: "The shop opens at 9 am on weekdays."}},
		Answer:   "The shop opens at 9 am on weekdays. Parking is free for all visitors.",
	})
	for _, c := range res.Claims {
		fmt.Printf("%s %q\n", c.Verdict, c.Text)
	}
	// Output:
	// uncertain "The shop opens at 9 am on weekdays."
	// uncertain "Parking is free for all visitors."
}

// The embedded judge is a guard.ClaimJudge: claims mode analyses the
// question and contexts once per sample.
var _ guard.ClaimJudge = (*lexical.Judge)(nil)
