//go:build unix && !race

// Not built with -race: the race detector drops sync.Pool items at random,
// so counts vary there; make test-unit runs without it, as the golden
// file is recorded.

package webhook

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// allocsGolden holds the allocations of one admission per answerCase, as
// TestAdmissionAllocations measures them.
const allocsGolden = "testdata/admission-allocs.txt"

// rewriteAllocs is the command that records the allocations measured now.
const rewriteAllocs = "go test ./pkg/webhook -run TestAdmissionAllocations -update-allocs"

var updateAllocs = flag.Bool("update-allocs", false, "rewrite "+allocsGolden+" with the allocations measured now")

const (
	// allocsWarmUp admissions come before the measured ones: they fill
	// the sync.Pools and the runtime's type-switch caches (see
	// admissionAllocs).
	allocsWarmUp = 200
	// allocsRuns is how many admissions the count is the mean of.
	allocsRuns = 100
)

// TestAdmissionAllocations counts the allocations of one admission in each
// answerCase and compares them with allocsGolden: a change that allocates
// more on the admission path fails here with the case and both numbers.
// Allocations are deterministic where CPU time is not; what the time per
// admission is, BenchmarkAnswer and BenchmarkHTTPSLoad say.
func TestAdmissionAllocations(t *testing.T) {
	cases := answerCases()
	measured := make(map[string]int, len(cases))
	for _, tc := range cases {
		measured[tc.name] = admissionAllocs(t, tc)
	}
	if *updateAllocs {
		writeAllocsGolden(t, cases, measured)
		return
	}
	recorded := readAllocsGolden(t)
	for _, tc := range cases {
		got := measured[tc.name]
		want, ok := recorded[tc.name]
		switch {
		case !ok:
			t.Errorf("%s: %d allocations per admission, none recorded in %s; record them with: %s",
				tc.name, got, allocsGolden, rewriteAllocs)
		case got > want:
			t.Errorf("%s: %d allocations per admission, %d recorded in %s: the change allocates more on the admission path. "+
				"If it must, rewrite the file with `%s` and say why in the commit message",
				tc.name, got, want, allocsGolden, rewriteAllocs)
		case got < want:
			t.Logf("%s: %d allocations per admission, fewer than the %d recorded in %s; tighten it with: %s",
				tc.name, got, want, allocsGolden, rewriteAllocs)
		}
		delete(recorded, tc.name)
	}
	for name := range recorded {
		t.Errorf("%s records case %q, which answerCases no longer has; rewrite it with: %s", allocsGolden, name, rewriteAllocs)
	}
}

// admissionAllocs is the allocations of one admission in case tc, the
// same number on every run: the garbage collector is off while it counts,
// since a collection empties the sync.Pools (encoding/json's encoder
// state among them) and the next admission allocates them again. What
// is left is the runtime's own caches of type assertions and interface
// switches, which it builds at random (about one execution in 1,024) a
// few times per process and never again: the warm-up admissions take
// most, and the count is the mean of allocsRuns admissions rounded down,
// which those few cannot move while one allocation more per admission
// moves it by one.
func admissionAllocs(t *testing.T, tc answerCase) int {
	h, body := tc.handler(t)
	ctx := context.Background()
	out, failure := h.answer(ctx, body)
	tc.check(t, out, failure)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for range allocsWarmUp {
		h.answer(ctx, body)
	}
	// AllocsPerRun runs with GOMAXPROCS 1, and its result is a whole number.
	return int(testing.AllocsPerRun(allocsRuns, func() { h.answer(ctx, body) }))
}

func readAllocsGolden(t *testing.T) map[string]int {
	raw, err := os.ReadFile(allocsGolden)
	if err != nil {
		t.Fatalf("%v; record the allocations with: %s", err, rewriteAllocs)
	}
	recorded := map[string]int{}
	scanner := bufio.NewScanner(bytes.NewReader(raw))
	for line := 1; scanner.Scan(); line++ {
		text := strings.TrimSpace(scanner.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		name, count, ok := strings.Cut(text, " ")
		n, err := strconv.Atoi(strings.TrimSpace(count))
		if !ok || err != nil {
			t.Fatalf("%s:%d: %q is not \"case allocations\"", allocsGolden, line, text)
		}
		recorded[name] = n
	}
	return recorded
}

func writeAllocsGolden(t *testing.T, cases []answerCase, measured map[string]int) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Allocations of one admission of the 5.9 KB checkoutPod (podHandler.answer,\n"+
		"# the production mutators; pkg/webhook/answer_allocs_test.go), per case.\n"+
		"# TestAdmissionAllocations fails when a case allocates more. Rewrite with\n"+
		"#   %s\n"+
		"# and say why the numbers moved in the commit message.\n", rewriteAllocs)
	for _, tc := range cases {
		fmt.Fprintf(&b, "%s %d\n", tc.name, measured[tc.name])
	}
	if err := os.WriteFile(allocsGolden, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s:\n%s", allocsGolden, b.String())
}
