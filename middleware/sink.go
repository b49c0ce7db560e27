package middleware

import (
	"context"
	"fmt"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// A Sink receives one record per evaluated answer, inline or in shadow mode.
// record.Writer is one: it writes JSON Lines, the format
// `ragtriage eval -records` replays. A chain never calls WriteRecord on the
// goroutine that called the chain. Records go through the chain's bounded
// record queue (see WithSink) to one writer goroutine, so a slow or blocked
// sink delays no call. Records that do not fit are dropped and counted.
// WriteRecord must not keep rec after returning. Its ctx is detached from
// the chain call's cancellation. An error goes to the error handler and
// never changes what the chain returns.
type Sink interface {
	WriteRecord(ctx context.Context, rec *record.Record) error
}

// SinkFunc adapts a function to the Sink interface.
type SinkFunc func(ctx context.Context, rec *record.Record) error

// WriteRecord calls f(ctx, rec).
func (f SinkFunc) WriteRecord(ctx context.Context, rec *record.Record) error { return f(ctx, rec) }

// DefaultSinkQueue is the number of records a chain's record queue holds
// unless WithSinkQueue says otherwise.
const DefaultSinkQueue = 1024

// SinkStats counts what became of the records of one chain (see
// Chain.SinkStats). Captured = Written + Failed + Dropped + Lost + those
// still queued or being written; after Shutdown has returned none are.
type SinkStats struct {
	Captured uint64 // records built, one per evaluation with a result
	Written  uint64 // the sink returned nil
	Failed   uint64 // the sink returned an error (or panicked): error handler and sink-error metric
	Dropped  uint64 // not queued: the queue was full, or Shutdown had begun
	Lost     uint64 // queued, but not written when Shutdown's context ended
}

// queuedRecord is one record waiting for the sink, with the (detached)
// context of the evaluation that produced it, for the sink's WriteRecord.
type queuedRecord struct {
	ctx context.Context
	rec *record.Record
}

// recordQueue hands a chain's records to its sink on a goroutine of its
// own. It is a ring of at most size records, written in order by one writer
// goroutine. The goroutine runs while there is something to write and exits
// when the queue is empty, so an idle chain holds no goroutine. The chain
// owns the queue; Chain.Shutdown ends it. Safe for concurrent use.
type recordQueue struct {
	cfg  *config // its sink is cfg.sink
	size int

	mu      sync.Mutex
	buf     []queuedRecord // allocated on the first record
	head, n int            // the queued records are buf[head], ... (n of them, wrapping)
	pending int            // queued + being written
	running bool           // a writer goroutine is on its way
	closed  bool           // Shutdown began: no more records
	gaveUp  bool           // Shutdown's context ended: the rest was counted lost
	idle    chan struct{}  // closed when pending drops to 0; made by a waiter
	stats   SinkStats

	shutdownOnce sync.Once
	shutdownErr  error

	dropFull, dropClosed, dropShutdown metric.AddOption
}

func newRecordQueue(cfg *config, size int) *recordQueue {
	return &recordQueue{
		cfg: cfg, size: size,
		dropFull:     metric.WithAttributeSet(attribute.NewSet(attribute.String(otelkeys.DropReason, "queue_full"))),
		dropClosed:   metric.WithAttributeSet(attribute.NewSet(attribute.String(otelkeys.DropReason, "closed"))),
		dropShutdown: metric.WithAttributeSet(attribute.NewSet(attribute.String(otelkeys.DropReason, "shutdown"))),
	}
}

// put queues rec for the sink; it never blocks on the sink. ctx must be
// detached from the call's cancellation.
func (q *recordQueue) put(ctx context.Context, rec *record.Record) {
	q.mu.Lock()
	q.stats.Captured++
	if q.closed || q.n == q.size {
		q.stats.Dropped++
		reason := q.dropFull
		if q.closed {
			reason = q.dropClosed
		}
		q.mu.Unlock()
		q.cfg.inst.sinkDropped.Add(ctx, 1, reason)
		return
	}
	if q.buf == nil {
		q.buf = make([]queuedRecord, q.size)
	}
	q.buf[(q.head+q.n)%q.size] = queuedRecord{ctx, rec}
	q.n++
	q.pending++
	start := !q.running
	q.running = true
	q.mu.Unlock()
	if start {
		go q.write()
	}
}

// write is the writer goroutine: it writes the queued records in order and
// exits when none is left (or when Shutdown gave up on them).
func (q *recordQueue) write() {
	q.mu.Lock()
	for q.n > 0 && !q.gaveUp {
		it := q.buf[q.head]
		q.buf[q.head] = queuedRecord{}
		q.head = (q.head + 1) % q.size
		q.n--
		q.mu.Unlock()

		err := q.writeOne(it)

		q.mu.Lock()
		if q.gaveUp {
			break // Shutdown counted this one as lost
		}
		q.pending--
		if err == nil {
			q.stats.Written++
			continue
		}
		q.stats.Failed++
		q.mu.Unlock()
		// User code (the error handler) runs outside the lock.
		q.cfg.inst.sinkErrors.Add(it.ctx, 1)
		q.cfg.handle(errorf("record sink: sample %s: %w", it.rec.ID, err))
		q.mu.Lock()
	}
	q.running = false
	if q.pending == 0 && q.idle != nil {
		close(q.idle)
		q.idle = nil
	}
	q.mu.Unlock()
}

// writeOne calls the sink, turning a panic into an error: on the writer
// goroutine a panic would end the process, not one call.
func (q *recordQueue) writeOne(it queuedRecord) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("sink panicked: %v", v)
		}
	}()
	return q.cfg.sink.WriteRecord(it.ctx, it.rec)
}

func (q *recordQueue) snapshot() SinkStats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.stats
}

// shutdown closes the queue (later records are dropped and counted) and
// waits until the queued records are written or ctx ends; then it counts
// the rest as lost. It returns a *ShutdownError when any record was dropped
// or lost. Later calls return the first call's result.
func (q *recordQueue) shutdown(ctx context.Context) error {
	q.shutdownOnce.Do(func() {
		q.mu.Lock()
		q.closed = true
		var idle chan struct{}
		if q.pending > 0 {
			if q.idle == nil {
				q.idle = make(chan struct{})
			}
			idle = q.idle
		}
		q.mu.Unlock()
		var cause error
		if idle != nil {
			select {
			case <-idle:
			case <-ctx.Done():
				q.mu.Lock()
				lost := q.pending
				if lost > 0 {
					// Whatever is queued or being written now is lost: a
					// record the sink is writing may still reach it, but
					// the report cannot wait for a sink that does not
					// return.
					q.gaveUp = true
					q.stats.Lost += uint64(lost)
					q.pending = 0
					clear(q.buf)
					q.n = 0
					cause = context.Cause(ctx)
				}
				q.mu.Unlock()
				if lost > 0 {
					q.cfg.inst.sinkDropped.Add(context.WithoutCancel(ctx), int64(lost), q.dropShutdown)
				}
			}
		}
		st := q.snapshot()
		if st.Dropped+st.Lost > 0 {
			q.shutdownErr = &ShutdownError{Lost: st.Lost, Sink: &st, Err: cause}
		}
	})
	return q.shutdownErr
}

// Shutdown ends the chain's inline teaching (see Teacher: later draws are
// refused, the Teach calls under way are waited for until ctx ends, then
// cancelled and counted as lost in TeachStats) and then its record queue
// (WithSink). Records of later calls are dropped and counted. The records already queued are written, and
// Shutdown returns when they are or when ctx ends, whichever comes first.
// It returns a *ShutdownError, with the chain's SinkStats, when any record
// was dropped or lost. A record is dropped when the queue was full, and
// lost when it was still queued or being written as ctx ended (Err is then
// ctx's cause). The chain goes on answering calls after Shutdown. In shadow
// mode, shut the Shadow down first: its evaluations still under way produce
// records. Without a sink Shutdown only ends the teaching. Later calls of
// the record queue's part return the first call's result.
func (c *Chain) Shutdown(ctx context.Context) error {
	// The background Teach calls queue records: they end first.
	c.cfg.teach.shutdown(ctx)
	if c.cfg.records == nil {
		return nil
	}
	return c.cfg.records.shutdown(ctx)
}

// SinkStats returns the counts of the chain's records so far (zero without
// a sink).
func (c *Chain) SinkStats() SinkStats {
	if c.cfg.records == nil {
		return SinkStats{}
	}
	return c.cfg.records.snapshot()
}
