// Package admissionload measures admission webhooks under load as separate
// processes: it sends one AdmissionReview over kept-alive connections,
// checks every answer, and reads the server's CPU from /proc. It also runs
// the echo floor (a server that decodes only the review's UID) as a
// re-executed child of the calling binary, so every figure has a floor
// measured beside it. test/scale's benchmark and test/cmd/admission-load use it.
package admissionload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// clockTicks is the kernel's USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// Server is one process answering admission reviews at URL.
type Server struct {
	Name string
	PID  int
	URL  string
	// Check judges an answer that allowed the pod; nil accepts any.
	Check func(*admissionv1.AdmissionResponse) error
}

// ProcessCPU is the user and system CPU time process pid has used, all
// its threads together.
func ProcessCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command sits in parentheses and may hold spaces; utime and stime
	// are the 12th and 13th fields after it.
	text := string(data)
	fields := strings.Fields(text[strings.LastIndexByte(text, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat has %d fields after the command", pid, len(fields))
	}
	user, err := strconv.ParseInt(fields[11], 10, 64)
	if err != nil {
		return 0, err
	}
	system, err := strconv.ParseInt(fields[12], 10, 64)
	if err != nil {
		return 0, err
	}
	return time.Duration(user+system) * time.Second / clockTicks, nil
}

// Measure sends n copies of body to s from clients connections and
// returns the server CPU it used per admission.
func Measure(client *http.Client, s Server, body []byte, n, clients int) (time.Duration, error) {
	before, err := ProcessCPU(s.PID)
	if err != nil {
		return 0, err
	}
	if err := Send(client, s, body, n, clients); err != nil {
		return 0, err
	}
	after, err := ProcessCPU(s.PID)
	if err != nil {
		return 0, err
	}
	return (after - before) / time.Duration(n), nil
}

// Send posts n copies of body to s from clients concurrent connections and
// returns the first answer that is not an allowed review passing s.Check.
func Send(client *http.Client, s Server, body []byte, n, clients int) error {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for range clients {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				if err := admitOnce(client, s, body); err != nil {
					once.Do(func() { firstErr = fmt.Errorf("%s, admission %d: %w", s.Name, i, err) })
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// Latencies sends n copies of body to s from clients concurrent
// connections and returns each admission's time from sending the request
// to reading the whole answer, as the API server waits for it, sorted.
func Latencies(client *http.Client, s Server, body []byte, n, clients int) ([]time.Duration, error) {
	latencies := make([]time.Duration, n)
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for range clients {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				start := time.Now()
				if err := admitOnce(client, s, body); err != nil {
					once.Do(func() { firstErr = fmt.Errorf("%s, admission %d: %w", s.Name, i, err) })
					return
				}
				latencies[i-1] = time.Since(start)
			}
		})
	}
	wg.Wait()
	slices.Sort(latencies)
	return latencies, firstErr
}

// Percentile is the p-th percentile (0 < p <= 100) of sorted latencies.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func admitOnce(client *http.Client, s Server, body []byte) error {
	resp, err := client.Post(s.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(raw, &review); err != nil || review.Response == nil || !review.Response.Allowed {
		return fmt.Errorf("HTTP %d, %.300s, %v", resp.StatusCode, raw, err)
	}
	if s.Check != nil {
		return s.Check(review.Response)
	}
	return nil
}

// PatchContains checks that the answer's patch holds each of parts.
func PatchContains(parts ...string) func(*admissionv1.AdmissionResponse) error {
	return func(r *admissionv1.AdmissionResponse) error {
		for _, part := range parts {
			if !bytes.Contains(r.Patch, []byte(part)) {
				return fmt.Errorf("the patch lacks %q: %.300s", part, r.Patch)
			}
		}
		return nil
	}
}

// echoEnv, when set, makes the calling binary the echo server; its value
// is "address,certificate file,key file".
const echoEnv = "WORKLOAD_ACCESS_ADMISSION_ECHO"

// ServeEchoIfAsked serves the echo floor and exits when this process was
// started by StartEcho; otherwise it returns at once. Call it first in
// main or TestMain.
func ServeEchoIfAsked() {
	spec := os.Getenv(echoEnv)
	if spec == "" {
		return
	}
	if err := serveEcho(spec); err != nil {
		fmt.Fprintln(os.Stderr, "echo server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// EchoPath is where the echo answers reviews; it answers 200 on /healthz.
const EchoPath = "/mutate"

func serveEcho(spec string) error {
	parts := strings.Split(spec, ",")
	if len(parts) != 3 {
		return fmt.Errorf("%s=%q is not address,cert,key", echoEnv, spec)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	mux.HandleFunc(EchoPath, func(w http.ResponseWriter, r *http.Request) {
		var review struct {
			Request struct {
				UID string `json:"uid"`
			} `json:"request"`
		}
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"`+review.Request.UID+`","allowed":true}}`)
	})
	srv := &http.Server{Addr: parts[0], Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return srv.ListenAndServeTLS(parts[1], parts[2])
}

// Child is a server process this package started.
type Child struct {
	PID    int
	exited chan struct{}
	cmd    *exec.Cmd
}

// StartEcho re-executes the calling binary as the echo floor on addr
// (host:port) with the given serving pair, logging to logPath.
func StartEcho(addr, certFile, keyFile, logPath string) (*Child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), echoEnv+"="+strings.Join([]string{addr, certFile, keyFile}, ","))
	return StartChild(cmd, logPath)
}

// StartChild starts cmd with its output in logPath; it dies with this process.
func StartChild(cmd *exec.Cmd, logPath string) (*Child, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	c := &Child{PID: cmd.Process.Pid, exited: make(chan struct{}), cmd: cmd}
	go func() { _ = cmd.Wait(); logFile.Close(); close(c.exited) }()
	return c, nil
}

// Exited is closed when the process has exited.
func (c *Child) Exited() <-chan struct{} { return c.exited }

// Stop ends the process: SIGTERM, then SIGKILL after 10 s.
func (c *Child) Stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// WaitHealthy polls url until it answers 200, the process exits, or timeout.
func (c *Child) WaitHealthy(client *http.Client, url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-c.exited:
			return fmt.Errorf("the process exited before %s answered", url)
		default:
		}
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer 200 within %s (last error: %v)", url, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
