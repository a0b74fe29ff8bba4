package scale

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
)

// clockTicks is the kernel's USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// cpuSeconds sums the user and system CPU seconds every process on the
// machine has used, by command name: the control plane, the operator, the
// webhook and this benchmark.
func cpuSeconds(b *testing.B) map[string]float64 {
	paths, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]float64{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // exited meanwhile
		}
		// The command sits in parentheses and may hold spaces; the fields
		// after it are space separated, utime and stime 12th and 13th.
		text := string(data)
		open, close := strings.IndexByte(text, '('), strings.LastIndexByte(text, ')')
		if open < 0 || close < open {
			continue
		}
		fields := strings.Fields(text[close+1:])
		if len(fields) < 13 {
			continue
		}
		user, _ := strconv.ParseFloat(fields[11], 64)
		system, _ := strconv.ParseFloat(fields[12], 64)
		out[text[open+1:close]] += (user + system) / clockTicks
	}
	return out
}

// machineCPU is the machine's CPU time from /proc/stat, in seconds: busy
// (user, nice, system, irq, softirq), idle (idle and iowait) and steal
// (taken by the hypervisor: no process here shows it); irq is busy's irq
// and softirq, which no process is charged with either.
type machineCPU struct{ busy, idle, steal, irq float64 }

func machineCPUNow(b *testing.B) machineCPU {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		b.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	if len(fields) < 9 || fields[0] != "cpu" {
		b.Fatalf("/proc/stat begins %q", line)
	}
	ticks := make([]float64, 8)
	for i := range ticks {
		ticks[i], _ = strconv.ParseFloat(fields[i+1], 64)
	}
	return machineCPU{
		busy:  (ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6]) / clockTicks,
		idle:  (ticks[3] + ticks[4]) / clockTicks,
		steal: ticks[7] / clockTicks,
		irq:   (ticks[5] + ticks[6]) / clockTicks,
	}
}

// since says how the machine's CPU was used since before: busy, idle and
// stolen seconds, of all cores together.
func (m machineCPU) since(before machineCPU) string {
	return fmt.Sprintf("busy %.1f s, idle %.1f s, stolen %.1f s", m.busy-before.busy, m.idle-before.idle, m.steal-before.steal)
}

// benchProcesses are the commands of the processes a benchmark runs (the
// control plane, the operator and its webhook, the benchmark itself), as
// /proc names them (cut to 15 bytes).
var benchProcesses = []string{"kube-apiserver", "etcd", "kube-controller", "kube-scheduler", "kwok", "cluster-workloa", "scale.test"}

// benchCPU is the CPU seconds benchProcesses used since before.
func benchCPU(b *testing.B, before map[string]float64) float64 {
	now := cpuSeconds(b)
	var sum float64
	for _, name := range benchProcesses {
		sum += now[name] - before[name]
	}
	return sum
}

// cpuSince says who used the CPU since before was taken, busiest first,
// leaving out processes under a tenth of a second.
func cpuSince(b *testing.B, before map[string]float64) string {
	type use struct {
		name    string
		seconds float64
	}
	var uses []use
	for name, seconds := range cpuSeconds(b) {
		// A kernel worker's name says what it works on now, so its
		// total shows up under ever new names: leave them out.
		if strings.HasPrefix(name, "kworker/") {
			continue
		}
		if d := seconds - before[name]; d >= 0.1 {
			uses = append(uses, use{name, d})
		}
	}
	sort.Slice(uses, func(i, j int) bool { return uses[i].seconds > uses[j].seconds })
	parts := make([]string, 0, len(uses))
	for _, u := range uses {
		parts = append(parts, fmt.Sprintf("%s %.1f s", u.name, u.seconds))
	}
	return strings.Join(parts, ", ")
}

// profileDirEnv names a directory for CPU profiles of the API server during
// the measured bursts; unset, nothing is profiled and the API server serves
// no /debug/pprof.
const profileDirEnv = "SCALE_PROFILE_DIR"

// profileAPIServer records the API server's CPU for the next d into
// $SCALE_PROFILE_DIR/<name>.pprof (read it with go tool pprof -top); the
// returned channel closes when it is written, at once when not profiling.
func profileAPIServer(ctx context.Context, b *testing.B, kube kubernetes.Interface, d time.Duration, name string) <-chan struct{} {
	done := make(chan struct{})
	dir := os.Getenv(profileDirEnv)
	if dir == "" {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		data, err := kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
			Param("seconds", strconv.Itoa(int(d.Seconds()))).Timeout(d + time.Minute).DoRaw(ctx)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name+".pprof"), data, 0o644)
		}
		if err != nil {
			b.Logf("profiling the API server: %v", err)
		}
	}()
	return done
}

// apiServerGo is what the API server's /metrics says of its Go heap: the
// bytes allocated and not yet collected, the heap size at which the next
// collection starts, and the collections so far. A burst that starts on a
// heap near its goal collects sooner.
type apiServerGo struct{ heapAlloc, nextGC, collections float64 }

func apiServerGoNow(ctx context.Context, b *testing.B, kube kubernetes.Interface) apiServerGo {
	data, err := kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		b.Fatalf("reading the API server's metrics: %v", err)
	}
	var out apiServerGo
	for line := range strings.Lines(string(data)) {
		name, value, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		var into *float64
		switch name {
		case "go_memstats_heap_alloc_bytes":
			into = &out.heapAlloc
		case "go_memstats_next_gc_bytes":
			into = &out.nextGC
		case "go_gc_duration_seconds_count":
			into = &out.collections
		default:
			continue
		}
		if *into, err = strconv.ParseFloat(value, 64); err != nil {
			b.Fatalf("the API server's metric %s: %v", name, err)
		}
	}
	return out
}

// profileBench records the benchmark's own process (its informer, and in
// the admin's bursts the admin's creates) for the next d into
// $SCALE_PROFILE_DIR/<name>.cpu.pprof, to set beside the operator's
// process; the returned channel closes when it is written (at once when
// not profiling).
func profileBench(b *testing.B, d time.Duration, name string) <-chan struct{} {
	done := make(chan struct{})
	dir := os.Getenv(profileDirEnv)
	if dir == "" {
		close(done)
		return done
	}
	path := filepath.Join(dir, name+".cpu.pprof")
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			// Not left empty beside the profiles that were written.
			f.Close()
			os.Remove(path)
		}
	}
	if err != nil {
		b.Logf("profiling the benchmark: %v", err)
		close(done)
		return done
	}
	go func() {
		defer close(done)
		time.Sleep(d)
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Logf("profiling the benchmark: %v", err)
		}
	}()
	return done
}
