package framework

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// WebhookProcess is the webhook binary run the way the kubelet runs one pod
// of the operator's Deployment: its container args, the serving-cert Secret
// mounted as files that follow the Secret, and the Service's address. With
// no kube-proxy here, "the Service's address" is its loopback ClusterIP,
// which is where the API server dials.
type WebhookProcess struct {
	*Process
	// Address is ClusterIP:port of the webhook Service's admission port.
	Address string
	// MetricsAddress is ClusterIP:port of its metrics port, where /metrics
	// is served alone; Address when the Deployment serves metrics there.
	MetricsAddress string
	// ServerName is the name the API server verifies.
	ServerName string

	kube    kubernetes.Interface
	certDir string
	// prometheusToken scrapes /metrics as OpenShift's Prometheus does.
	prometheusToken string
	stop            context.CancelFunc
	synced          sync.WaitGroup
}

// WebhookOptions say how to run one webhook process other than the
// default: the only replica, on the Service's ClusterIP, with a 1 s drain.
type WebhookOptions struct {
	// PodIP, when set, is where this replica listens (admission and
	// metrics), as a pod listens on its own IP, for a control plane that
	// reaches the Service through its endpoints (aggregator routing).
	PodIP string
	// DeploymentShutdown keeps the Deployment's own --shutdown-delay and
	// --shutdown-timeout, for tests of how a replica drains; without it the
	// delay is 1 s, to keep the tests that stop the webhook short.
	DeploymentShutdown bool
	// ExtraArgs are appended to the command line (a later flag wins).
	ExtraArgs []string
}

// StartWebhook starts the webhook once the operator has created its
// Deployment, Service and serving certificate.
func (c *Cluster) StartWebhook(ctx context.Context, binary, name string) (*WebhookProcess, error) {
	return c.StartWebhookWith(ctx, binary, name, WebhookOptions{})
}

// StartWebhookWith is StartWebhook with opts.
func (c *Cluster) StartWebhookWith(ctx context.Context, binary, name string, opts WebhookOptions) (*WebhookProcess, error) {
	kube, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	var (
		deployment *appsv1.Deployment
		service    *corev1.Service
		secret     *corev1.Secret
	)
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		if deployment, err = kube.AppsV1().Deployments(OperandNamespace).Get(ctx, WebhookName, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		if service, err = kube.CoreV1().Services(OperandNamespace).Get(ctx, WebhookName, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		if secret, err = kube.CoreV1().Secrets(OperandNamespace).Get(ctx, WebhookServingSecret, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("the operator never created the webhook's Deployment, Service and serving certificate: %w", err)
	}

	w := &WebhookProcess{
		kube:       kube,
		certDir:    filepath.Join(c.Dir, "webhook-"+name, "serving-cert"),
		ServerName: WebhookName + "." + OperandNamespace + ".svc",
		Address:    net.JoinHostPort(service.Spec.ClusterIP, strconv.Itoa(int(service.Spec.Ports[0].Port))),
	}
	w.MetricsAddress = w.Address
	for _, port := range service.Spec.Ports {
		if port.Name == "metrics" {
			w.MetricsAddress = net.JoinHostPort(service.Spec.ClusterIP, strconv.Itoa(int(port.Port)))
		}
	}
	if opts.PodIP != "" {
		w.Address = onIP(w.Address, opts.PodIP)
		w.MetricsAddress = onIP(w.MetricsAddress, opts.PodIP)
	}
	if err := os.MkdirAll(w.certDir, 0o700); err != nil {
		return nil, err
	}
	if err := w.writeSecret(secret); err != nil {
		return nil, err
	}
	args, err := w.containerArgs(deployment, opts.DeploymentShutdown)
	if err != nil {
		return nil, err
	}
	// In a pod the webhook authenticates as its ServiceAccount; here it gets
	// a token of the same account, so RBAC is what production has.
	var kubeconfig string
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		kubeconfig, err = c.serviceAccountKubeconfig(ctx, kube, OperandNamespace, deployment.Spec.Template.Spec.ServiceAccountName, "webhook-"+name)
		return err == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("no token for the webhook's ServiceAccount: %w", err)
	}
	args = append(append(args, "--kubeconfig="+kubeconfig), opts.ExtraArgs...)
	if w.prometheusToken, err = PrometheusToken(ctx, kube); err != nil {
		return nil, err
	}
	if w.Process, err = startProcess(nil, binary, args, nil, filepath.Join(c.Dir, "logs", name+".log"), name); err != nil {
		return nil, err
	}
	syncCtx, stop := context.WithCancel(context.Background())
	w.stop = stop
	w.synced.Add(1)
	go w.followSecret(syncCtx, secret.ResourceVersion)

	if err := w.waitReady(ctx); err != nil {
		w.Stop()
		return nil, fmt.Errorf("%w\n%s", err, w.Tail(30))
	}
	return w, nil
}

// onIP is address (host:port) with its host replaced by ip.
func onIP(address, ip string) string {
	_, port, _ := net.SplitHostPort(address)
	return net.JoinHostPort(ip, port)
}

// containerArgs are the Deployment's webhook command line with the mount
// path replaced by the local copy and the listen address by the ClusterIP
// (or the pod IP). The certificate is re-read every 500ms instead of the
// default 10s, to keep the tests short; the kubelet's own refresh takes
// longer than either. Unless deploymentShutdown, the drain is 1 s.
func (w *WebhookProcess) containerArgs(deployment *appsv1.Deployment, deploymentShutdown bool) ([]string, error) {
	spec := deployment.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		return nil, fmt.Errorf("the webhook Deployment has %d containers, want 1", len(spec.Containers))
	}
	container := spec.Containers[0]
	mountPath := ""
	for _, m := range container.VolumeMounts {
		if m.Name == "serving-cert" {
			mountPath = m.MountPath
		}
	}
	if mountPath == "" || len(container.Command) != 2 || container.Command[1] != "webhook" {
		return nil, fmt.Errorf("unexpected webhook container: command %v, mounts %v", container.Command, container.VolumeMounts)
	}
	_, port, _ := net.SplitHostPort(w.Address)
	args := []string{"webhook"}
	for _, arg := range container.Args {
		switch {
		case strings.HasPrefix(arg, "--listen="):
			if !strings.HasSuffix(arg, ":"+port) {
				return nil, fmt.Errorf("the webhook listens on %s, the Service sends to port %s", arg, port)
			}
			arg = "--listen=" + w.Address
		case strings.HasPrefix(arg, "--metrics-listen="):
			if w.MetricsAddress == w.Address || !strings.HasSuffix(arg, w.MetricsAddress[strings.LastIndex(w.MetricsAddress, ":"):]) {
				return nil, fmt.Errorf("the webhook serves metrics on %s, the Service's metrics port is %s", arg, w.MetricsAddress)
			}
			arg = "--metrics-listen=" + w.MetricsAddress
		default:
			arg = strings.ReplaceAll(arg, mountPath, w.certDir)
		}
		args = append(args, arg)
	}
	args = append(args, "--cert-reload-interval=500ms")
	if !deploymentShutdown {
		args = append(args, "--shutdown-delay=1s")
	}
	return args, nil
}

// writeSecret updates the files like the kubelet: complete new files, then
// a rename over the old ones.
func (w *WebhookProcess) writeSecret(secret *corev1.Secret) error {
	for _, key := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
		tmp := filepath.Join(w.certDir, "."+key+".tmp")
		if err := os.WriteFile(tmp, secret.Data[key], 0o600); err != nil {
			return err
		}
		if err := os.Rename(tmp, filepath.Join(w.certDir, key)); err != nil {
			return err
		}
	}
	return nil
}

// followSecret copies every new version of the serving Secret to disk. A
// deleted Secret leaves the files in place, as the kubelet does.
func (w *WebhookProcess) followSecret(ctx context.Context, resourceVersion string) {
	defer w.synced.Done()
	_ = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, false, func(ctx context.Context) (bool, error) {
		secret, err := w.kube.CoreV1().Secrets(OperandNamespace).Get(ctx, WebhookServingSecret, metav1.GetOptions{})
		if err != nil || secret.ResourceVersion == resourceVersion {
			return false, nil
		}
		if err := w.writeSecret(secret); err == nil {
			resourceVersion = secret.ResourceVersion
		}
		return false, nil
	})
}

// Stop ends the secret copy and drains the process with SIGTERM.
func (w *WebhookProcess) Stop() {
	w.stop()
	w.synced.Wait()
	w.Process.Stop()
}

// CAPool is the serving-CA ConfigMap's bundle, what the API server trusts.
func (w *WebhookProcess) CAPool(ctx context.Context) (*x509.CertPool, error) {
	cm, err := w.kube.CoreV1().ConfigMaps(OperandNamespace).Get(ctx, WebhookCAConfigMap, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(cm.Data[WebhookCABundleKey])) {
		return nil, fmt.Errorf("configmap %s has no CA certificates", WebhookCAConfigMap)
	}
	return pool, nil
}

// get fetches path over TLS, verifying the server as the API server does.
// get reads path, as Prometheus for /metrics.
func (w *WebhookProcess) get(ctx context.Context, path string) (int, string, error) {
	token := ""
	if path == "/metrics" {
		token = w.prometheusToken
	}
	return w.getAs(ctx, path, token)
}

func (w *WebhookProcess) getAs(ctx context.Context, path, token string) (int, string, error) {
	pool, err := w.CAPool(ctx)
	if err != nil {
		return 0, "", err
	}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: w.ServerName, MinVersion: tls.VersionTLS12},
	}}
	address := w.Address
	if path == "/metrics" {
		address = w.MetricsAddress
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+address+path, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// MetricsWithToken is GET /metrics with the given bearer token ("" for none):
// the status code and body.
func (w *WebhookProcess) MetricsWithToken(ctx context.Context, token string) (int, string, error) {
	return w.getAs(ctx, "/metrics", token)
}

func (w *WebhookProcess) waitReady(ctx context.Context) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		if w.Exited() {
			return false, fmt.Errorf("the webhook exited")
		}
		code, body, err := w.get(ctx, "/readyz")
		last = fmt.Sprintf("%d %s %v", code, body, err)
		return code == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("webhook at %s never became ready (last: %s): %w", w.Address, last, err)
	}
	return nil
}

// Metric returns the value of one series from /metrics, e.g.
// `workload_access_webhook_http_requests_total{code="200",path="/mutate-pods",verb="POST"}`
// (labels sorted by name, as Prometheus writes them). A missing series is 0.
func (w *WebhookProcess) Metric(ctx context.Context, series string) (float64, error) {
	code, body, err := w.get(ctx, "/metrics")
	if err != nil {
		return 0, err
	}
	if code != http.StatusOK {
		return 0, fmt.Errorf("/metrics answered %d", code)
	}
	scanner := bufio.NewScanner(bytes.NewBufferString(body))
	for scanner.Scan() {
		line := scanner.Text()
		if strings.HasPrefix(line, series+" ") {
			return strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, series)), 64)
		}
	}
	return 0, scanner.Err()
}

// ServedCertificate is the leaf the webhook presents right now.
func (w *WebhookProcess) ServedCertificate() (*x509.Certificate, error) {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", w.Address,
		&tls.Config{InsecureSkipVerify: true, ServerName: w.ServerName}) //nolint:gosec // reading, not trusting
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0], nil
}
