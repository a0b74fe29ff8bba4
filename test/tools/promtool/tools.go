//go:build tools

// Package tools pins promtool, which hack/build-promtool.sh builds into the
// tool cache for `make test-rules`.
package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
