package faults

// Why a network namespace (netns.Rerun): the API server refuses an
// EndpointSlice address in 127.0.0.0/8, so the replicas' "pod IPs" are
// TEST-NET-1 addresses (RFC 5737), which exist only on the loopback of the
// package's own network namespace and nowhere on the machine.
const (
	// podIPPrefix starts the replicas' pod IPs, 192.0.2.101 on (netns's
	// issuer address, 192.0.2.10, is the namespace's too, unused here).
	podIPPrefix = "192.0.2."
	firstPodIP  = 101
)
