package stschain

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

const (
	// issuerAddress is where the issuer is served. versitygw's IAM service
	// refuses to fetch from loopback and private addresses, so it is a
	// TEST-NET-1 address (RFC 5737, documentation only), which exists on the
	// loopback of the package's own network namespace and nowhere else.
	issuerAddress = "192.0.2.10"
	// insideNamespaceEnv marks the test binary run again inside the namespace.
	insideNamespaceEnv = "STSCHAIN_IN_NETWORK_NAMESPACE"
)

// runInNetworkNamespace runs this test binary again, with the same
// arguments and extraEnv, in a new network namespace, and returns its exit
// code. The namespace has only a loopback interface, so nothing the tests
// start can reach, or be reached from, anything outside. As root it is a
// plain network namespace (CI); otherwise a user namespace around it, where
// the kernel allows unprivileged ones.
func runInNetworkNamespace(extraEnv []string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(append(os.Environ(), insideNamespaceEnv+"=1"), extraEnv...)
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL}
	how := "as root"
	if os.Geteuid() != 0 {
		how = fmt.Sprintf("as uid %d, in a user namespace", os.Geteuid())
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("creating a network namespace (%s) failed: %w; this package runs versitygw's STS "+
			"against an issuer at %s, which needs a private network namespace: run it as root with CAP_SYS_ADMIN (as CI does), "+
			"or as a user where unprivileged user namespaces are allowed (sysctl user.max_user_namespaces > 0, "+
			"kernel.unprivileged_userns_clone=1, no AppArmor restriction on them)", how, err, issuerAddress)
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

// setUpLoopback brings up the namespace's loopback and gives it
// issuerAddress.
func setUpLoopback() error {
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"addr", "add", issuerAddress + "/32", "dev", "lo"},
	} {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s in the test's network namespace: %v: %s (iproute2 must be installed)",
				strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}
