//go:build tools

// Package tools makes `go mod vendor` copy non-Go files the build and tests
// need: build-machinery-go's make fragments and the OpenShift CRD manifests
// the test control plane installs.
package tools

import (
	_ "github.com/openshift/api/config/v1/zz_generated.crd-manifests"
	_ "github.com/openshift/api/console/v1/zz_generated.crd-manifests"
	_ "github.com/openshift/api/sharedresource/v1alpha1/zz_generated.crd-manifests"
	_ "github.com/openshift/build-machinery-go"
	_ "github.com/openshift/build-machinery-go/make"
	_ "github.com/openshift/build-machinery-go/make/lib"
	_ "github.com/openshift/build-machinery-go/make/targets"
	_ "github.com/openshift/build-machinery-go/make/targets/golang"
	_ "github.com/openshift/build-machinery-go/make/targets/openshift"
	_ "github.com/openshift/build-machinery-go/make/targets/openshift/operator"
	_ "github.com/openshift/build-machinery-go/scripts"
)
