//go:build unix

package webhook

import (
	"strings"
	"testing"
)

func TestJudgeRatiosFailsACaseAboveTheLimitAtTheMedian(t *testing.T) {
	cases := []loadCase{{name: "on-role"}, {name: "on-bundle"}, {name: "off-nothing"}}
	v := judgeRatios(cases, map[string][]float64{
		// One slow round does not fail a case whose median is within.
		"on-role": {1.1, 1.9, 1.2, 1.0, 1.3},
		// A median above the limit fails, however good one round was.
		"on-bundle": {1.6, 0.9, 1.7, 1.55, 1.4},
		// A case that never ran fails: a gate that measured nothing passes nothing.
	})
	if got := strings.Join(v.failed, "; "); got != "on-bundle 1.55×; off-nothing 0.00×" {
		t.Errorf("failed = %q, want on-bundle and off-nothing", got)
	}
	if len(v.lines) != 3 || !strings.Contains(v.lines[0], "median 1.20× echo (rounds 1.10 1.90 1.20 1.00 1.30)") {
		t.Errorf("lines = %q", v.lines)
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		want   float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.values); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.values, got, tc.want)
		}
	}
}
