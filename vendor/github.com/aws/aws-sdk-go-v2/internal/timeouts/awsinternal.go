package timeouts

// Enabled internally.
var enableReadTimeout2026 = false

var readTimeout2026Rollout map[string]bool
