package middleware

import (
	"fmt"
	"reflect"
)

// checkEvaluator refuses a nil Evaluator, and one holding a nil pointer.
// A guard constructor returns such a pointer beside its error, and it would
// panic on the first call instead of failing at construction.
func checkEvaluator(where string, e Evaluator) error {
	if e == nil {
		return fmt.Errorf("middleware: %s: nil evaluator", where)
	}
	if rv := reflect.ValueOf(e); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return fmt.Errorf("middleware: %s: the evaluator is a nil %T (did the constructor that returned it also return an error?)", where, e)
	}
	return nil
}
