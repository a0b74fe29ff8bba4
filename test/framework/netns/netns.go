// Package netns starts a process in a network namespace of its own, where
// versitygw's STS can fetch a service account issuer: STS fetches an
// issuer's keys only over HTTPS on port 443 and never from loopback or
// private addresses, so the issuer is served on IssuerAddress, a
// documentation address that exists on the namespace's loopback and nowhere
// else. test/stschain runs its tests there; run-local runs versitygw and the
// issuer's HTTPS front there.
package netns

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// IssuerAddress is where the issuer is served inside the namespace: a
// TEST-NET-1 address (RFC 5737, documentation only), which STS takes for a
// public one.
const IssuerAddress = "192.0.2.10"

// Isolate makes cmd start in a new network namespace with only a loopback
// interface, so nothing it starts can reach, or be reached from, anything
// outside except through descriptors it inherits. As root it is a plain
// network namespace; otherwise a user namespace around it, where the kernel
// allows unprivileged ones. The process dies with its parent. It returns
// how, for StartError.
func Isolate(cmd *exec.Cmd) (how string) {
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL}
	how = "as root"
	if os.Geteuid() != 0 {
		how = fmt.Sprintf("as uid %d, in a user namespace", os.Geteuid())
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	cmd.SysProcAttr = attr
	return how
}

// StartError says why an isolated process did not start, and what the
// machine needs: err is cmd.Start's error, how is Isolate's.
func StartError(how string, err error) error {
	return fmt.Errorf("creating a network namespace (%s) failed: %w; versitygw's STS fetches the issuer only from a public "+
		"address on port 443, which needs a private network namespace: run as root with CAP_SYS_ADMIN (as CI does), "+
		"or as a user where unprivileged user namespaces are allowed (sysctl user.max_user_namespaces > 0, "+
		"kernel.unprivileged_userns_clone=1, no AppArmor restriction on them)", how, err)
}

// SetUpLoopback, run inside the namespace, brings up its loopback and gives
// it IssuerAddress.
func SetUpLoopback() error {
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"addr", "add", IssuerAddress + "/32", "dev", "lo"},
	} {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s in the network namespace: %v: %s (iproute2 must be installed)",
				strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}
