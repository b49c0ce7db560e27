package cascade_test

import (
	"testing"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// The MemoryStore shares promise monitors' tallies within a process.
func TestMemoryStorePromises(t *testing.T) {
	guardtest.TestPromiseStore(t, func(t *testing.T, n int) []guard.PromiseStore {
		s, err := cascade.NewMemoryStore(0, nil)
		if err != nil {
			t.Fatal(err)
		}
		fleet := make([]guard.PromiseStore, n)
		for i := range fleet {
			fleet[i] = s
		}
		return fleet
	})
}
