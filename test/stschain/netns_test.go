package stschain

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/openshift/cluster-workload-access-operator/test/framework/netns"
)

const (
	// issuerAddress is where the issuer is served, on the loopback of the
	// package's own network namespace (netns.IssuerAddress).
	issuerAddress = netns.IssuerAddress
	// insideNamespaceEnv marks the test binary run again inside the namespace.
	insideNamespaceEnv = "STSCHAIN_IN_NETWORK_NAMESPACE"
)

// runInNetworkNamespace runs this test binary again, with the same
// arguments and extraEnv, in a new network namespace (netns.Isolate), and
// returns its exit code.
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
		return 0, fmt.Errorf("this package runs versitygw's STS against an issuer at %s: %w", issuerAddress, netns.StartError(how, err))
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
