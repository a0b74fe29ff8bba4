package scale

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const (
	// eksWebhookBinaryEnv names amazon-eks-pod-identity-webhook's binary,
	// built from its own repository (docs/performance.md says how).
	eksWebhookBinaryEnv = "EKS_WEBHOOK_BINARY"
	// echoServerEnv, when set, makes this test binary the echo floor: a TLS
	// server on the address it holds (see TestMain).
	echoServerEnv = "WORKLOAD_ACCESS_BENCH_ECHO"
	// comparedAdmissions are sent to each server per round, from
	// comparedClients kept-alive connections.
	comparedAdmissions = 20000
	comparedClients    = 8
	comparedRounds     = 3
	roleARN            = "arn:aws:iam::111122223333:role/checkout"
)

// BenchmarkPodIdentityAgainstEKSWebhook measures the server CPU per
// admission of our webhook (both production mutators, --pod-identity) and
// of amazon-eks-pod-identity-webhook on the same cluster, the same
// ServiceAccount with a role and the same 5-6 KB pod, beside an echo floor:
// three separate processes, each read from /proc, round after round so
// that drift of the machine falls on all three alike. Run by
// `make bench-eks-webhook` with EKS_WEBHOOK_BINARY set.
func BenchmarkPodIdentityAgainstEKSWebhook(b *testing.B) {
	binary := operatorBinary(b, "bench-eks-webhook")
	eks := os.Getenv(eksWebhookBinaryEnv)
	if eks == "" {
		b.Fatalf("%s must name amazon-eks-pod-identity-webhook's binary; docs/performance.md says how to build it", eksWebhookBinaryEnv)
	}
	for b.Loop() {
		runEKSComparison(b, binary, eks)
	}
}

// comparedServer is one process under load.
type comparedServer struct {
	name string
	pid  int
	url  string
	// patched says the answer must carry a patch.
	patched bool
	stop    func()
	cpu     time.Duration
	n       int
}

func runEKSComparison(b *testing.B, binary, eksBinary string) {
	ctx := context.Background()
	cluster := startCluster(b, controlplane.Options{})
	defer cluster.Stop()
	certFile, keyFile, pool := servingCert(b, cluster.Dir)

	kube := kubernetes.NewForConfigOrDie(cluster.Config)
	namespace := "shop"
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := kube.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
		Name: "checkout", Annotations: map[string]string{"eks.amazonaws.com/role-arn": roleARN}}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	body := checkoutReview(b)

	ours := startWebhook(b, cluster, binary, certFile, keyFile, pool, "ours", "--pod-identity")
	defer ours.stop()
	servers := []*comparedServer{
		startEcho(b, cluster.Dir, certFile, keyFile, pool),
		{name: "ours", pid: ours.pid, url: "https://" + ours.addr + webhook.MutatePodsPath + "?timeout=5s", patched: true, stop: ours.stop},
		startEKSWebhook(b, cluster, eksBinary, certFile, keyFile, pool),
	}
	for _, s := range servers {
		defer s.stop()
	}

	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: comparedClients}
	defer transport.CloseIdleConnections()
	client := &http.Client{Timeout: 10 * time.Second, Transport: transport}
	// Each server's connections open, and its caches warm, before anything counts.
	for _, s := range servers {
		load(b, client, s, body, 8*comparedClients)
	}
	for round := 1; round <= comparedRounds; round++ {
		var line []string
		for _, s := range servers {
			before := processCPUOf(b, s.pid)
			load(b, client, s, body, comparedAdmissions)
			used := processCPUOf(b, s.pid) - before
			s.cpu, s.n = s.cpu+used, s.n+comparedAdmissions
			line = append(line, fmt.Sprintf("%s %.1f µs", s.name, float64(used.Microseconds())/comparedAdmissions))
		}
		b.Logf("round %d, server CPU per admission: %s", round, strings.Join(line, ", "))
	}
	perOp := func(s *comparedServer) float64 { return float64(s.cpu.Nanoseconds()) / float64(s.n) }
	echo, our, eks := perOp(servers[0]), perOp(servers[1]), perOp(servers[2])
	b.ReportMetric(echo/1000, "echo-server-cpu-µs/op")
	b.ReportMetric(our/1000, "ours-server-cpu-µs/op")
	b.ReportMetric(eks/1000, "eks-server-cpu-µs/op")
	b.ReportMetric(our/echo, "ours-x-echo")
	b.ReportMetric(eks/echo, "eks-x-echo")
	b.ReportMetric(eks/our, "eks-over-ours")
	b.Logf("reviews of %d bytes; target (issue 27): the EKS webhook uses at least 2.5× our server CPU; measured %.2f×", len(body), eks/our)
}

// load sends n copies of body from comparedClients connections and checks
// every answer: allowed, and patched where the server injects.
func load(b *testing.B, client *http.Client, s *comparedServer, body []byte, n int) {
	parallelN(b, comparedClients, n, func(i int) error {
		resp, err := client.Post(s.url, "application/json", bytes.NewReader(body))
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
			return fmt.Errorf("%s, admission %d: HTTP %d, %.300s, %v", s.name, i, resp.StatusCode, raw, err)
		}
		if s.patched && !bytes.Contains(review.Response.Patch, []byte(roleARN)) {
			return fmt.Errorf("%s, admission %d: no patch with the role: %.300s", s.name, i, review.Response.Patch)
		}
		return nil
	})
}

// processCPUOf is the user and system CPU time process pid has used.
func processCPUOf(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	text := string(data)
	fields := strings.Fields(text[strings.LastIndexByte(text, ')')+1:])
	user, _ := strconv.ParseInt(fields[11], 10, 64)
	system, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(user+system) * time.Second / clockTicks
}

// startEKSWebhook runs amazon-eks-pod-identity-webhook out of cluster as the
// cluster's admin, with the flags that match what ours injects by default.
func startEKSWebhook(b *testing.B, cluster *framework.Cluster, binary, certFile, keyFile string, pool *x509.CertPool) *comparedServer {
	port, metricsPort := freePort(b), freePort(b)
	logPath := filepath.Join(cluster.Dir, "logs", "eks-webhook.log")
	cmd := exec.Command(binary,
		"--in-cluster=false", "--kubeconfig="+cluster.AdminKubeconfig,
		"--tls-cert="+certFile, "--tls-key="+keyFile,
		"--port="+strconv.Itoa(port), "--metrics-port="+strconv.Itoa(metricsPort),
		"--token-audience=sts.amazonaws.com", "--token-expiration=86400")
	s := &comparedServer{name: "eks", url: fmt.Sprintf("https://127.0.0.1:%d/mutate", port), patched: true}
	startChild(b, cmd, logPath, s)
	waitServing(b, s, pool, fmt.Sprintf("https://127.0.0.1:%d/healthz", port), logPath)
	return s
}

// startEcho runs this test binary as the echo floor (TestMain).
func startEcho(b *testing.B, dir, certFile, keyFile string, pool *x509.CertPool) *comparedServer {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(b))
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), echoServerEnv+"="+strings.Join([]string{addr, certFile, keyFile}, ","))
	logPath := filepath.Join(dir, "logs", "echo.log")
	s := &comparedServer{name: "echo", url: "https://" + addr + "/mutate"}
	startChild(b, cmd, logPath, s)
	waitServing(b, s, pool, "https://"+addr+"/healthz", logPath)
	return s
}

func startChild(b *testing.B, cmd *exec.Cmd, logPath string, s *comparedServer) {
	logFile, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		b.Fatal(err)
	}
	s.pid = cmd.Process.Pid
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logFile.Close(); close(exited) }()
	s.stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
}

func waitServing(b *testing.B, s *comparedServer, pool *x509.CertPool, healthURL, logPath string) {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	defer client.CloseIdleConnections()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		resp, err := client.Get(healthURL)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		log, _ := os.ReadFile(logPath)
		b.Fatalf("%s never answered %s: %v\n%s", s.name, healthURL, err, tail(string(log), 30))
	}
}

func freePort(b *testing.B) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// checkoutReview is a CREATE of mutationtest.CheckoutPod, the 5-6 KB pod
// of every webhook benchmark, in namespace "shop" as ServiceAccount "checkout".
func checkoutReview(b *testing.B) []byte {
	raw, err := json.Marshal(mutationtest.CheckoutPod(nil))
	if err != nil {
		b.Fatal(err)
	}
	if len(raw) < 5000 || len(raw) > 6200 {
		b.Fatalf("the checkout pod is %d bytes of JSON, not 5-6 KB", len(raw))
	}
	review, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "compare", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"}, Namespace: "shop",
			Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw}},
	})
	if err != nil {
		b.Fatal(err)
	}
	return review
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(echoServerEnv); spec != "" {
		if err := serveEcho(spec); err != nil {
			fmt.Fprintln(os.Stderr, "echo server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveEcho is the floor: it reads the review, answers "allowed" with its
// UID, and does nothing else; spec is "address,cert file,key file".
func serveEcho(spec string) error {
	parts := strings.Split(spec, ",")
	if len(parts) != 3 {
		return fmt.Errorf("%s=%q is not address,cert,key", echoServerEnv, spec)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	mux.HandleFunc("/mutate", func(w http.ResponseWriter, r *http.Request) {
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
