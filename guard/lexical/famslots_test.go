package lexical

import (
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard/lexical/internal/quant"
)

// TestFamSlotsHoldEveryKind checks that famAt has a slot for the family
// of every kind quant knows: a kind added after Ordinal would otherwise
// write into the next context's slots.
func TestFamSlotsHoldEveryKind(t *testing.T) {
	for k := range 256 {
		kind := quant.Kind(k)
		if strings.HasPrefix(kind.String(), "Kind(") {
			continue // not a kind quant knows
		}
		if f := int(kind.Family()); f >= famSlots {
			t.Errorf("kind %v has family %d, outside famAt's %d slots a context", kind, f, famSlots)
		}
	}
}
