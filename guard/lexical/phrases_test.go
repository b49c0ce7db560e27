package lexical

import "testing"

func TestIsRefusal(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{"I don't know.", true},
		{"I’m not sure, the documents are unclear.", true},
		{"The provided context does not mention the fee.", true},
		{"The documents don't say how long shipping takes.", true},
		{"Unfortunately, the context does not specify a deadline.", true},
		{"According to the documents, the context does not state a price.", true},
		{"There is no information about parking.", true},
		{"It is not mentioned in the passage.", true},
		{"No comment.", true},
		{"Gift cards are not covered by the refund policy.", false},
		{"According to the provided context, water damage is covered for 12 months after purchase.", false},
		{"The warranty does not cover water damage.", false},
		{"The context explains that refunds take 30 days.", false},
		{"No, the plan does not include roaming.", false},
		{"Returns are not possible after 30 days; the documents do not say otherwise.", false},
		{"She did not know the answer until 1998.", false},
		{"", false},
		{"That is not covered by the warranty.", false},
		{"The rules do not cover accidental damage.", false},
		{"The results did not show any effect.", false},
		{"The provided rules don't state how many substitutions are allowed.", true},
		{"The policy extract doesn't say what excess applies to water damage.", true},
		{"That isn't stated in the provided rules.", true},
		{"No late-payment charge is mentioned in the provided clauses.", true},
		{"I couldn't find anything about price matching in the documents provided.", true},
		{"The handbook excerpts don't give a fixed number of remote days.", true},
		{"i'm not sure but his books have been translated into 42 languages", false},
		{"I don't know if I really want to volunteer again.", false},
		{"The context does not mention the fee, but the standard rate is $5.", false},
	}
	for _, c := range cases {
		if got, _ := isRefusal(c.in, nil); got != c.want {
			t.Errorf("isRefusal(%q) = %v; want %v", c.in, got, c.want)
		}
	}
}

func TestPreambleEnd(t *testing.T) {
	cases := []struct {
		in, rest string
	}{
		{"According to the provided context, water damage is covered.", "water damage is covered."},
		{"Based on the documents, refunds take 30 days.", "refunds take 30 days."},
		{"The policy states that gift cards are final.", "gift cards are final."},
		{"As mentioned in the passage, the bridge opened in 1932.", "the bridge opened in 1932."},
		{"Per the handbook, staff get 25 days of leave.", "staff get 25 days of leave."},
		{"According to  the  context, it rains.", "it rains."},
		{"The bridge opened in 1932.", "The bridge opened in 1932."},
		{"According to Smith, the bridge opened in 1932.", "According to Smith, the bridge opened in 1932."},
		{"In the documents provided, the fee is $5.", "the fee is $5."},
	}
	for _, c := range cases {
		n, _ := preambleEnd(c.in, nil)
		if got := c.in[n:]; got != c.rest {
			t.Errorf("preambleEnd(%q) leaves %q; want %q", c.in, got, c.rest)
		}
	}
}

func FuzzPhrases(f *testing.F) {
	for _, s := range tokenizerSeeds {
		f.Add(s)
	}
	f.Add("According to the ’provided’ context,  it is.")
	f.Fuzz(func(t *testing.T, s string) {
		isRefusal(s, nil)
		n, _ := preambleEnd(s, nil)
		if n < 0 || n > len(s) {
			t.Fatalf("preambleEnd(%q) = %d out of range", s, n)
		}
	})
}

// Tests read the lexicon tables directly; build them first.
func init() { loadLexicon() }
