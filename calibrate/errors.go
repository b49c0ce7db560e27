package calibrate

import (
	"errors"
	"fmt"
	"math"
)

// Sentinel errors describing data problems. Every error returned by this
// package is an [*Error] wrapping one of them; test with [errors.Is].
var (
	// ErrEmpty: no rows, or no row with a positive weight.
	ErrEmpty = errors.New("empty input")
	// ErrOneClass: every row (with a positive weight) has the same label.
	ErrOneClass = errors.New("only one class present")
	// ErrNaN: a NaN (or, where the function says so, infinite) value.
	ErrNaN = errors.New("NaN or infinite value")
	// ErrRagged: feature rows of unequal length.
	ErrRagged = errors.New("feature rows of unequal length")
	// ErrWeight: a negative, NaN or infinite weight.
	ErrWeight = errors.New("negative or non-finite weight")
	// ErrRange: a parameter or value outside its documented range.
	ErrRange = errors.New("value out of range")
	// ErrSeparable: the classes are linearly separable and there is no
	// ridge penalty, so the maximum-likelihood weights are infinite.
	ErrSeparable = errors.New("classes are separable: maximum-likelihood weights are infinite; set L2 > 0")
	// ErrNotConverged: the iteration limit was reached before convergence.
	ErrNotConverged = errors.New("did not converge")
)

// Error is the one structured error type of the package. It names the
// function that failed and, when the problem is in one row, that row.
//
// Its message reads "calibrate: FitLogistic: row 3: NaN or infinite value".
type Error struct {
	Func string // exported function that failed, e.g. "FitLogistic"
	Row  int    // offending row, or -1 when the problem is not in one row
	Err  error  // wraps one of the Err… sentinels
}

func (e *Error) Error() string {
	if e.Row >= 0 {
		return fmt.Sprintf("calibrate: %s: row %d: %v", e.Func, e.Row, e.Err)
	}
	return "calibrate: " + e.Func + ": " + e.Err.Error()
}

// Unwrap returns the wrapped sentinel.
func (e *Error) Unwrap() error { return e.Err }

func newErr(fn string, row int, err error) error {
	return &Error{Func: fn, Row: row, Err: err}
}

// checkLen panics, as gonum/stat does, when parallel slices differ in length:
// that is a programmer error, not a data problem.
func checkLen(fn string, n int, y []bool, w []float64) {
	if len(y) != n || (w != nil && len(w) != n) {
		panic("calibrate: " + fn + ": slice length mismatch")
	}
}

// weightAt returns w[i], or 1 when w is nil.
func weightAt(w []float64, i int) float64 {
	if w == nil {
		return 1
	}
	return w[i]
}

// checkWeights returns an error for the first negative or non-finite weight.
func checkWeights(fn string, w []float64) error {
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 1) {
			return newErr(fn, i, ErrWeight)
		}
	}
	return nil
}

// checkProbs returns an error for an empty p or for the first value of p
// that is NaN or outside [0, 1].
func checkProbs(fn string, p []float64) error {
	if len(p) == 0 {
		return newErr(fn, -1, ErrEmpty)
	}
	for i, v := range p {
		if math.IsNaN(v) {
			return newErr(fn, i, ErrNaN)
		}
		if v < 0 || v > 1 {
			return newErr(fn, i, fmt.Errorf("p = %v not in [0, 1]: %w", v, ErrRange))
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
