package middleware

import (
	"context"

	"github.com/ragtriage/ragtriage/record"
)

// A Sink receives one record per evaluated answer, inline or in shadow mode.
// record.Writer (JSON Lines, the format `ragtriage eval -records`
// replays) is one. WriteRecord may be called from several goroutines at
// once; it must not keep rec after returning. Its ctx is detached from the
// chain call's cancellation. An error goes to the error handler and never
// changes what the chain returns.
type Sink interface {
	WriteRecord(ctx context.Context, rec *record.Record) error
}

// SinkFunc adapts a function to the Sink interface.
type SinkFunc func(ctx context.Context, rec *record.Record) error

// WriteRecord calls f(ctx, rec).
func (f SinkFunc) WriteRecord(ctx context.Context, rec *record.Record) error { return f(ctx, rec) }
