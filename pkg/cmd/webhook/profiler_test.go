package webhook

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The webhook command serves Go's pprof only when OPENSHIFT_PROFILE=web, on
// 127.0.0.1 (docs/admission.md). The command runs as it does in a pod, up
// to its first flag check, which fails it at once; the profiler, if
// started, outlives that. Without the variable nothing may answer on the
// profiler's port; with it, pprof answers there (which shows the first
// half would see a profiler were there one).
func TestPprofOnlyWithOpenShiftProfileWeb(t *testing.T) {
	t.Setenv("OPENSHIFT_PROFILE_HOST", "")
	pprofAt := func(t *testing.T, profile string, wait time.Duration) (port, status int, err error) {
		t.Helper()
		port = freePort(t)
		t.Setenv("OPENSHIFT_PROFILE", profile)
		t.Setenv("OPENSHIFT_PROFILE_PORT", fmt.Sprint(port))
		cmd := NewCommand(context.Background())
		cmd.SetArgs([]string{"--tls-min-version=VersionTLS99"})
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--tls-min-version") {
			t.Fatalf("the command did not stop at its flags: %v", err)
		}
		client := &http.Client{Timeout: time.Second}
		deadline := time.Now().Add(wait)
		for {
			resp, getErr := client.Get(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/", port))
			if err = getErr; err == nil {
				resp.Body.Close()
				return port, resp.StatusCode, nil
			}
			if time.Now().After(deadline) {
				return port, 0, err
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	if _, status, err := pprofAt(t, "", time.Second); err == nil {
		t.Fatalf("without OPENSHIFT_PROFILE, 127.0.0.1 answers /debug/pprof/ with %d: the webhook serves pprof ungated", status)
	}
	if _, status, err := pprofAt(t, "cpu", time.Second); err == nil {
		t.Fatalf("with OPENSHIFT_PROFILE=cpu, 127.0.0.1 answers /debug/pprof/ with %d: only \"web\" serves pprof", status)
	}
	// The profiler turns block profiling on for the whole process; turn
	// it off again for the package's other tests.
	t.Cleanup(func() { runtime.SetBlockProfileRate(0) })
	port, status, err := pprofAt(t, "web", 10*time.Second)
	if err != nil || status != http.StatusOK {
		t.Fatalf("with OPENSHIFT_PROFILE=web, /debug/pprof/ on 127.0.0.1: %d, %v; want 200", status, err)
	}
	// On loopback only: not on the pod's own address.
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && !ip.IP.IsLoopback() && ip.IP.To4() != nil {
			if conn, err := net.DialTimeout("tcp", net.JoinHostPort(ip.IP.String(), fmt.Sprint(port)), time.Second); err == nil {
				conn.Close()
				t.Errorf("the profiler also listens on %s", ip.IP)
			}
		}
	}
}

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
