// Package middleware will wrap langchaingo chains, retrievers and models so
// that every answer is captured, judged by a guard inline or in shadow mode,
// and traced with OpenTelemetry. It is empty until that work lands.
package middleware
