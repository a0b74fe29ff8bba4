package conditions

import (
	"fmt"
	"strings"
)

// Named lists up to limit items, comma-separated, and counts the rest
// ("a, b and 3 more"): condition messages and Events stay readable in a
// terminal however many objects a sync concerns.
func Named(items []string, limit int) string {
	shown := items[:min(len(items), limit)]
	out := strings.Join(shown, ", ")
	if more := len(items) - len(shown); more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}
