#!/usr/bin/env bash
# Fails unless the binary `make build` wrote reports the commit it was built
# from and a build date, i.e. build-machinery-go's -ldflags reached pkg/version.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
binary=${1:-_output/bin/cluster-workload-access-operator}

out=$("$binary" version)
commit=$(git rev-parse --short "HEAD^{commit}")
echo "$binary version: $out"
if [[ $out != *"$commit"* || $out == *1970-01-01T00:00:00Z* ]]; then
	echo "version is not stamped: want commit $commit and a build date (see GO_LD_FLAGS in build-machinery-go's lib/golang.mk)" >&2
	exit 1
fi
