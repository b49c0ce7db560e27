package cascade

// Waiting returns how many calls are waiting for a concurrency slot, for
// tests that must see a call blocked rather than sleep.
func Waiting(c *Cascade) int64 { return c.waiting.Load() }
