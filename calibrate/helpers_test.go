package calibrate

import (
	"math"
	"strings"
	"testing"
)

// close reports whether |got − want| ≤ tol, treating equal infinities and
// two NaNs as equal.
func close(got, want, tol float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return math.IsNaN(got) && math.IsNaN(want)
	}
	if got == want {
		return true
	}
	return math.Abs(got-want) <= tol
}

// mustPanic runs f and fails the test unless it panics with a message that
// starts with "calibrate: ".
func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s did not panic", name)
			return
		}
		msg, ok := r.(string)
		if !ok || !strings.HasPrefix(msg, "calibrate: ") {
			t.Errorf("%s panicked with %v; want a string prefixed \"calibrate: \"", name, r)
		}
	}()
	f()
}

func cloneRows(x [][]float64) [][]float64 {
	out := make([][]float64, len(x))
	for i, r := range x {
		out[i] = append([]float64(nil), r...)
	}
	return out
}
