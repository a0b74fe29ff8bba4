//go:build unix

package webhook

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestJudgeRatiosFailsACaseAboveTheLimitAtTheMedian(t *testing.T) {
	v := judgeRatios([]string{"on-role", "on-bundle", "off-nothing"}, map[string][]float64{
		// One slow round does not fail a case whose median is within.
		"on-role": {1.1, 1.9, 1.2, 1.0, 1.3},
		// A median above the limit fails, however good one round was.
		"on-bundle": {1.6, 0.9, 1.7, 1.55, 1.4},
		// A case that never ran fails: a gate that measured nothing passes nothing.
	}, "echo")
	if got := strings.Join(v.failed, "; "); got != "on-bundle 1.55× echo; off-nothing 0.00× echo" {
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

// The sized echo stands for a case's answer only if it is as long: the
// gate's clients check the length on the wire too.
func TestSizedEchoAnswersAsManyBytesAsAsked(t *testing.T) {
	review := `{"request":{"uid":"6f0d3c2e-1b7a-4f1e-8e2a-9b1d5c7e3a40"}}`
	for _, size := range []int{200, 6341} {
		w := httptest.NewRecorder()
		sizedEchoHandler(size)(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(review)))
		var answer struct {
			Response struct {
				UID     string `json:"uid"`
				Allowed bool   `json:"allowed"`
			} `json:"response"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &answer); err != nil || w.Body.Len() != size ||
			w.Header().Get("Content-Length") != strconv.Itoa(size) || !answer.Response.Allowed ||
			answer.Response.UID != "6f0d3c2e-1b7a-4f1e-8e2a-9b1d5c7e3a40" {
			t.Errorf("size %d: answer of %d bytes (Content-Length %s), %v: %.200s", size, w.Body.Len(), w.Header().Get("Content-Length"), err, w.Body.String())
		}
	}
	// Shorter than the answer's own members: refused, never sent short.
	w := httptest.NewRecorder()
	sizedEchoHandler(100)(w, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(review)))
	if w.Code != http.StatusInternalServerError {
		t.Errorf("size 100: status %d, want 500", w.Code)
	}
}
