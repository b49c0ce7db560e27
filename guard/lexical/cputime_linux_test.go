package lexical_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU measures the CPU time (user + system) of the calling OS thread,
// which it locks to its goroutine: the time a benchmark loop spent
// running, not the time it waited while other processes had the CPU. On a
// shared machine ns/op swings with their load; cpu-ns/op much less.
type threadCPU struct{ start time.Duration }

func startThreadCPU() *threadCPU {
	runtime.LockOSThread()
	return &threadCPU{start: threadTime()}
}

// report adds the cpu-ns/op metric for n iterations and unlocks the thread.
func (c *threadCPU) report(b *testing.B, n int) {
	d := threadTime() - c.start
	runtime.UnlockOSThread()
	if n > 0 {
		b.ReportMetric(float64(d)/float64(n), "cpu-ns/op")
	}
}

func threadTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
