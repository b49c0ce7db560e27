// Package guardtest helps test code that implements or uses a [guard.Judge].
//
// [TestJudge] is a conformance kit in the manner of testing/slogtest: call it
// from a test of your judge and it checks the contract every judge must keep
// (probabilities in [0, 1] and never NaN, one estimate per requested
// decision, nothing that was not asked, cancellation honoured, no data races
// under concurrent use, errors that callers can inspect):
//
//	func TestMyJudge(t *testing.T) {
//		guardtest.TestJudge(t, func() guard.Judge { return myjudge.New() })
//	}
//
// Run it with -race: the concurrency check only finds races the race detector
// can see.
//
// The fakes are judges with one behaviour each, for testing code that uses a
// guard: [Fixed] answers fixed probabilities, [Abstaining] abstains, [Failing]
// returns an error, [Panicking] panics, [NaN] returns NaN probabilities and
// [Slow] blocks, honouring or ignoring cancellation. Every fake is a plain
// value that is safe for concurrent use as long as nobody modifies it while it
// is in use.
//
// guardtest imports only package guard, testing and the standard library.
package guardtest
