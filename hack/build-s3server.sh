#!/usr/bin/env bash
# Builds the S3-compatible server the e2e tests and `make run-local` start
# (Versity S3 Gateway, pinned in test/tools/versitygw) from the Go module
# proxy into a cache directory keyed by its version, once. Prints the binary's
# path. Reruns with the binary present are instant; a cold build takes about
# 2.5 minutes on 2 cores. Kept apart from the control-plane cache so that a new
# S3 server version never forces a control-plane rebuild.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mod=$root/test/tools/versitygw
version=$(awk '{ if ($1 == "require") $0 = substr($0, 9) } $1 == "github.com/versity/versitygw" && $2 ~ /^v/ { print $2; exit }' "$mod/go.mod")
if [ -z "$version" ]; then
	echo "no github.com/versity/versitygw version in $mod/go.mod" >&2
	exit 1
fi
dir=${XDG_CACHE_HOME:-$HOME/.cache}/cluster-workload-access-operator/s3server/versitygw-$version
bin=$dir/versitygw

# A binary from an interrupted or mis-stamped build is rebuilt.
# (The output is read whole: grep -q closing the pipe early would fail it.)
if [ -x "$bin" ] && ! grep -q "^Version *: *$version\$" <<<"$("$bin" --version 2>/dev/null || true)"; then
	rm -f "$bin"
fi

if [ ! -x "$bin" ]; then
	mkdir -p "$dir"
	echo "building versitygw $version into $dir" >&2
	start=$SECONDS
	tmp=$bin.tmp.$$
	trap 'rm -f "$tmp"' EXIT
	(cd "$mod" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
		-ldflags="-s -w -X main.Version=$version -X main.Build=module -X main.BuildTime=none" \
		-o "$tmp" github.com/versity/versitygw/cmd/versitygw)
	mv "$tmp" "$bin"
	echo "built versitygw in $((SECONDS - start))s" >&2
fi
echo "$bin"
