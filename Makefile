SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

GO_PACKAGES := ./cmd/... ./pkg/... ./bindata/...
BINARY := _output/bin/cluster-workload-access-operator
GOFLAGS_BUILD := -mod=vendor

.PHONY: all build test test-unit test-e2e bench bench-scale controlplane run-local update verify clean

all: build

build:
	go build $(GOFLAGS_BUILD) -o $(BINARY) ./cmd/cluster-workload-access-operator

# Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok
# once into ~/.cache (5-14 min cold, instant afterwards).
controlplane:
	bash hack/build-controlplane.sh

test: test-unit test-e2e

test-unit:
	go test $(GOFLAGS_BUILD) $(GO_PACKAGES)

test-e2e: build controlplane
	OPERATOR_BINARY=$(CURDIR)/$(BINARY) go test $(GOFLAGS_BUILD) -count=1 -timeout 30m ./test/controlplane/... ./test/e2e/...

# Micro-benchmarks of the webhook (see docs/performance.md).
bench:
	go test $(GOFLAGS_BUILD) -run xxx -bench . -benchmem ./pkg/webhook/...

# The operator with 20,000 Secrets and 1,000 ClusterBundles on the test
# control plane (about 10 minutes).
bench-scale: build controlplane
	OPERATOR_BINARY=$(CURDIR)/$(BINARY) go test $(GOFLAGS_BUILD) -run xxx -bench OperatorAtScale -benchtime 1x -timeout 40m -v ./test/scale/

run-local: build controlplane
	go run $(GOFLAGS_BUILD) ./test/cmd/run-local --operator-binary=$(BINARY)

update:
	bash hack/update-codegen.sh
	gofmt -w cmd pkg bindata test
	go mod tidy
	go mod vendor

verify:
	bash hack/verify.sh

clean:
	rm -rf _output
