package cascade

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/ragtriage/ragtriage/guard"
)

// checkFallback refuses a nil fallback judge, and a Judge interface that
// holds a nil pointer (or nil func, map, …): what a constructor such as
// llmjudge.NewOpenAI returns beside its error. Accepted, it would panic on
// the first call.
func checkFallback(j guard.Judge) error {
	if j == nil {
		return errors.New("cascade: New: nil fallback judge")
	}
	switch rv := reflect.ValueOf(j); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		if rv.IsNil() {
			return fmt.Errorf("cascade: New: the fallback judge is a nil %T (did the constructor that returned it also return an error? "+
				"llmjudge.NewOpenAI returns llmjudge.ErrNoAPIKey when the key is empty)", j)
		}
	}
	return nil
}
