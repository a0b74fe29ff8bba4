//go:build tools

// Package tools pins the S3-compatible server (Versity S3 Gateway) that the
// e2e tests and `make run-local` start on 127.0.0.1. This module is never
// vendored into the operator: it exists only so that hack/build-s3server.sh
// can build the real binary from the module proxy.
package tools

import (
	_ "github.com/versity/versitygw/cmd/versitygw"
)
