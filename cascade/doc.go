// Package cascade will hold the fallback path for the uncertain band: a
// circuit breaker, a cache, a deadline and a budget around a slower judge.
// It is empty until that work lands; until then the guard reports
// escalations (route "fallback") and never hides them.
package cascade
