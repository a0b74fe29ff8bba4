package stschain

import "github.com/openshift/cluster-workload-access-operator/test/framework/netns"

// issuerAddress is where the issuer is served, on the loopback of the
// package's own network namespace (netns.IssuerAddress).
const issuerAddress = netns.IssuerAddress
