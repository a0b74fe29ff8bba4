package netns

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

// insideEnv marks a test binary run again inside its namespace by Rerun.
const insideEnv = "WORKLOAD_ACCESS_TEST_IN_NETWORK_NAMESPACE"

// Inside says whether this process is a test binary Rerun started.
func Inside() bool { return os.Getenv(insideEnv) != "" }

// Rerun runs this test binary again, with the same arguments and extraEnv,
// in a new network namespace (Isolate), and returns its exit code. why says
// what the package needs the namespace for, in the error when it cannot
// have one.
func Rerun(why string, extraEnv []string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(append(os.Environ(), insideEnv+"=1"), extraEnv...)
	how := Isolate(cmd)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("%s: %w", why, StartError(how, err))
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

// AddAddress, run inside the namespace, puts ip on its loopback, as a pod
// has its own IP.
func AddAddress(ip string) error {
	out, err := exec.Command("ip", "addr", "add", ip+"/32", "dev", "lo").CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip addr add %s/32 dev lo: %v: %s", ip, err, strings.TrimSpace(string(out)))
	}
	return nil
}
