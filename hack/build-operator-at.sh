#!/usr/bin/env bash
# Builds the operator of one commit of this clone once, keyed by the full
# commit, into the cache beside the other built binaries, with that
# commit's manifests/ next to it, and prints the directory. test/upgrade
# starts the previous release from it (its ref is previousRelease there).
# A cold build takes as long as `make build` with a cold build cache.
set -euo pipefail

ref=${1:?usage: $0 COMMIT}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/hack/lib/gotool.sh"

if ! commit=$(git -C "$root" rev-parse --verify --quiet "$ref^{commit}"); then
	echo "commit $ref is not in the clone at $root: fetch it (git fetch origin; in a shallow clone git fetch --unshallow)" >&2
	exit 1
fi
dir=$(gotool::cache_dir operator)/$commit
bin=$dir/cluster-workload-access-operator
# The binary is moved in last: with it there, the manifests are too.
if [ ! -x "$bin" ]; then
	echo "building the operator of $commit into $dir" >&2
	start=$SECONDS
	src=$(mktemp -d)
	trap 'rm -rf "$src"' EXIT
	git -C "$root" archive "$commit" | tar -x -C "$src"
	mkdir -p "$dir"
	rm -rf "$dir/manifests"
	cp -r "$src/manifests" "$dir/manifests"
	short=$(git -C "$root" rev-parse --short=7 "$commit")
	pkg=github.com/openshift/cluster-workload-access-operator/pkg/version
	(cd "$src" && GOFLAGS=-mod=vendor go build -trimpath \
		-ldflags "-X $pkg.versionFromGit=v0.0.0-unknown-$short -X $pkg.commitFromGit=$short -X $pkg.gitTreeState=clean" \
		-o "$src/_output/operator" ./cmd/cluster-workload-access-operator)
	mv "$src/_output/operator" "$bin"
	echo "built in $((SECONDS - start))s" >&2
fi
echo "$dir"
