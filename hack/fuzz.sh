#!/usr/bin/env bash
# Runs one fuzz target for a while: hack/fuzz.sh <package> <target> <fuzztime> [go test flags...]
#
# Go's fuzz coordinator can report its own -fuzztime deadline as a failure
# ("context deadline exceeded", nothing else): it races the end of the run
# against new inputs still being minimized, and short runs (CI's 5 s) hit it
# (seen on pkg/webhook/grants FuzzCheck, pkg/webhook FuzzPodHandler and
# pkg/webhook/podidentity FuzzCachedAnnotations, about once per CI run). That
# outcome, and only that one, is run again, up to twice: at about one such
# outcome per run of 19 targets, a single retry would still leave two in a
# row failing CI roughly one run in twenty (an estimate). A real failure
# always writes its input to testdata/fuzz and is never retried.
set -euo pipefail
pkg=$1 target=$2 fuzztime=$3
shift 3
run() {
	go test "$@" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s "$pkg" 2>&1
}
for attempt in 1 2 3; do
	if out=$(run "$@"); then
		echo "$out"
		exit 0
	fi
	echo "$out"
	# The only message of the failure is the coordinator's deadline.
	reason=$(grep -A1 -- '^--- FAIL: ' <<<"$out" | sed -n 2p || true)
	if ! [[ $reason =~ ^[[:space:]]*context\ deadline\ exceeded$ ]] || grep -q 'Failing input written to' <<<"$out"; then
		exit 1
	fi
	echo "hack/fuzz.sh: $target ended on the fuzz coordinator's own deadline, with no failing input (attempt $attempt of 3)"
done
exit 1
