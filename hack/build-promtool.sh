#!/usr/bin/env bash
# Builds promtool (github.com/prometheus/prometheus/cmd/promtool, pinned in
# test/tools/promtool) from the Go module proxy into a cache directory keyed by
# its version, once, for `make test-rules`. Prints the binary's path. Reruns
# with the binary present are instant; see docs/development.md for the cold
# build time. Kept apart from the control-plane cache, like the S3 server.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mod=$root/test/tools/promtool
version=$(awk '{ if ($1 == "require") $0 = substr($0, 9) } $1 == "github.com/prometheus/prometheus" && $2 ~ /^v/ { print $2; exit }' "$mod/go.mod")
if [ -z "$version" ]; then
	echo "no github.com/prometheus/prometheus version in $mod/go.mod" >&2
	exit 1
fi
dir=${XDG_CACHE_HOME:-$HOME/.cache}/cluster-workload-access-operator/promtool/prometheus-$version
bin=$dir/promtool

# A binary from an interrupted or mis-stamped build is rebuilt.
# (The output is read whole: grep -q closing the pipe early would fail it.)
if [ -x "$bin" ] && ! grep -q "^promtool, version ${version#v} " <<<"$("$bin" --version 2>/dev/null || true)"; then
	rm -f "$bin"
fi

if [ ! -x "$bin" ]; then
	mkdir -p "$dir"
	echo "building promtool $version into $dir" >&2
	start=$SECONDS
	tmp=$bin.tmp.$$
	trap 'rm -f "$tmp"' EXIT
	(cd "$mod" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
		-ldflags="-s -w -X github.com/prometheus/common/version.Version=${version#v} -X github.com/prometheus/common/version.Branch=module -X github.com/prometheus/common/version.Revision=module" \
		-o "$tmp" github.com/prometheus/prometheus/cmd/promtool)
	mv "$tmp" "$bin"
	echo "built promtool in $((SECONDS - start))s" >&2
fi
echo "$bin"
