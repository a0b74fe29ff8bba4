#!/usr/bin/env bash
# Builds the S3-compatible server the e2e tests and `make run-local` start
# (Versity S3 Gateway, pinned in test/tools/versitygw) once and prints its
# path. Reruns with the binary present are instant; a cold build takes about
# 40 s on an idle 2-core machine, more while other builds run (figures in
# docs/performance.md, "Suite timings"). Kept apart from the control-plane
# cache so that a new S3 server version never forces a control-plane rebuild.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/hack/lib/gotool.sh"
mod=$root/test/tools/versitygw
version=$(gotool::version "$mod" github.com/versity/versitygw)
bin=$(gotool::cache_dir s3server)/versitygw-$version/versitygw

gotool::drop_unless_stamped "$bin" "^Version *: *$version\$"
gotool::build "$bin" "$mod" github.com/versity/versitygw/cmd/versitygw \
	"-s -w -X main.Version=$version -X main.Build=module -X main.BuildTime=none"
echo "$bin"
