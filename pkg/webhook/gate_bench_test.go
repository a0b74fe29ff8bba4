//go:build unix

package webhook

import (
	"context"
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
// of it. A case that answers with a patch also runs against an echo that
// answers as many bytes (sizedEchoHandler), in the turn next to its own:
// that ratio is the handler's work apart from the answer's size, which the
// echo floor counts against it (docs/performance.md). It fails when a
// case's median ratio to either floor is above gateLimit. Run it with
// -benchtime 1x: b.N is not used.
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
	var cases, sizedCases []string
	for _, protocol := range gateProtocols {
		for _, tc := range loadCases() {
			name := protocol.name + "/" + tc.name
			config := loadClientConfig{
				CAFile: caFile, BodyFile: writeReviewBody(b, dir, tc), PatchContains: tc.patchContains, Clients: loadClients,
				HTTP2: protocol.http2,
			}
			if tc.floor != "" && len(tc.patchContains) > 0 {
				// Both servers' clients check that every answer is this long.
				config.AnswerBytes = answerBytes(b, tc)
				sized := config
				sized.PatchContains = nil
				envs[sizedEcho(name)] = startLoadEnv(b, certFile, keyFile, nil, sized)
				sizedCases = append(sizedCases, name)
			}
			envs[name] = startLoadEnv(b, certFile, keyFile, tc.mutators, config)
			if tc.floor != "" {
				if tc.floor != "echo" {
					b.Fatalf("case %s: the gate has one floor, echo", tc.name)
				}
				tc.name = name
				protocolCases[protocol.name] = append(protocolCases[protocol.name], tc)
				cases = append(cases, name)
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
	sizedRatios := map[string][]float64{}
	floors := map[string][]float64{}
	for round := range gateRounds {
		for _, protocol := range gateProtocols {
			floor := protocol.name + "/echo"
			echo := turn(floor)
			for _, tc := range protocolCases[protocol.name] {
				var ours float64
				if _, sized := envs[sizedEcho(tc.name)]; !sized {
					ours = turn(tc.name)
				} else {
					// The sized echo's turn comes after the case's in
					// one round and before it in the next, so that a
					// drift within a round weighs on neither side.
					var echoed float64
					if round%2 == 0 {
						ours = turn(tc.name)
						echoed = turn(sizedEcho(tc.name))
					} else {
						echoed = turn(sizedEcho(tc.name))
						ours = turn(tc.name)
					}
					sizedRatios[tc.name] = append(sizedRatios[tc.name], ours/echoed)
				}
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
	verdict := judgeRatios(cases, ratios, "echo")
	sized := judgeRatios(sizedCases, sizedRatios, "sized echo")
	for _, line := range append(verdict.lines, sized.lines...) {
		fmt.Println(line)
	}
	for _, name := range cases {
		b.ReportMetric(median(ratios[name]), "x-echo-"+strings.ReplaceAll(name, "/", "-"))
	}
	for _, name := range sizedCases {
		b.ReportMetric(median(sizedRatios[name]), "x-sized-echo-"+strings.ReplaceAll(name, "/", "-"))
	}
	if failed := append(verdict.failed, sized.failed...); len(failed) > 0 {
		b.Fatalf("server CPU per admission above %.1f× a floor (median of %d rounds): %s; profile with docs/performance.md's BenchmarkAnswer command",
			gateLimit, gateRounds, strings.Join(failed, ", "))
	}
}

// sizedEcho names the echo server whose answers are as long as the case's.
func sizedEcho(name string) string { return name + "/sized-echo" }

// answerBytes is the length of the case's answer: its handler run once in
// this process on the review its clients send.
func answerBytes(b *testing.B, tc loadCase) int {
	out, failure := newPodHandler(tc.mutators(b), newMetrics()).answer(context.Background(), reviewBody(b, tc.pod, podResource, ""))
	if failure != nil {
		b.Fatalf("case %s: %v", tc.name, failure)
	}
	return len(out)
}

type gateVerdict struct {
	// lines are one per case: its median and every round.
	lines []string
	// failed names the cases above gateLimit, with their medians.
	failed []string
}

// judgeRatios compares each named case's median ratio to floor with
// gateLimit.
func judgeRatios(names []string, ratios map[string][]float64, floor string) gateVerdict {
	var v gateVerdict
	for _, name := range names {
		rounds := ratios[name]
		m := median(rounds)
		each := make([]string, len(rounds))
		for i, r := range rounds {
			each[i] = fmt.Sprintf("%.2f", r)
		}
		v.lines = append(v.lines, fmt.Sprintf("%-27s median %.2f× %s (rounds %s)", name, m, floor, strings.Join(each, " ")))
		if len(rounds) == 0 || m > gateLimit {
			v.failed = append(v.failed, fmt.Sprintf("%s %.2f× %s", name, m, floor))
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
