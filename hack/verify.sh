#!/usr/bin/env bash
# Fails if generated code, CRDs, formatting or vendor/ are stale.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
unformatted=$(gofmt -l cmd pkg bindata test)
if [ -n "$unformatted" ]; then echo "gofmt needed: $unformatted"; exit 1; fi
go vet -mod=vendor ./cmd/... ./pkg/... ./bindata/... ./test/...
bash hack/update-codegen.sh
go mod tidy
go mod vendor
if ! git diff --quiet -- . ; then
	echo "generated files, go.mod or vendor/ are stale; run 'make update':"
	git status --short
	exit 1
fi
