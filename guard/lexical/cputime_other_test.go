//go:build !linux

package lexical_test

import "testing"

// threadCPU reports nothing where the thread's CPU time is not read (see
// cputime_linux_test.go).
type threadCPU struct{}

func startThreadCPU() *threadCPU                { return &threadCPU{} }
func (c *threadCPU) report(b *testing.B, n int) {}
