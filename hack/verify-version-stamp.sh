#!/usr/bin/env bash
# Fails unless a binary built by `make build` reports the given version, the
# commit it was built from and a build date, i.e. unless build-machinery-go's
# -ldflags reached every variable in pkg/version. `make verify-version-stamp`
# builds it with OS_GIT_VERSION set to a marker that holds no commit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
binary=$1
want_version=$2

out=$("$binary" version)
commit=$(git rev-parse --short "HEAD^{commit}")
echo "$binary version: $out"
missing=()
[[ $out == *"$want_version"* ]] || missing+=("version $want_version (versionFromGit)")
[[ $out == *"$commit"* ]] || missing+=("commit $commit (commitFromGit)")
[[ $out != *1970-01-01T00:00:00Z* ]] || missing+=("a build date (buildDate)")
if ((${#missing[@]})); then
	echo "pkg/version is not stamped; missing: $(IFS=,; echo "${missing[*]}")." >&2
	echo "See GO_LD_FLAGS in vendor/github.com/openshift/build-machinery-go/make/lib/golang.mk." >&2
	exit 1
fi
