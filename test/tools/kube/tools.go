//go:build tools

// Package tools pins the Kubernetes control-plane commands the e2e tests run.
// This module is never vendored into the operator: it exists only so that
// `hack/build-controlplane.sh` can build real binaries from the module proxy.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
