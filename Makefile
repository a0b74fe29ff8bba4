SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c

# build-machinery-go (vendored) provides build (with pkg/version stamped from
# git), test-unit, verify-gofmt, verify-govet, verify-golang-versions,
# update-gofmt and help; the variables below tune them.
GO_BUILD_PACKAGES := ./cmd/...
GO_BUILD_BINDIR := _output/bin
# Unit tests without -race, as before: on 2 cores -race took them from 33 s to 2m21s
# warm, and added about 6 minutes with a cold build cache (CI).
GO_TEST_FLAGS :=
GO_TEST_PACKAGES := ./cmd/... ./pkg/... ./bindata/... ./test/cmd/... ./test/framework/admissionload/...
# What go vet checks. test/tools and hack/tools are separate modules, so ./test/... skips them.
GO_PACKAGES := $(GO_TEST_PACKAGES) ./test/...
# A clone without tags still builds: the version becomes v0.0.0-unknown-<commit>.
SOURCE_GIT_TAG ?= $(shell git describe --long --tags --abbrev=7 --match 'v[0-9]*' 2>/dev/null || echo 'v0.0.0-unknown-$(SOURCE_GIT_COMMIT)')

include $(addprefix ./vendor/github.com/openshift/build-machinery-go/make/, \
	golang.mk \
)

# build-machinery-go's help pipes a failing `make --question` into grep.
help: .SHELLFLAGS := -c

# The builder image in Dockerfile.rhel and go.mod must name the same Go release.
$(call verify-golang-versions,Dockerfile.rhel)

BINARY := $(GO_BUILD_BINDIR)/cluster-workload-access-operator

.PHONY: all build test test-unit test-e2e test-faults test-upgrade bench bench-check bench-scale bench-scopes bench-webhook-memory bench-eks-webhook bench-apiaccess controlplane s3server promtool test-rules run-local \
	update update-codegen update-deps verify verify-update verify-version-stamp clean fuzz

# Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok
# once into ~/.cache (minutes cold, figures in docs/performance.md; instant afterwards).
controlplane:
	bash hack/build-controlplane.sh

# Builds the S3-compatible server (versitygw, test/tools/versitygw) once into
# ~/.cache (under a minute cold on an idle machine; instant afterwards).
s3server:
	bash hack/build-s3server.sh

# Builds promtool (test/tools/promtool) once into ~/.cache (see docs/development.md).
promtool:
	bash hack/build-promtool.sh

# test-faults and test-upgrade run after test-e2e, not beside it: their figures
# (a takeover within the lease's bound, refusals only in the kill's window)
# would measure the CPU the e2e package takes from them.
test: test-unit test-rules test-e2e test-faults test-upgrade

# pkg/operator/podidentity/iamrolerequest's tests start versitygw (IAM): built
# first, since a cold build takes minutes on 2 cores while go test compiles.
test-unit: s3server

# promtool check rules and test rules on the shipped PrometheusRule
# (test/rules: every alert fires when it should and stays quiet when not).
test-rules: promtool
	PROMTOOL=$$(bash hack/build-promtool.sh) go test $(GO_MOD_FLAGS) -count=1 ./test/rules/

# test/stschain and test/runlocal use a network namespace of their own: as root (CI), or where
# unprivileged user namespaces are allowed (docs/development.md).
test-e2e: build controlplane s3server
	s3server=$$(bash hack/build-s3server.sh); \
	OPERATOR_BINARY=$(CURDIR)/$(BINARY) S3SERVER_BINARY=$$s3server \
		go test $(GO_MOD_FLAGS) -count=1 -timeout 30m ./test/controlplane/... ./test/s3server/... ./test/e2e/... ./test/eventttl/... ./test/stschain/... ./test/runlocal/...

# Faults under a steady pod load (docs/reliability.md): a webhook replica
# killed, a rolling restart of the webhook, kube-apiserver restarted. Its own
# control plane (aggregator routing) in a network namespace of its own, as
# test/stschain's; the tests take under 2 minutes (docs/reliability.md).
test-faults: build controlplane s3server
	s3server=$$(bash hack/build-s3server.sh); \
	OPERATOR_BINARY=$(CURDIR)/$(BINARY) S3SERVER_BINARY=$$s3server \
		go test $(GO_MOD_FLAGS) -count=1 -timeout 20m -v ./test/faults/

# test/upgrade: the operator's leader lost, and the upgrade from the previous
# release and the downgrade back, under pod load, on a control plane of its
# own. The test builds the previous release's operator (its previousRelease)
# once from git into ~/.cache (hack/build-operator-at.sh). Figures and run
# time in docs/reliability.md.
test-upgrade: build controlplane s3server
	s3server=$$(bash hack/build-s3server.sh); \
	OPERATOR_BINARY=$(CURDIR)/$(BINARY) S3SERVER_BINARY=$$s3server \
		go test $(GO_MOD_FLAGS) -count=1 -timeout 20m -v ./test/upgrade/...

# Micro-benchmarks of the webhook (see docs/performance.md).
bench:
	go test $(GO_MOD_FLAGS) -run xxx -bench . -benchmem ./pkg/webhook/...

# The admission gate (docs/performance.md): every admission case's server
# CPU against the echo floor in one process, the median of 7 rounds, failing
# above 1.5×; about 80 s on a 2-core machine. Not in .ci/run yet: the docs say why.
bench-check:
	go test $(GO_MOD_FLAGS) -count=1 -run xxx -bench AdmissionGate -benchtime 1x -timeout 15m ./pkg/webhook/

# Each fuzz target for FUZZTIME (see docs/performance.md), run by hand: CI
# replays the committed corpus (testdata/fuzz) with the unit tests. New
# inputs that widen coverage are minimized for at most 5 s each, so a short
# run spends its time fuzzing. A failing input is written to the package's
# testdata/fuzz/<target>/; commit it with the fix. hack/fuzz.sh runs each one, and
# runs it once more when Go's fuzz coordinator fails on its own deadline race
# with nothing but "context deadline exceeded" (no failing input).
FUZZTIME ?= 30s
FUZZ_TARGETS := ./pkg/webhook:FuzzPodHandler \
	./pkg/webhook:FuzzReviewDecode \
	./pkg/webhook:FuzzReviewDecodeByName \
	./pkg/webhook/mutation:FuzzApply \
	./pkg/webhook:FuzzMetricsGuard \
	./pkg/webhook/grants:FuzzCheck \
	./pkg/webhook/subscription:FuzzMutator \
	./pkg/webhook/subscription:FuzzNameList \
	./pkg/webhook/subscription:FuzzFilter \
	./pkg/operator/podidentity/issuer:FuzzSigningKeys \
	./pkg/operator/podidentity/issuer:FuzzReadIssuerDocuments \
	./pkg/operator/podidentity/issuerpublisher:FuzzUnsafeStatements \
	./pkg/operator/podidentity/iamrole:FuzzPolicyDocument \
	./pkg/operator/podidentity/iamrole:FuzzDecodeDocument \
	./pkg/operator/podidentity/iamrole:FuzzFillTrustPolicy \
	./pkg/operator/podidentity/iamrole:FuzzNarrowedTrust \
	./pkg/operator/podidentity/iamrolerequest:FuzzTrustSelector \
	./pkg/operator/podidentity/iamrole:FuzzCheckBoundary \
	./pkg/webhook/podidentity:FuzzPodIdentityMutator \
	./pkg/webhook/podidentity:FuzzPodIdentityAnnotations \
	./pkg/webhook/podidentity:FuzzContainerLists \
	./pkg/webhook/podidentity:FuzzCachedAnnotations \
	./pkg/webhook/podidentity:FuzzClusterDefaults \
	./pkg/operator/rbac/olmscopes:FuzzParseCSV \
	./pkg/operator/rbac/crdaccess:FuzzSelector \
	./pkg/operator/rbac/crdaccess:FuzzBindingName \
	./pkg/operator/rbac/unmanagednotice:FuzzNotice \
	./pkg/operator/rbac/scopes:FuzzErrorText

fuzz:
	for target in $(FUZZ_TARGETS); do \
		bash hack/fuzz.sh "$${target%%:*}" "$${target##*:}" $(FUZZTIME) $(GO_MOD_FLAGS) || exit 1; \
	done

# The operator with 250,000 Secrets and 5,000 ClusterBundles on the test
# control plane (about 40 minutes; SCALE_SECRETS and SCALE_CLUSTERBUNDLES
# set smaller counts).
bench-scale: build controlplane
	OPERATOR_BINARY=$(CURDIR)/$(BINARY) go test $(GO_MOD_FLAGS) -run xxx -bench OperatorAtScale -benchtime 1x -timeout 120m -v ./test/scale/

# One ScopeInstance selecting 5,000 namespaces on the test control plane:
# time until every RoleBinding exists, against the same creates by an admin
# before and after, and writes on a resync (about 2 minutes after the builds).
bench-scopes: build controlplane
	OPERATOR_BINARY=$(CURDIR)/$(BINARY) go test $(GO_MOD_FLAGS) -run xxx -bench ScopeInstanceNamespaces -benchtime 1x -timeout 30m -v ./test/scale/

# The webhook binary's memory with 100,000 ServiceAccounts, with and without
# --pod-identity, on the test control plane (about 12 minutes;
# WEBHOOK_SERVICEACCOUNTS sets a smaller count). Fails above 35 MiB after the
# admissions; with EKS_WEBHOOK_BINARY set (docs/performance.md) the EKS
# webhook is measured beside it (about 3 minutes more).
bench-webhook-memory: build controlplane
	OPERATOR_BINARY=$(CURDIR)/$(BINARY) go test $(GO_MOD_FLAGS) -run xxx -bench WebhookServiceAccountMemory -benchtime 1x -timeout 60m -v ./test/scale/

# Server CPU per admission of our webhook against amazon-eks-pod-identity-webhook
# (EKS_WEBHOOK_BINARY, built from its repository: docs/performance.md) and an
# echo floor, on the test control plane.
bench-eks-webhook: build controlplane
	OPERATOR_BINARY=$(CURDIR)/$(BINARY) go test $(GO_MOD_FLAGS) -run xxx -bench PodIdentityAgainstEKSWebhook -benchtime 1x -timeout 20m -v ./test/scale/

# One APIAccessPolicy over 300 CRDs (1,200 roles) on the test control plane
# (about 2 minutes).
bench-apiaccess: build controlplane
	OPERATOR_BINARY=$(CURDIR)/$(BINARY) go test $(GO_MOD_FLAGS) -run xxx -bench APIAccessPolicy300CRDs -benchtime 1x -timeout 20m -v ./test/scale/

# Built, then run, rather than go run: go run exits 1 after Ctrl-C even when
# run-local stopped everything cleanly.
run-local: build controlplane s3server
	go build $(GO_MOD_FLAGS) -o _output/bin/run-local ./test/cmd/run-local
	s3server=$$(bash hack/build-s3server.sh); \
	exec _output/bin/run-local --operator-binary=$(BINARY) --s3server-binary=$$s3server

# update = update-gofmt (build-machinery-go), then these; vendor/ first, as the generators load from it.
update: update-deps update-codegen

update-codegen:
	bash hack/update-codegen.sh

update-deps:
	go mod tidy
	go mod vendor

# verify = verify-gofmt, verify-govet, verify-golang-versions (build-machinery-go), then these.
verify: verify-update verify-version-stamp

# `make update` in a scratch copy of the work tree must change nothing.
verify-update:
	bash hack/verify.sh

# make build's -ldflags must reach pkg/version. A marker version keeps the commit
# out of versionFromGit, so the commit in the output can only be commitFromGit.
stamp_check_bindir := $(PERMANENT_TMP)/stamp-check
verify-version-stamp:
	$(MAKE) --no-print-directory build GO_BUILD_BINDIR=$(stamp_check_bindir) OS_GIT_VERSION=v0.0.0-stamp-check
	bash hack/verify-version-stamp.sh $(stamp_check_bindir)/cluster-workload-access-operator v0.0.0-stamp-check

clean:
	rm -rf _output
