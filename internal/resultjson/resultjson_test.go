package resultjson

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/guard"
)

// TestResultLayout fails when Result (or a type inside it) changes its JSON
// shape: Append then falls back to encoding/json until resultEncoder
// writes the new shape and resultLayoutHash is renewed.
func TestResultLayout(t *testing.T) {
	if !resultLayout.known {
		t.Fatalf("the JSON shape of guard.Result changed: update resultEncoder in resultjson.go for it, "+
			"then set resultLayoutHash = %#x\nshape: %s", resultLayout.hash, strings.ReplaceAll(resultLayout.sig, ";", ";\n"))
	}
}

// marshalBoth returns the encoding/json bytes of r for both HTML settings.
func marshalBoth(r *guard.Result) (html, plain []byte, err error) {
	html, err = json.Marshal(r)
	if err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, nil, err
	}
	return html, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// checkEncoding compares the hand-written encoder, called directly and
// through Append, with encoding/json on r.
func checkEncoding(t *testing.T, name string, r *guard.Result) {
	t.Helper()
	wantHTML, wantPlain, werr := marshalBoth(r)
	for _, html := range []bool{true, false} {
		want := wantPlain
		if html {
			want = wantHTML
		}
		e := resultEncoder{buf: []byte("prefix"), html: html}
		e.result(r)
		got, err := Append([]byte("prefix"), r, html)
		switch {
		case werr != nil:
			if e.err == nil {
				t.Errorf("%s (html=%v): encoding/json fails (%v), the encoder does not", name, html, werr)
			}
			if err == nil || err.Error() != werr.Error() {
				t.Errorf("%s (html=%v): Append error %v; want %v", name, html, err, werr)
			}
		case e.err != nil:
			t.Errorf("%s (html=%v): encoder error %v; encoding/json has none", name, html, e.err)
		default:
			if !bytes.Equal(e.buf[6:], want) {
				t.Errorf("%s (html=%v): encoder and encoding/json differ: %s", name, html, firstDiff(e.buf[6:], want))
			}
			if err != nil || !bytes.Equal(got, append([]byte("prefix"), want...)) {
				t.Errorf("%s (html=%v): Append = %s, %v; want prefix + encoding/json", name, html, got, err)
			}
		}
	}
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-40)
	return fmt.Sprintf("first difference at byte %d: %q vs %q", i, a[lo:min(len(a), i+40)], b[lo:min(len(b), i+40)])
}

// filler sets every exported, JSON-visible field of a value to random
// content, so that a field the encoder misses shows up as a difference.
type filler struct {
	rng *rand.Rand
	// bad allows values encoding/json refuses (NaN, invalid decisions).
	bad bool
}

var tricky = []string{"", "plain", "c1", "a \"quoted\" \\ path/", "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
	"<b>&amp;</b>", "line\u2028para\u2029", "café ☕ 😀", "bad \xff\xfe utf8 \xe2\x80", "\u00a0nbsp",
	strings.Repeat("long text ", 30)}

func (f *filler) str() string {
	if f.rng.IntN(3) == 0 {
		var b []byte
		for range f.rng.IntN(12) {
			b = append(b, byte(f.rng.IntN(256)))
		}
		return string(b)
	}
	return tricky[f.rng.IntN(len(tricky))]
}

var floats = []float64{0, math.Copysign(0, -1), 1, 0.5, -3.25, 1e-6, 9.99e-7, 1.5e-300, 1e20, 1e21, 123456789.123,
	0.1 + 0.2, math.MaxFloat64, math.SmallestNonzeroFloat64, 2.5e-9, 1e100}

func (f *filler) float() float64 {
	if f.bad && f.rng.IntN(40) == 0 {
		return []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[f.rng.IntN(3)]
	}
	if f.rng.IntN(2) == 0 {
		return floats[f.rng.IntN(len(floats))]
	}
	return f.rng.NormFloat64() * math.Pow(10, float64(f.rng.IntN(30)-15))
}

func (f *filler) fill(v reflect.Value) {
	t := v.Type()
	switch t {
	case reflect.TypeFor[guard.Decision]():
		d := guard.Decision(1 + f.rng.IntN(7))
		if f.bad && f.rng.IntN(30) == 0 {
			d = guard.Decision(f.rng.IntN(2) * 9)
		}
		v.SetUint(uint64(d))
		return
	case reflect.TypeFor[guard.Prob]():
		p := guard.Prob{Value: f.float(), Known: f.rng.IntN(4) > 0, Asked: f.rng.IntN(4) > 0}
		if f.rng.IntN(20) == 0 {
			p.Value = math.NaN()
		}
		v.Set(reflect.ValueOf(p))
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			if sf.IsExported() && sf.Tag.Get("json") != "-" {
				f.fill(v.Field(i))
			}
		}
	case reflect.String:
		v.SetString(f.str())
	case reflect.Bool:
		v.SetBool(f.rng.IntN(2) == 0)
	case reflect.Int, reflect.Int64, reflect.Int32:
		if f.rng.IntN(3) == 0 {
			v.SetInt(0)
		} else {
			v.SetInt(f.rng.Int64N(1<<40) - 1<<20)
		}
	case reflect.Uint8:
		v.SetUint(uint64(f.rng.IntN(5))) // enums, one past their last value included
	case reflect.Uint64:
		if f.rng.IntN(3) == 0 {
			v.SetUint(0)
		} else {
			v.SetUint(f.rng.Uint64()) // a draw seed, all 64 bits
		}
	case reflect.Float64:
		v.SetFloat(f.float())
	case reflect.Pointer:
		if f.rng.IntN(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(t.Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		switch f.rng.IntN(4) {
		case 0:
			v.SetZero() // nil
			return
		case 1:
			v.Set(reflect.MakeSlice(t, 0, 0)) // empty, not nil
			return
		}
		n := 1 + f.rng.IntN(4)
		s := reflect.MakeSlice(t, n, n)
		for i := range n {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		if f.rng.IntN(4) == 0 {
			v.SetZero()
			return
		}
		m := reflect.MakeMap(t)
		for range f.rng.IntN(4) {
			k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			f.fill(k)
			f.fill(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Interface:
		// Not part of the JSON form (JudgeError.Err is "-").
	default:
		panic(fmt.Sprintf("filler: unhandled %s (%s): teach the filler and the encoder about it", t, t.Kind()))
	}
}

// TestAppendJSONRandom compares the encoder with encoding/json on results
// whose every field is set at random (tricky strings, extreme floats,
// nil/empty/full slices and maps, absent and unknown probabilities).
func TestAppendJSONRandom(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		f := filler{rng: rand.New(rand.NewPCG(uint64(i), 42)), bad: i%3 == 0}
		var r guard.Result
		f.fill(reflect.ValueOf(&r).Elem())
		checkEncoding(t, fmt.Sprintf("random result %d", i), &r)
		if t.Failed() {
			return
		}
	}
}

// TestAppendJSONEmpty covers the zero Result and one with everything
// optional left out.
func TestAppendJSONEmpty(t *testing.T) {
	checkEncoding(t, "zero result", &guard.Result{})
	checkEncoding(t, "empty evidence", &guard.Result{Evidence: []guard.Evidence{}, Judges: map[string]string{}})
}

// fakeEstimates answers like an embedded judge: chunk scores, evidence with
// quotes, citations, and an abstention for one context.
func fakeEstimates(req guard.Request) []guard.Estimate {
	s := req.Sample
	var out []guard.Estimate
	for _, d := range req.Decisions {
		if d == guard.ChunkRelevance {
			for i, c := range s.Contexts {
				if i == 1 {
					out = append(out, guard.Abstain(d, c.ID, "context <empty> & odd"))
					continue
				}
				out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: 0.9 / float64(i+1)})
			}
			continue
		}
		e := guard.Estimate{Decision: d, P: float64(d) / 8}
		if d == guard.Groundedness {
			e.P = 0.03
			e.Evidence = []guard.Evidence{{Decision: d, Kind: guard.EvidenceNumberMismatch, Detail: `the answer says "5" where the context says 4`,
				Quote:       guard.Quote{Source: guard.SourceAnswer, Start: 0, End: 1, Text: s.Answer[:1]},
				Counterpart: guard.Quote{Source: guard.SourceContext, ContextID: s.Contexts[0].ID, Start: 2, End: 4, Text: s.Contexts[0].Text[2:4]}}}
			e.Citations = []guard.Citation{{Sentence: guard.Quote{Source: guard.SourceAnswer, End: len(s.Answer), Text: s.Answer}, Support: 0.25},
				{Sentence: guard.Quote{Source: guard.SourceAnswer, End: 3, Text: s.Answer[:3]}, Support: 1, Supported: true,
					Context: guard.Quote{Source: guard.SourceContext, ContextID: s.Contexts[0].ID, End: 5, Text: s.Contexts[0].Text[:5]}}}
			e.Usage = guard.Usage{InputTokens: 120, Calls: 1}
		}
		if d == guard.Correctness {
			e = guard.Abstain(d, "", "no <reference> judge")
		}
		out = append(out, e)
	}
	return out
}

// TestAppendJSONGuardResults compares the encoder with encoding/json on
// results the guard builds: plain, with a failing judge, with the fallback
// (settled and not), and in claims mode.
func TestAppendJSONGuardResults(t *testing.T) {
	ctx := context.Background()
	judge := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) { return fakeEstimates(req), nil })
	failing := guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) {
		return nil, errors.New("backend said <503> & gave up")
	})
	th := guard.Thresholds{Fail: 0.2, Pass: 0.8}
	policy := guard.Policy{}
	for _, d := range guard.Decisions {
		policy.Set(d, th)
	}
	escalator := guard.EscalatorFunc(func(_ context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
		var out []guard.Estimate
		for _, d := range esc.Decisions {
			if d == guard.ChunkRelevance {
				for _, id := range esc.ContextIDs {
					out = append(out, guard.Estimate{Decision: d, ContextID: id, P: 0.95, Usage: guard.Usage{InputTokens: 300, OutputTokens: 7, Calls: 1, Retries: 1}})
				}
				continue
			}
			e := guard.Abstain(d, "", "budget spent")
			e.Cause = guard.CauseBudget
			out = append(out, e)
		}
		return out, nil
	})
	claims := guard.ClaimExtractorFunc(func(_ context.Context, s *guard.Sample) ([]string, error) {
		return []string{"The first claim.", "A second <claim> & more."}, nil
	})
	guards := map[string][]guard.Option{
		"plain":       {guard.WithJudge(judge), guard.WithPolicy(policy)},
		"no policy":   {guard.WithJudge(judge)},
		"failing":     {guard.WithJudge(judge), guard.WithJudge(failing, guard.Groundedness, guard.Contradiction), guard.WithPolicy(policy)},
		"fallback":    {guard.WithJudge(judge), guard.WithPolicy(policy), guard.WithEscalator(escalator, policy, guard.FailOpen)},
		"claims":      {guard.WithJudge(judge), guard.WithPolicy(policy), guard.WithClaims(claims)},
		"claims+esc":  {guard.WithJudge(judge), guard.WithPolicy(policy), guard.WithClaims(claims), guard.WithEscalator(escalator, policy, guard.FailClosed)},
		"no judges":   {},
		"only chunks": {guard.WithJudge(judge, guard.ChunkRelevance), guard.WithPolicy(policy)},
	}
	samples := []guard.Sample{
		{ID: "r1", Question: "How many <moons> does Mars have?", Answer: "Mars has 5 moons & rings.",
			Contexts:  []guard.Context{{ID: "c1", Text: "Mars has two moons."}, {ID: "c<2>", Text: "Phobos \u2028 and Deimos."}, {ID: "c3", Text: "Café 😀 text"}},
			Reference: guard.Ref("Two")},
		{ID: "r2", Question: "q?", Answer: "An answer.", Contexts: []guard.Context{{ID: "only", Text: "Some context text."}}},
		{ID: "r3", Question: "q?", Answer: "Nothing retrieved.", Contexts: []guard.Context{}},
	}
	n := 0
	for name, opts := range guards {
		g, err := guard.New(opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, s := range samples {
			if len(s.Contexts) == 0 && name != "no judges" && name != "plain" {
				continue // the fake judge quotes the first context
			}
			res, _ := g.Evaluate(ctx, s)
			checkEncoding(t, name+"/"+s.ID, &res)
			n++
		}
	}
	if n < 15 {
		t.Fatalf("only %d results checked", n)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{true, false} {
			got := appendJSONString(nil, s, html)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			if want := bytes.TrimSuffix(buf.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
				t.Errorf("appendJSONString(%q, %v) = %s; want %s", s, html, got, want)
			}
			if !utf8.Valid(got) {
				t.Errorf("appendJSONString(%q) is not valid UTF-8", s)
			}
		}
	})
}

func BenchmarkAppendJSON(b *testing.B) {
	judge := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) { return fakeEstimates(req), nil })
	g, err := guard.New(guard.WithJudge(judge))
	if err != nil {
		b.Fatal(err)
	}
	res, _ := g.Evaluate(context.Background(), guard.Sample{ID: "r", Question: "How many moons does Mars have?",
		Answer: "Mars has two moons.", Contexts: []guard.Context{{ID: "c1", Text: "Mars has two small moons, Phobos and Deimos."}}, Reference: guard.Ref("Two")})
	b.Run("Append", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf, _ = Append(buf[:0], &res, false)
		}
		b.SetBytes(int64(len(buf)))
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for b.Loop() {
			buf.Reset()
			if err := enc.Encode(&res); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(int64(buf.Len()))
	})
}
