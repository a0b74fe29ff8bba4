package faults

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/openshift/cluster-workload-access-operator/test/framework/netns"
)

// Why a network namespace: the API server refuses an EndpointSlice address
// in 127.0.0.0/8, so the replicas' "pod IPs" are TEST-NET-1 addresses
// (RFC 5737), which exist only on the loopback of the package's own network
// namespace and nowhere on the machine.
const (
	// insideNamespaceEnv marks the test binary run again inside the namespace.
	insideNamespaceEnv = "FAULTS_IN_NETWORK_NAMESPACE"
	// podIPPrefix starts the replicas' pod IPs, 192.0.2.101 on (netns's
	// issuer address, 192.0.2.10, is the namespace's too, unused here).
	podIPPrefix = "192.0.2."
	firstPodIP  = 101
)

// runInNetworkNamespace runs this test binary again, with the same
// arguments and extraEnv, in a new network namespace, and returns its exit
// code.
func runInNetworkNamespace(extraEnv []string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(append(os.Environ(), insideNamespaceEnv+"=1"), extraEnv...)
	how := netns.Isolate(cmd)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("the webhook replicas' pod IPs live in a network namespace of the package's own: %w", netns.StartError(how, err))
	}
	// An interrupted `go test` reaches the child too, which then stops what it started.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for sig := range signals {
			_ = cmd.Process.Signal(sig)
		}
	}()
	err = cmd.Wait()
	signal.Stop(signals)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if code := exit.ExitCode(); code >= 0 {
			return code, nil
		}
		return 1, fmt.Errorf("the tests in the network namespace ended: %v", exit)
	}
	return 0, err
}

// addPodIP puts ip on the namespace's loopback, as a pod's IP.
func addPodIP(ip string) error {
	out, err := exec.Command("ip", "addr", "add", ip+"/32", "dev", "lo").CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip addr add %s/32 dev lo: %v: %s", ip, err, strings.TrimSpace(string(out)))
	}
	return nil
}
