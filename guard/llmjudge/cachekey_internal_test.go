package llmjudge

import (
	"testing"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// The cascade caches a fallback estimate under a key that covers only the
// inputs cascade.Inputs names for its decision. Each prompt of this judge
// must show exactly those (a prompt showing more would let a cached
// estimate be handed to a sample it never saw; one showing less would only
// waste cache hits).
func TestPromptsShowWhatTheCascadeKeys(t *testing.T) {
	for _, d := range guard.Decisions {
		p, ok := prompts[d]
		if !ok {
			t.Errorf("no prompt for %v", d)
			continue
		}
		var shown cascade.Input
		for _, b := range p.blocks {
			switch b {
			case blockQuestion:
				shown |= cascade.InputQuestion
			case blockAnswer:
				shown |= cascade.InputAnswer
			case blockReference:
				shown |= cascade.InputReference
			case blockContext:
				if d == guard.ChunkRelevance {
					shown |= cascade.InputChunk // one prompt per chunk
				} else {
					shown |= cascade.InputContexts
				}
			}
		}
		if want := cascade.Inputs(d); shown != want {
			t.Errorf("the %v prompt shows inputs %05b; the cascade keys it on %05b", d, shown, want)
		}
	}
}
