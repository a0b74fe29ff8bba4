//go:build unix

package webhook

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2"
)

// The admission gate (make bench-check, in CI): every case's server CPU
// per admission against the echo floor, measured in one process, as a
// ratio per round, so that what the machine's load does to both cancels.
const (
	// gateRounds: the median of 7 rounds; one round of a busy machine
	// moves no verdict.
	gateRounds = 7
	// gateAdmissions per case and turn: about 0.3 s of a 2-core machine,
	// long enough for the GC to run within a turn.
	gateAdmissions = 3000
	// gateLimit fails the gate. The target is 1.2×; the margin between the
	// two is what a noisy machine moves a median (docs/performance.md).
	gateLimit = 1.5
)

// gateProtocols are the two ways the API server calls the webhook: over
// HTTP/2, which it negotiates when the webhook offers it (this one does,
// unless a TLS profile leaves out HTTP/2's cipher suites), and HTTP/1.1.
var gateProtocols = []struct {
	name  string
	http2 bool
}{{"h2", true}, {"http1", false}}

// BenchmarkAdmissionGate runs each round as echo, case, echo, case, ...,
// echo, and takes a case's ratio to the mean of the echo turns either side
// of it. It fails when a case's median ratio is above gateLimit. Run it
// with -benchtime 1x: b.N is not used.
func BenchmarkAdmissionGate(b *testing.B) {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	defer klog.LogToStderr(true)
	dir := b.TempDir()
	certFile, keyFile, caFile := loadCertificates(b, dir)
	envs := map[string]*loadEnv{}
	defer func() {
		for _, env := range envs {
			env.close()
		}
	}()
	// Each protocol's cases, named "<protocol>/<case>", judged against
	// that protocol's echo.
	protocolCases := map[string][]loadCase{}
	var cases []loadCase
	for _, protocol := range gateProtocols {
		for _, tc := range loadCases() {
			name := protocol.name + "/" + tc.name
			envs[name] = startLoadEnv(b, certFile, keyFile, tc.mutators, loadClientConfig{
				CAFile: caFile, BodyFile: writeReviewBody(b, dir, tc), PatchContains: tc.patchContains, Clients: loadClients,
				HTTP2: protocol.http2,
			})
			if tc.floor != "" {
				if tc.floor != "echo" {
					b.Fatalf("case %s: the gate has one floor, echo", tc.name)
				}
				tc.name = name
				protocolCases[protocol.name] = append(protocolCases[protocol.name], tc)
				cases = append(cases, tc)
			}
		}
	}
	turn := func(name string) float64 {
		before := processCPU()
		if _, err := envs[name].client.run(gateAdmissions); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		return float64(processCPU()-before) / gateAdmissions
	}
	ratios := map[string][]float64{}
	floors := map[string][]float64{}
	for range gateRounds {
		for _, protocol := range gateProtocols {
			floor := protocol.name + "/echo"
			echo := turn(floor)
			for _, tc := range protocolCases[protocol.name] {
				ours := turn(tc.name)
				next := turn(floor)
				ratios[tc.name] = append(ratios[tc.name], ours/((echo+next)/2))
				floors[protocol.name] = append(floors[protocol.name], echo)
				echo = next
			}
		}
	}
	// Printed, not logged: the testing package keeps only a benchmark's
	// first 10 lines of log, and every case's rounds are the figures.
	for _, protocol := range gateProtocols {
		fmt.Printf("%s echo floor: median %.0f µs per admission over %d turns\n", protocol.name,
			median(floors[protocol.name])/float64(time.Microsecond), len(floors[protocol.name]))
	}
	verdict := judgeRatios(cases, ratios)
	for _, line := range verdict.lines {
		fmt.Println(line)
	}
	for _, tc := range cases {
		b.ReportMetric(median(ratios[tc.name]), "x-echo-"+strings.ReplaceAll(tc.name, "/", "-"))
	}
	if verdict.failed != nil {
		b.Fatalf("server CPU per admission above %.1f× the echo floor (median of %d rounds): %s; profile with docs/performance.md's BenchmarkAnswer command",
			gateLimit, gateRounds, strings.Join(verdict.failed, ", "))
	}
}

type gateVerdict struct {
	// lines are one per case: its median and every round.
	lines []string
	// failed names the cases above gateLimit, with their medians.
	failed []string
}

// judgeRatios compares each case's median ratio with gateLimit.
func judgeRatios(cases []loadCase, ratios map[string][]float64) gateVerdict {
	var v gateVerdict
	for _, tc := range cases {
		rounds := ratios[tc.name]
		m := median(rounds)
		each := make([]string, len(rounds))
		for i, r := range rounds {
			each[i] = fmt.Sprintf("%.2f", r)
		}
		v.lines = append(v.lines, fmt.Sprintf("%-27s median %.2f× echo (rounds %s)", tc.name, m, strings.Join(each, " ")))
		if len(rounds) == 0 || m > gateLimit {
			v.failed = append(v.failed, fmt.Sprintf("%s %.2f×", tc.name, m))
		}
	}
	return v
}

func median(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	if n := len(sorted); n%2 == 0 {
		return (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return sorted[len(sorted)/2]
}
