package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/chains"
	"go.uber.org/goleak"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// featureJudge is scriptedJudge with a raw feature vector on every
// estimate, as the embedded judges give.
type featureJudge struct{ scriptedJudge }

func (featureJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	out, err := scriptedJudge{}.Judge(ctx, req)
	for i := range out {
		out[i].Features = []float64{float64(out[i].Decision), 0.25, 1}
	}
	return out, err
}

func (featureJudge) FeaturesVersion() string { return "test-features/1" }

// gatedTeacher is an escalator that says every decision is healthy (the
// opposite of aFail's groundedness) once release is closed; until then it
// blocks, but returns when its context ends. entered gets one value per
// call.
type gatedTeacher struct {
	entered chan struct{}
	release chan struct{}
	mu      sync.Mutex
	calls   int
}

func newGatedTeacher() *gatedTeacher {
	return &gatedTeacher{entered: make(chan struct{}, 64), release: make(chan struct{})}
}

func (g *gatedTeacher) Escalate(ctx context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
	g.mu.Lock()
	g.calls++
	g.mu.Unlock()
	g.entered <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return guardtest.Fixed{Name: "teacher", Default: 0.95, P: healthy}.Judge(ctx, esc.Request)
}

func (g *gatedTeacher) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "teacher", Version: "t1"}
}

// drawingGuard is featureJudge under testPolicy with esc as the
// escalator (the teacher) and every answer explored.
func drawingGuard(t testing.TB, esc guard.Escalator) *guard.Guard {
	t.Helper()
	g, err := guard.New(guard.WithJudge(featureJudge{}), guard.WithPolicy(testPolicy()),
		guard.WithEscalator(esc, testPolicy(), guard.FailClosed), guard.WithDraws(guard.Draws{Explore: 1, Seed: 5}))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// readSink decodes the records written to buf.
func readSink(t *testing.T, data string) []record.Record {
	t.Helper()
	var out []record.Record
	for _, line := range bytes.Split(bytes.TrimSpace([]byte(data)), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r record.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("record %s: %v", line, err)
		}
		if err := record.Check(&r); err != nil {
			t.Fatalf("record %s: %v", r.ID, err)
		}
		out = append(out, r)
	}
	return out
}

// TestInlineTeachOffTheRequestPath: inline, the chain call returns its
// answer, gated as without draws, while the teacher is still blocked; the
// record is written once the teacher answered, with its verdicts beside
// the result's own, its feature vectors and no user text.
func TestInlineTeachOffTheRequestPath(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newTelemetry(t)
	teacher := newGatedTeacher()
	var buf syncBuffer
	rw := record.NewWriter(&buf)
	c, err := New(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}),
		append(k.opts(), WithGuard(drawingGuard(t, teacher), Gate{}), WithSink(rw))...)
	if err != nil {
		t.Fatal(err)
	}
	// The answer the guard fails: the teacher would pass it, but is
	// blocked. The call returns, blocked by the gate as without draws.
	ctx, out := WithOutcome(context.Background())
	within(t, "the inline call with a blocked teacher", func() {
		_, err = chains.Run(ctx, c, qFail)
	})
	var ge *GateError
	if !errors.As(err, &ge) || ge.Action != guard.Block || out.Action != guard.Block || out.Result.Diagnosis != guard.GeneratorUngrounded {
		t.Fatalf("call = %v, outcome %+v; want blocked, GENERATOR_UNGROUNDED", err, out)
	}
	if out.Result.Teacher != nil || out.Result.Draw == nil || !out.Result.Draw.Drawn {
		t.Errorf("caller's result: teacher %+v, draw %+v; want drawn, no teacher", out.Result.Teacher, out.Result.Draw)
	}
	<-teacher.entered // the teacher runs now, after the call returned
	if n, _ := rw.Counts(); n != 0 || c.SinkStats().Captured != 0 {
		t.Errorf("a record was written before the teacher answered")
	}
	close(teacher.release)
	shutdownChain(t, c)
	recs := readSink(t, buf.String())
	if len(recs) != 1 {
		t.Fatalf("%d records; want 1", len(recs))
	}
	r := recs[0].Result
	if r.Diagnosis != guard.GeneratorUngrounded || r.Action != guard.Block || r.Verdicts.Generation.Groundedness != guard.Fail {
		t.Errorf("recorded result %v %v groundedness %v: the teacher changed it", r.Diagnosis, r.Action, r.Verdicts.Generation.Groundedness)
	}
	if tc := r.Teacher; tc == nil || tc.Judge != "teacher" || tc.Cause != "" || tc.Verdicts.Generation.Groundedness != guard.Pass {
		t.Errorf("recorded teacher %+v; want teacher's pass", tc)
	}
	if f := r.Features; f == nil || f.Version != "test-features/1" || len(f.Vectors) == 0 {
		t.Errorf("record features %+v", f)
	}
	if recs[0].Sample != nil || strings.Contains(buf.String(), "90 days") || strings.Contains(buf.String(), "30 days") || strings.Contains(buf.String(), qFail) {
		t.Errorf("record holds user text without WithContent:\n%s", buf.String())
	}
	st := c.TeachStats()
	if st != (TeachStats{Drawn: 1, Taught: 1, Answered: 1}) {
		t.Errorf("TeachStats = %+v", st)
	}
	if n := k.sum(t, otelkeys.MetricTeacherDraws, map[string]string{otelkeys.TeacherOutcome: "answered"}); n != 1 {
		t.Errorf("teacher draws metric (answered) = %d; want 1", n)
	}
}

// TestInlineTeachBounded: past MaxInFlight a draw is refused, counted and
// recorded at once; Shutdown waits for the Teach under way, and when its
// context ends cancels it and counts it lost.
func TestInlineTeachBounded(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	teacher := newGatedTeacher()
	var buf syncBuffer
	rw := record.NewWriter(&buf)
	c, err := New(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}),
		WithGuard(drawingGuard(t, teacher), Gate{}), WithSink(rw), WithTeach(TeachConfig{MaxInFlight: 1}))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if ans, err := chains.Run(context.Background(), c, qPass); err != nil || ans != aPass {
			t.Fatalf("call %d = %q, %v", i, ans, err)
		}
		if i == 0 {
			<-teacher.entered
		}
	}
	eventually(t, "the refused draws' records are written", func() bool { n, _ := rw.Counts(); return n == 2 })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	within(t, "Shutdown with a blocked teacher", func() { c.Shutdown(ctx) })
	st := c.TeachStats()
	if st.Drawn != 3 || st.NotTaught != 2 || st.Lost != 1 {
		t.Errorf("TeachStats = %+v; want 3 drawn, 2 not taught, 1 lost", st)
	}
	eventually(t, "the cancelled Teach returned", func() bool { return c.TeachStats().Taught == 1 })
	// The two refused draws' records, and perhaps the lost one's: a Teach
	// that Shutdown gave up on may still have its record written
	// (TeachStats.Lost), its teacher cancelled, when the sink takes it
	// before its own shutdown ends.
	refused, lost := 0, 0
	for _, r := range readSink(t, buf.String()) {
		switch tc := r.Result.Teacher; {
		case tc != nil && tc.Cause == guard.CauseConcurrency:
			refused++
		case tc != nil && tc.Cause == guard.CauseCancelled:
			lost++
		default:
			t.Errorf("record's teacher %+v; want cause concurrency (refused draws) or cancelled (the lost Teach)", tc)
		}
	}
	if refused != 2 || lost > 1 {
		t.Errorf("records: %d refused draws, %d lost Teach; want 2 and at most 1", refused, lost)
	}
	teacher.mu.Lock()
	if teacher.calls != 1 {
		t.Errorf("teacher asked %d times; want 1 (refusals are never retried)", teacher.calls)
	}
	teacher.mu.Unlock()
}

// TestShadowTeach: in shadow mode the worker teaches the drawn result
// before its record is written.
func TestShadowTeach(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	teacher := newGatedTeacher()
	close(teacher.release)
	sh, err := NewShadow(drawingGuard(t, teacher), ShadowConfig{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf syncBuffer
	k := newTelemetry(t)
	c, err := New(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), append(k.opts(), WithShadow(sh), WithSink(record.NewWriter(&buf)))...)
	if err != nil {
		t.Fatal(err)
	}
	if ans, err := chains.Run(context.Background(), c, qFail); err != nil || ans != aFail {
		t.Fatalf("shadow call = %q, %v", ans, err)
	}
	if err := sh.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	shutdownChain(t, c)
	recs := readSink(t, buf.String())
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0].Result
	if r.Teacher == nil || r.Teacher.Verdicts.Generation.Groundedness != guard.Pass || r.Verdicts.Generation.Groundedness != guard.Fail || r.Features == nil {
		t.Errorf("shadow record: teacher %+v, own groundedness %v, features %v", r.Teacher, r.Verdicts.Generation.Groundedness, r.Features)
	}
	if st := c.TeachStats(); st != (TeachStats{Drawn: 1, Taught: 1, Answered: 1}) {
		t.Errorf("TeachStats = %+v", st)
	}
	span := spanByName(t, k.spans.Ended(), otelkeys.SpanEvaluation)[0]
	kind, _ := attrOf(span.Attributes(), otelkeys.DrawKind)
	dr, _ := attrOf(span.Attributes(), otelkeys.DrawDrawn)
	judge, _ := attrOf(span.Attributes(), otelkeys.TeacherJudge)
	if kind.AsString() != "explore" || !dr.AsBool() || judge.AsString() != "teacher" {
		t.Errorf("span: draw kind %v drawn %v, teacher %v", kind, dr, judge)
	}
}

// syncBuffer is a bytes.Buffer safe for the sink's writer goroutine and
// the test.
type syncBuffer struct {
	mu sync.Mutex
	bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.String()
}

type tenantKey struct{}

// TestInlineTeachKeepsRequestValues: the background teaching call sees the
// request context's values (a tenant, credentials) but outlives its
// cancellation: the request ended when the answer was returned.
func TestInlineTeachKeepsRequestValues(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newTelemetry(t)
	teacher := newGatedTeacher()
	var seen any
	var errAtAnswer error
	esc := guard.EscalatorFunc(func(ctx context.Context, e guard.Escalation) ([]guard.Estimate, error) {
		seen = ctx.Value(tenantKey{})
		teacher.entered <- struct{}{}
		<-teacher.release
		errAtAnswer = ctx.Err()
		return guardtest.Fixed{Name: "teacher", Default: 0.95, P: healthy}.Judge(ctx, e.Request)
	})
	c, err := New(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}),
		append(k.opts(), WithGuard(drawingGuard(t, esc), Gate{}))...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), tenantKey{}, "tenant-7"))
	within(t, "the inline call", func() { _, _ = chains.Run(ctx, c, qFail) })
	cancel() // the request ends once its answer is returned
	<-teacher.entered
	close(teacher.release)
	shutdownChain(t, c)
	if seen != "tenant-7" || errAtAnswer != nil {
		t.Errorf("teacher saw tenant %v, context error %v; want tenant-7 and a live context", seen, errAtAnswer)
	}
	if st := c.TeachStats(); st.Answered != 1 {
		t.Errorf("TeachStats = %+v; want one answered", st)
	}
}
