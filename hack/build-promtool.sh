#!/usr/bin/env bash
# Builds promtool (github.com/prometheus/prometheus/cmd/promtool, pinned in
# test/tools/promtool) once, for `make test-rules`, and prints its path.
# Reruns with the binary present are instant; see docs/development.md for the
# cold build time. Kept apart from the control-plane cache, like the S3 server.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/hack/lib/gotool.sh"
mod=$root/test/tools/promtool
version=$(gotool::version "$mod" github.com/prometheus/prometheus)
bin=$(gotool::cache_dir promtool)/prometheus-$version/promtool

gotool::drop_unless_stamped "$bin" "^promtool, version ${version#v} "
gotool::build "$bin" "$mod" github.com/prometheus/prometheus/cmd/promtool \
	"-s -w -X github.com/prometheus/common/version.Version=${version#v} -X github.com/prometheus/common/version.Branch=module -X github.com/prometheus/common/version.Revision=module"
echo "$bin"
