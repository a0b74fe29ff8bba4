//go:build unix

package webhook

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/subscription"
)

// echoHandler is the floor: it reads the review, answers "allowed" with its
// UID, and does nothing else.
func echoHandler(w http.ResponseWriter, r *http.Request) {
	uid, ok := echoUID(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"`+uid+`","allowed":true}}`)
}

// echoUID decodes the review's UID as the echo floor does, answering 400
// when it cannot.
func echoUID(w http.ResponseWriter, r *http.Request) (string, bool) {
	var review struct {
		Request struct {
			UID string `json:"uid"`
		} `json:"request"`
	}
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return "", false
	}
	return review.Request.UID, true
}

// sizedEchoHandler is the echo floor answering with answerBytes bytes, as
// long as an admission case's answer: an auditAnnotations member pads it.
// It sets the answer's length, as the webhook does. Sending the bytes is
// then all it does beyond the echo, which is what the gate tells apart from
// the handler's own work (docs/performance.md).
func sizedEchoHandler(answerBytes int) http.HandlerFunc {
	const head = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"`
	const padHead, padTail = `","allowed":true,"auditAnnotations":{"padding":"`, `"}}}`
	length := strconv.Itoa(answerBytes)
	padding := strings.Repeat("x", answerBytes)
	return func(w http.ResponseWriter, r *http.Request) {
		uid, ok := echoUID(w, r)
		if !ok {
			return
		}
		fill := answerBytes - len(head) - len(uid) - len(padHead) - len(padTail)
		if fill < 0 {
			http.Error(w, fmt.Sprintf("an answer of %d bytes cannot be padded to %d", answerBytes-fill, answerBytes), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", length)
		_, _ = io.WriteString(w, head+uid+padHead+padding[:fill]+padTail)
	}
}

// allowAll stands in for the SubjectAccessReview in this benchmark: it
// measures the server, not the API server's authorizer.
type allowAll struct{}

func (allowAll) MayGetClusterBundle(context.Context, string, string, string) (bool, error) {
	return true, nil
}

func benchSubscriptionMutator(tb testing.TB) mutation.Mutator {
	bundles := subscription.NewBundleCache()
	valid := []metav1.Condition{{Type: v1alpha1.ConditionInvalid, Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonValid}}
	if err := bundles.Add(&v1alpha1.Bundle{
		ObjectMeta: metav1.ObjectMeta{Name: "rhel", Namespace: "shop", Generation: 1},
		Status: v1alpha1.BundleStatus{ObservedGeneration: 1, Conditions: valid,
			Entitlements:    []v1alpha1.ResolvedReference{{Name: "ent", Namespace: "shop", Keys: []string{"1.pem", "1-key.pem"}}},
			YumRepositories: []v1alpha1.ResolvedReference{{Name: "repo", Namespace: "shop", Keys: []string{"redhat.repo"}}}},
	}); err != nil {
		tb.Fatal(err)
	}
	clusterBundles := subscription.NewClusterBundleCache()
	if err := clusterBundles.Add(&v1alpha1.ClusterBundle{
		ObjectMeta: metav1.ObjectMeta{Name: "rhel-cluster", Generation: 2},
		Status: v1alpha1.ClusterBundleStatus{ObservedGeneration: 2, Conditions: valid, ClusterRole: "rhel-cluster-subscription-bundle",
			Entitlements: []v1alpha1.ResolvedReference{{Name: "ent", Namespace: "openshift-config", Share: "rhel-cluster-ent", Keys: []string{"2.pem", "2-key.pem"}}}},
	}); err != nil {
		tb.Fatal(err)
	}
	m, err := subscription.New(bundles, clusterBundles, allowAll{})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func subscriptionOnly(b *testing.B) []mutation.Mutator {
	return []mutation.Mutator{benchSubscriptionMutator(b)}
}

// loadClients is how many clients post at once: what RunParallel with
// parallelism 8 gave on 2 cores before the clients moved out of process.
const loadClients = 16

// BenchmarkHTTPSLoad drives the server over TLS on loopback with
// loadClients concurrent clients on kept-alive connections, against the
// echo floor on the same pod. The clients run in a child process (this
// test binary again, see TestMain), so this process is the server alone:
// its CPU time per admission is server-cpu-ns/op, its allocations B/op and
// allocs/op, and x-echo-cpu the ratio to the echo case named in floor.
// ns/op is wall time per admission at that concurrency, client and server
// sharing the machine.
//
// The cases are loadCases; make bench-check judges the same cases
// (BenchmarkAdmissionGate).
func BenchmarkHTTPSLoad(b *testing.B) {
	// The server's start and stop lines would interleave with the results.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	defer klog.LogToStderr(true)
	dir := b.TempDir()
	certFile, keyFile, caFile := loadCertificates(b, dir)
	cases := loadCases()
	floors := map[string]*cpuTally{}
	for _, tc := range cases {
		bodyFile := writeReviewBody(b, dir, tc)
		// Started on the first call, so a -bench filter that skips the case
		// starts nothing; kept across the calls of its b.N ramp and -count.
		var env *loadEnv
		b.Run(tc.name, func(b *testing.B) {
			if env == nil {
				env = startLoadEnv(b, certFile, keyFile, tc.mutators, loadClientConfig{
					CAFile: caFile, BodyFile: bodyFile, PatchContains: tc.patchContains, Clients: loadClients,
				})
			}
			b.ReportAllocs()
			b.ResetTimer()
			before := processCPU()
			clientCPU, err := env.client.run(b.N)
			serverCPU := processCPU() - before
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			perOp := float64(serverCPU) / float64(b.N)
			b.ReportMetric(perOp, "server-cpu-ns/op")
			b.ReportMetric(float64(clientCPU)/float64(b.N), "client-cpu-ns/op")
			if tc.floor == "" {
				if floors[tc.name] == nil {
					floors[tc.name] = &cpuTally{}
				}
				floors[tc.name].add(serverCPU, b.N)
			} else if floor := floors[tc.floor]; floor != nil {
				b.ReportMetric(perOp/floor.perOp(), "x-echo-cpu")
			}
		})
		if env != nil {
			env.close()
		}
	}
}

// loadCertificates writes a serving certificate and its CA into dir.
func loadCertificates(b *testing.B, dir string) (certFile, keyFile, caFile string) {
	t := &testing.T{}
	ca := newTestCA(t, "bench-ca")
	ca.issue(t, dir)
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	caFile = filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.ca.Config.Certs[0].Raw}), 0o600); err != nil {
		b.Fatal(err)
	}
	return certFile, keyFile, caFile
}

// loadCase is one admission case of the load benchmarks.
type loadCase struct {
	name string
	// floor is the echo case on the same pod; "" for an echo case.
	floor string
	pod   *corev1.Pod
	// mutators are the server's; nil runs the echo handler instead.
	mutators func(*testing.B) []mutation.Mutator
	// patchContains are strings the patch must contain; none for no patch.
	patchContains []string
}

// loadCases are the echo floor and every admission case: the 5-6 KB
// checkoutPod through the mutators the server runs, the subscription
// mutator alone (pod identity off) or both (pod identity on, as on AWS by
// default).
func loadCases() []loadCase {
	bundle := map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}
	clusterBundle := map[string]string{v1alpha1.InjectClusterBundleAnnotation: "rhel-cluster"}
	podIdentity := func(serviceAccounts podidentity.ServiceAccounts) func(*testing.B) []mutation.Mutator {
		return func(b *testing.B) []mutation.Mutator { return benchMutators(b, serviceAccounts) }
	}
	return []loadCase{
		{name: "echo", pod: checkoutPod(nil)},
		{name: "off-nothing", floor: "echo", pod: checkoutPod(nil), mutators: subscriptionOnly},
		{name: "off-bundle", floor: "echo", pod: checkoutPod(bundle), mutators: subscriptionOnly, patchContains: []string{"subscription-"}},
		{name: "off-clusterbundle", floor: "echo", pod: checkoutPod(clusterBundle), mutators: subscriptionOnly, patchContains: []string{"rhel-cluster-ent"}},
		{name: "on-nothing", floor: "echo", pod: checkoutPod(nil), mutators: podIdentity(checkoutNoRole)},
		{name: "on-role", floor: "echo", pod: checkoutPod(nil), mutators: podIdentity(checkoutRole), patchContains: []string{"AWS_ROLE_ARN"}},
		{name: "on-bundle", floor: "echo", pod: checkoutPod(bundle), mutators: podIdentity(checkoutNoRole), patchContains: []string{"subscription-"}},
		{name: "on-bundle-role", floor: "echo", pod: checkoutPod(bundle), mutators: podIdentity(checkoutRole), patchContains: []string{"subscription-", "AWS_ROLE_ARN"}},
		{name: "on-clusterbundle-role", floor: "echo", pod: checkoutPod(clusterBundle), mutators: podIdentity(checkoutRole), patchContains: []string{"rhel-cluster-ent", "AWS_ROLE_ARN"}},
	}
}

// writeReviewBody writes the case's review, checking the pod is 5-6 KB.
func writeReviewBody(b *testing.B, dir string, tc loadCase) string {
	bodyFile := filepath.Join(dir, tc.name+".json")
	if err := os.WriteFile(bodyFile, reviewBody(b, tc.pod, podResource, ""), 0o600); err != nil {
		b.Fatal(err)
	}
	if raw, _ := json.Marshal(tc.pod); len(raw) < 5000 || len(raw) > 6200 {
		b.Fatalf("checkoutPod is %d bytes of JSON, not 5-6 KB", len(raw))
	}
	return bodyFile
}

// cpuTally is an echo case's CPU over all its runs, each weighted by its
// admissions.
type cpuTally struct {
	cpu time.Duration
	n   int
}

func (c *cpuTally) add(cpu time.Duration, n int) { c.cpu, c.n = c.cpu+cpu, c.n+n }
func (c *cpuTally) perOp() float64               { return float64(c.cpu) / float64(c.n) }

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		panic(err)
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// loadEnv is one case's server, in this process, and its clients, in a
// child process.
type loadEnv struct {
	client *loadClient
	stop   func()
}

func startLoadEnv(b *testing.B, certFile, keyFile string, mutators func(*testing.B) []mutation.Mutator, config loadClientConfig) *loadEnv {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	env := &loadEnv{}
	if mutators == nil {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			b.Fatal(err)
		}
		var handler http.Handler = http.HandlerFunc(echoHandler)
		if config.AnswerBytes > 0 {
			handler = sizedEchoHandler(config.AnswerBytes)
		}
		srv := &http.Server{Handler: handler, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
		go func() { done <- srv.ServeTLS(listener, "", "") }()
		env.stop = func() { _ = srv.Close(); <-done }
	} else {
		server, err := New(Config{CertFile: certFile, KeyFile: keyFile, CertReloadInterval: time.Hour, MetricsGuard: testMetricsGuard,
			Mutators: mutators(b), CachesSynced: []cache.InformerSynced{func() bool { return true }}})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { done <- server.Serve(ctx, listener) }()
		env.stop = func() { cancel(); <-done }
	}
	// As the API server calls it: its timeoutSeconds in the query.
	config.URL = "https://" + listener.Addr().String() + MutatePodsPath + "?timeout=5s"
	if env.client, err = startLoadClient(config); err != nil {
		env.stop()
		b.Fatal(err)
	}
	// Every client's connection is open before anything is measured: TLS
	// handshakes are not what an admission costs on a kept-alive connection.
	if _, err := env.client.run(8 * loadClients); err != nil {
		env.close()
		b.Fatal(err)
	}
	return env
}

func (e *loadEnv) close() {
	e.client.close()
	e.stop()
}

// loadClientEnv, when set, makes this test binary a load client (see
// TestMain) configured by its JSON value, a loadClientConfig.
const loadClientEnv = "WEBHOOK_BENCH_LOAD_CLIENT"

type loadClientConfig struct {
	URL           string   `json:"url"`
	CAFile        string   `json:"caFile"`
	BodyFile      string   `json:"bodyFile"`
	PatchContains []string `json:"patchContains"`
	Clients       int      `json:"clients"`
	// HTTP2 has the clients speak HTTP/2, as the API server does with a
	// webhook that offers it; else HTTP/1.1.
	HTTP2 bool `json:"http2"`
	// AnswerBytes, when set, is every answer's length, checked by the
	// clients; an echo server pads its answers to it (sizedEchoHandler).
	AnswerBytes int `json:"answerBytes"`
}

func TestMain(m *testing.M) {
	if config := os.Getenv(loadClientEnv); config != "" {
		if err := runLoadClient(config, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "load client:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// loadClient is the parent's end of a load client process.
type loadClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startLoadClient(config loadClientConfig) (*loadClient, error) {
	raw, err := json.Marshal(config)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), loadClientEnv+"="+string(raw))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &loadClient{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

// run has the clients make n admissions between them, and returns the CPU
// time the client process used for them.
func (c *loadClient) run(n int) (time.Duration, error) {
	if _, err := fmt.Fprintf(c.in, "%d\n", n); err != nil {
		return 0, err
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("the load client did not answer: %w", err)
	}
	line = strings.TrimSpace(line)
	if cpu, ok := strings.CutPrefix(line, "ok "); ok {
		ns, err := strconv.ParseInt(cpu, 10, 64)
		return time.Duration(ns), err
	}
	return 0, errors.New(line)
}

// close ends the client process: it exits when its input does.
func (c *loadClient) close() {
	_ = c.in.Close()
	_ = c.cmd.Wait()
}

// runLoadClient is the child: for each number n read from in, its clients
// make n admissions between them, then it writes "ok <CPU ns used>" or the
// first failure to out. It ends with in (so also when the parent dies).
func runLoadClient(rawConfig string, in io.Reader, out io.Writer) error {
	var config loadClientConfig
	if err := json.Unmarshal([]byte(rawConfig), &config); err != nil {
		return err
	}
	body, err := os.ReadFile(config.BodyFile)
	if err != nil {
		return err
	}
	caPEM, err := os.ReadFile(config.CAFile)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return fmt.Errorf("no certificate in %s", config.CAFile)
	}
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: config.Clients,
		ForceAttemptHTTP2: config.HTTP2}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		n, err := strconv.Atoi(lines.Text())
		if err != nil {
			return err
		}
		before := processCPU()
		err = admitN(client, config, body, n)
		used := processCPU() - before
		if err != nil {
			fmt.Fprintf(out, "error %q\n", err.Error())
			continue
		}
		fmt.Fprintf(out, "ok %d\n", used.Nanoseconds())
	}
	return lines.Err()
}

// admitN posts n admissions over config.Clients concurrent clients and
// returns the first failure.
func admitN(client *http.Client, config loadClientConfig, body []byte, n int) error {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for range config.Clients {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if err := admit(client, config, body); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// admit posts one AdmissionReview and checks the answer: allowed, with a
// patch containing each of config.PatchContains, or with none.
func admit(client *http.Client, config loadClientConfig, body []byte) error {
	resp, err := client.Post(config.URL, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer func() {
		// Drained, so the connection is kept alive.
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	if want := map[bool]int{true: 2, false: 1}[config.HTTP2]; resp.ProtoMajor != want {
		return fmt.Errorf("answered over %s, not HTTP/%d", resp.Proto, want)
	}
	if config.AnswerBytes > 0 && resp.ContentLength != int64(config.AnswerBytes) {
		return fmt.Errorf("status %d: an answer of %d bytes, want %d", resp.StatusCode, resp.ContentLength, config.AnswerBytes)
	}
	var review struct {
		Response *struct {
			Allowed bool   `json:"allowed"`
			Patch   []byte `json:"patch"`
		} `json:"response"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&review); err != nil {
		return fmt.Errorf("status %d: %w", resp.StatusCode, err)
	}
	r := review.Response
	switch {
	case r == nil || !r.Allowed:
		return fmt.Errorf("status %d: not allowed: %+v", resp.StatusCode, r)
	case len(config.PatchContains) == 0 && len(r.Patch) > 0:
		return fmt.Errorf("unexpected patch %s", r.Patch)
	}
	for _, want := range config.PatchContains {
		if !bytes.Contains(r.Patch, []byte(want)) {
			return fmt.Errorf("the patch does not contain %q: %s", want, r.Patch)
		}
	}
	return nil
}
