package report

import "fmt"

// Mode says how a replay judges each row. Every mode runs on the same rows,
// so their reports compare directly.
type Mode string

// The modes.
const (
	// ModePrimary: the guard's own judges and policy, no fallback.
	ModePrimary Mode = "primary"
	// ModeFallback: the fallback judge alone, as the baseline.
	ModeFallback Mode = "fallback"
	// ModeCascade: the primary judges decide what they are confident about;
	// the uncertain decisions go to the fallback judge.
	ModeCascade Mode = "cascade"
	// ModeRecorded: no judging; records are scored from the results they
	// carry (record input only).
	ModeRecorded Mode = "recorded"
)

// ParseMode returns the mode with the given name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModePrimary, ModeFallback, ModeCascade, ModeRecorded:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want primary, fallback, cascade or recorded)", s)
}
