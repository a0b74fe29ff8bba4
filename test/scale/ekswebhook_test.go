package scale

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework/admissionload"
)

const (
	// eksWebhookBinaryEnv names amazon-eks-pod-identity-webhook's binary,
	// built from its own repository (docs/performance.md says how).
	eksWebhookBinaryEnv = "EKS_WEBHOOK_BINARY"
	// comparedAdmissions are sent to each server per round, from
	// comparedClients kept-alive connections.
	comparedAdmissions = 20000
	comparedClients    = 8
	comparedRounds     = 3
	checkoutRoleARN    = "arn:aws:iam::111122223333:role/checkout"
)

// BenchmarkPodIdentityAgainstEKSWebhook measures the server CPU per
// admission of our webhook (both production mutators, --pod-identity) and
// of amazon-eks-pod-identity-webhook on the same cluster, the same
// ServiceAccount with a role and the same 5-6 KB pod, beside an echo floor:
// three separate processes, each read from /proc, taking turns in each
// round so that drift of the machine falls on all three. Run by
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

func runEKSComparison(b *testing.B, binary, eksBinary string) {
	ctx := context.Background()
	cluster := startCluster(b, controlplane.Options{})
	defer cluster.Stop()
	certFile, keyFile, pool := servingCert(b, cluster.Dir)

	kube := kubernetes.NewForConfigOrDie(cluster.Config)
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := kube.CoreV1().ServiceAccounts("shop").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
		Name: "checkout", Annotations: map[string]string{"eks.amazonaws.com/role-arn": checkoutRoleARN}}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	body := checkoutReview(b)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: comparedClients}}
	defer client.CloseIdleConnections()

	echoAddr := freeAddress(b)
	echo, err := admissionload.StartEcho(echoAddr, certFile, keyFile, filepath.Join(cluster.Dir, "logs", "echo.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer echo.Stop()
	if err := echo.WaitHealthy(client, "https://"+echoAddr+"/healthz", time.Minute); err != nil {
		b.Fatal(err)
	}
	ours := startWebhook(b, cluster, binary, certFile, keyFile, pool, "ours", "--pod-identity")
	defer ours.stop()
	eksPort := freePort(b)
	eks, err := admissionload.StartChild(exec.Command(eksBinary,
		"--in-cluster=false", "--kubeconfig="+cluster.AdminKubeconfig,
		"--tls-cert="+certFile, "--tls-key="+keyFile,
		"--port="+strconv.Itoa(eksPort), "--metrics-port="+strconv.Itoa(freePort(b)),
		"--token-audience=sts.amazonaws.com", "--token-expiration=86400"), filepath.Join(cluster.Dir, "logs", "eks-webhook.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer eks.Stop()
	if err := eks.WaitHealthy(client, fmt.Sprintf("https://127.0.0.1:%d/healthz", eksPort), 2*time.Minute); err != nil {
		b.Fatal(err)
	}

	withRole := admissionload.PatchContains(checkoutRoleARN)
	servers := []admissionload.Server{
		{Name: "echo", PID: echo.PID, URL: "https://" + echoAddr + admissionload.EchoPath},
		{Name: "ours", PID: ours.pid, URL: "https://" + ours.addr + webhook.MutatePodsPath + "?timeout=5s", Check: withRole},
		{Name: "eks", PID: eks.PID, URL: fmt.Sprintf("https://127.0.0.1:%d/mutate", eksPort), Check: withRole},
	}
	// Each server's connections open, and its caches warm, before anything counts.
	for _, s := range servers {
		if err := admissionload.Send(client, s, body, 8*comparedClients, comparedClients); err != nil {
			b.Fatal(err)
		}
	}
	total := make([]time.Duration, len(servers))
	for round := 1; round <= comparedRounds; round++ {
		var line []string
		for i, s := range servers {
			perOp, err := admissionload.Measure(client, s, body, comparedAdmissions, comparedClients)
			if err != nil {
				b.Fatal(err)
			}
			total[i] += perOp
			line = append(line, fmt.Sprintf("%s %.1f µs", s.Name, float64(perOp.Nanoseconds())/1000))
		}
		b.Logf("round %d, server CPU per admission: %s", round, strings.Join(line, ", "))
	}
	echoCPU, our, eksCPU := float64(total[0]), float64(total[1]), float64(total[2])
	b.ReportMetric(echoCPU/comparedRounds/1000, "echo-server-cpu-µs/op")
	b.ReportMetric(our/comparedRounds/1000, "ours-server-cpu-µs/op")
	b.ReportMetric(eksCPU/comparedRounds/1000, "eks-server-cpu-µs/op")
	b.ReportMetric(our/echoCPU, "ours-x-echo")
	b.ReportMetric(eksCPU/echoCPU, "eks-x-echo")
	b.ReportMetric(eksCPU/our, "eks-over-ours")
	b.Logf("reviews of %d bytes; target (issue 27): the EKS webhook uses at least 2.5× our server CPU; measured %.2f×", len(body), eksCPU/our)
}

func freePort(b *testing.B) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func freeAddress(b *testing.B) string { return fmt.Sprintf("127.0.0.1:%d", freePort(b)) }

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
	admissionload.ServeEchoIfAsked()
	os.Exit(m.Run())
}
