package scale

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// envCount is the count named by env, or def when it is unset: a run may
// try a smaller size first (SCALE_SECRETS=50000 make bench-scale).
func envCount(b *testing.B, env string, def int) int {
	b.Helper()
	value := os.Getenv(env)
	if value == "" {
		return def
	}
	n, err := strconv.Atoi(value)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive whole number", env, value)
	}
	return n
}

// processProfiler fetches pprof profiles from a binary started with
// OPENSHIFT_PROFILE=web (library-go's serviceability.StartProfiler, which
// the operator and the webhook call) into $SCALE_PROFILE_DIR. Nil, and every
// method a no-op, when SCALE_PROFILE_DIR is unset.
type processProfiler struct {
	dir, addr string
}

// newProcessProfiler picks a free port for the process's profiler and
// returns the environment that turns it on, or nil and no environment.
func newProcessProfiler(b *testing.B) (*processProfiler, []string) {
	dir := os.Getenv(profileDirEnv)
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return &processProfiler{dir: dir, addr: "127.0.0.1:" + port},
		[]string{"OPENSHIFT_PROFILE=web", "OPENSHIFT_PROFILE_HOST=127.0.0.1", "OPENSHIFT_PROFILE_PORT=" + port}
}

// heap writes the process's heap profile (in use and allocated since
// start) to <dir>/<name>.heap.pprof.
func (p *processProfiler) heap(b *testing.B, name string) {
	if p == nil {
		return
	}
	p.fetch(b, "/debug/pprof/heap", name+".heap.pprof", time.Minute)
}

// cpu records the process's CPU for the next d into <dir>/<name>.cpu.pprof;
// the returned channel closes when it is written (at once when not
// profiling).
func (p *processProfiler) cpu(b *testing.B, d time.Duration, name string) <-chan struct{} {
	done := make(chan struct{})
	if p == nil {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		p.fetch(b, fmt.Sprintf("/debug/pprof/profile?seconds=%d", int(d.Seconds())), name+".cpu.pprof", d+time.Minute)
	}()
	return done
}

func (p *processProfiler) fetch(b *testing.B, path, file string, timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.addr+path, nil)
	if err != nil {
		b.Logf("profiling %s: %v", file, err)
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Logf("profiling %s: %v", file, err)
		return
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, data)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(p.dir, file), data, 0o644)
	}
	if err != nil {
		b.Logf("profiling %s: %v", file, err)
	}
}
