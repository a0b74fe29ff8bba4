//go:build tools

// Package tools pins kwok, which gives the test control plane a fake node
// whose pods report Running/Ready without a kubelet.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
