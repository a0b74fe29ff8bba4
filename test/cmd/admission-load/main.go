// Command admission-load measures the webhook of a running `make run-local`
// the way issue 27 asked: the realistic 5.9 KB pod through the mutators the
// cluster runs, server CPU per admission read from /proc beside an echo
// floor measured in the same run, and, given its binary, the EKS pod
// identity webhook on the same pod and role. It creates what the cases need
// in namespace "shop" (ServiceAccounts, a Bundle, a ClusterBundle and their
// Secret and ConfigMap), waits for the operator to validate them, and
// prints a table. Run it on the machine of run-local, as the same user.
//
//	go run ./test/cmd/admission-load --kubeconfig=<run-local's> [--eks-webhook=/tmp/eks-webhook]
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openshift/library-go/pkg/crypto"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	versioned "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/clusterbundles"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/subscription"
	"github.com/openshift/cluster-workload-access-operator/test/framework/admissionload"
)

const (
	namespace     = "shop"
	roleARN       = "arn:aws:iam::111122223333:role/shop-checkout"
	withRole      = "checkout" // CheckoutPod's ServiceAccount
	withoutRole   = "storefront"
	bundleName    = "rhel"
	clusterBundle = "shop-rhel-cluster"
)

type options struct {
	kubeconfig string
	eksWebhook string
	admissions int
	clients    int
	rounds     int
	webhookPID int
	// latencyAdmissions per case and concurrency in the latency phase.
	latencyAdmissions int
	latencyClients    string
}

func main() {
	admissionload.ServeEchoIfAsked()
	var o options
	flag.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "run-local's admin kubeconfig")
	flag.StringVar(&o.eksWebhook, "eks-webhook", "", "amazon-eks-pod-identity-webhook's binary, to measure it beside ours (docs/performance.md)")
	flag.IntVar(&o.admissions, "admissions", 10000, "admissions per case and round")
	flag.IntVar(&o.clients, "clients", 8, "concurrent kept-alive connections")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds; the servers take turns in each")
	flag.IntVar(&o.webhookPID, "webhook-pid", 0, "the webhook's process; found from its listening port when 0")
	flag.IntVar(&o.latencyAdmissions, "latency-admissions", 5000, "admissions per case and concurrency when measuring latency (0 skips it)")
	flag.StringVar(&o.latencyClients, "latency-clients", "8,64", "the concurrencies at which latency is measured, comma-separated")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "admission-load:", err)
		os.Exit(1)
	}
}

// loadCase is one pod through our webhook.
type loadCase struct {
	name   string
	body   []byte
	server admissionload.Server
}

func run(o options) error {
	if o.kubeconfig == "" {
		return errors.New("--kubeconfig (or KUBECONFIG) must name run-local's kubeconfig")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	config, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	operator, err := versioned.NewForConfig(config)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "admission-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	target, err := findWebhook(ctx, kube, o.webhookPID)
	if err != nil {
		return err
	}
	if err := createFixtures(ctx, kube, operator); err != nil {
		return err
	}
	oursClient := func(clients int) *http.Client {
		return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: target.ca, ServerName: target.serverName, MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: clients}}
	}
	ours := oursClient(o.clients)
	defer ours.CloseIdleConnections()

	// The echo floor and the EKS webhook serve a certificate of our own.
	certFile, keyFile, pool, err := servingPair(dir)
	if err != nil {
		return err
	}
	localClient := func(clients int) *http.Client {
		return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, MaxIdleConnsPerHost: clients}}
	}
	local := localClient(o.clients)
	defer local.CloseIdleConnections()
	echoAddr, err := freeAddress()
	if err != nil {
		return err
	}
	echo, err := admissionload.StartEcho(echoAddr, certFile, keyFile, filepath.Join(dir, "echo.log"))
	if err != nil {
		return err
	}
	defer echo.Stop()
	if err := echo.WaitHealthy(local, "https://"+echoAddr+"/healthz", time.Minute); err != nil {
		return err
	}

	url := "https://" + target.address + webhook.MutatePodsPath + "?timeout=5s"
	server := func(check func(*admissionv1.AdmissionResponse) error) admissionload.Server {
		return admissionload.Server{Name: "ours", PID: target.pid, URL: url, Check: check}
	}
	bundle := map[string]string{subscriptionv1alpha1.InjectBundleAnnotation: bundleName}
	cluster := map[string]string{subscriptionv1alpha1.InjectClusterBundleAnnotation: clusterBundle}
	type measured struct {
		loadCase
		client *http.Client
		perOp  []time.Duration
		// ours is whether the case is sent to our webhook.
		ours bool
	}
	cases := []*measured{
		{loadCase: loadCase{"echo (floor)", review(nil, withoutRole), admissionload.Server{Name: "echo", PID: echo.PID, URL: "https://" + echoAddr + admissionload.EchoPath}}, client: local},
		{loadCase: loadCase{"asks for nothing (ServiceAccount without a role)", review(nil, withoutRole), server(noPatch)}, client: ours, ours: true},
		{loadCase: loadCase{"ServiceAccount with a role", review(nil, withRole), server(admissionload.PatchContains(roleARN))}, client: ours, ours: true},
		{loadCase: loadCase{"asks for one Bundle", review(bundle, withoutRole), server(admissionload.PatchContains("subscription-entitlements"))}, client: ours, ours: true},
		{loadCase: loadCase{"one Bundle and a role", review(bundle, withRole), server(admissionload.PatchContains("subscription-entitlements", roleARN))}, client: ours, ours: true},
		{loadCase: loadCase{"asks for one ClusterBundle", review(cluster, withoutRole), server(admissionload.PatchContains(subscription.SharedResourceDriver))}, client: ours, ours: true},
	}
	if o.eksWebhook != "" {
		port, err := freePort()
		if err != nil {
			return err
		}
		metricsPort, err := freePort()
		if err != nil {
			return err
		}
		eks, err := admissionload.StartChild(exec.Command(o.eksWebhook, "--in-cluster=false", "--kubeconfig="+o.kubeconfig,
			"--tls-cert="+certFile, "--tls-key="+keyFile, "--port="+strconv.Itoa(port), "--metrics-port="+strconv.Itoa(metricsPort),
			"--token-audience=sts.amazonaws.com", "--token-expiration=86400"), filepath.Join(dir, "eks-webhook.log"))
		if err != nil {
			return err
		}
		defer eks.Stop()
		if err := eks.WaitHealthy(local, fmt.Sprintf("https://127.0.0.1:%d/healthz", port), 2*time.Minute); err != nil {
			return err
		}
		cases = append(cases, &measured{loadCase: loadCase{"the EKS pod identity webhook, same pod and role", review(nil, withRole),
			admissionload.Server{Name: "eks", PID: eks.PID, URL: fmt.Sprintf("https://127.0.0.1:%d/mutate", port), Check: admissionload.PatchContains(roleARN)}}, client: local})
	}

	// Connections open and caches warm before anything counts.
	for _, c := range cases {
		if err := admissionload.Send(c.client, c.server, c.body, 8*o.clients, o.clients); err != nil {
			return err
		}
	}
	for round := 1; round <= o.rounds; round++ {
		for _, c := range cases {
			perOp, err := admissionload.Measure(c.client, c.server, c.body, o.admissions, o.clients)
			if err != nil {
				return err
			}
			c.perOp = append(c.perOp, perOp)
		}
		fmt.Fprintf(os.Stderr, "round %d of %d done\n", round, o.rounds)
	}

	fmt.Printf("Webhook pid %d at %s; pod of %d bytes of review; %d admissions per case and round, %d clients, %d rounds.\n\n",
		target.pid, target.address, len(cases[1].body), o.admissions, o.clients, o.rounds)
	fmt.Println("| pod | server CPU per admission (each round) | × echo (each round) | × echo (median) |")
	fmt.Println("|---|---|---|---|")
	floor := cases[0].perOp
	for _, c := range cases {
		var cpu, ratio []string
		var ratios []float64
		for i, d := range c.perOp {
			cpu = append(cpu, fmt.Sprintf("%.0f", float64(d.Nanoseconds())/1000))
			r := float64(d) / float64(floor[i])
			ratios = append(ratios, r)
			ratio = append(ratio, fmt.Sprintf("%.2f", r))
		}
		slices.Sort(ratios)
		fmt.Printf("| %s | %s µs | %s | %.2f |\n", c.name, strings.Join(cpu, ", "), strings.Join(ratio, ", "), ratios[len(ratios)/2])
	}
	if o.latencyAdmissions == 0 {
		return nil
	}

	// Latency as the API server sees it: each review's round trip over a
	// kept-alive TLS connection, at each concurrency, the echo floor first.
	var concurrencies []int
	for _, field := range strings.Split(o.latencyClients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < 1 {
			return fmt.Errorf("--latency-clients: %q is not a positive number", field)
		}
		concurrencies = append(concurrencies, n)
	}
	percentiles := make([][]string, len(cases))
	for _, clients := range concurrencies {
		oursC, localC := oursClient(clients), localClient(clients)
		for i, c := range cases {
			client := localC
			if c.ours {
				client = oursC
			}
			if err := admissionload.Send(client, c.server, c.body, 4*clients, clients); err != nil {
				return err
			}
			latencies, err := admissionload.Latencies(client, c.server, c.body, o.latencyAdmissions, clients)
			if err != nil {
				return err
			}
			percentiles[i] = append(percentiles[i], ms(admissionload.Percentile(latencies, 50)), ms(admissionload.Percentile(latencies, 99)))
		}
		oursC.CloseIdleConnections()
		localC.CloseIdleConnections()
		fmt.Fprintf(os.Stderr, "latency at %d clients done\n", clients)
	}
	fmt.Printf("\nLatency from sending a review to reading its answer, over kept-alive TLS connections, %d admissions per case and concurrency; "+
		"the webhook's timeoutSeconds: %s.\n\n", o.latencyAdmissions, target.timeouts)
	header, rule := "| pod |", "|---|"
	for _, clients := range concurrencies {
		header += fmt.Sprintf(" p50, %d clients | p99, %d clients |", clients, clients)
		rule += "---|---|"
	}
	fmt.Println(header)
	fmt.Println(rule)
	for i, c := range cases {
		fmt.Printf("| %s | %s |\n", c.name, strings.Join(percentiles[i], " | "))
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func noPatch(r *admissionv1.AdmissionResponse) error {
	if len(r.Patch) != 0 {
		return fmt.Errorf("a pod that asks for nothing got a patch: %.300s", r.Patch)
	}
	return nil
}

// review is a CREATE of mutationtest.CheckoutPod run by serviceAccount, as
// the cluster's admin creates it (the ClusterBundle's access review allows).
func review(annotations map[string]string, serviceAccount string) []byte {
	pod := mutationtest.CheckoutPod(annotations)
	pod.Spec.ServiceAccountName, pod.Spec.DeprecatedServiceAccount = serviceAccount, serviceAccount
	raw, err := json.Marshal(pod)
	if err != nil {
		panic(err)
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{UID: "admission-load", Kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"}, Namespace: namespace,
			Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw},
			UserInfo: authenticationv1.UserInfo{Username: "system:admin", Groups: []string{"system:masters", "system:authenticated"}}},
	})
	if err != nil {
		panic(err)
	}
	return body
}

// createFixtures makes what the cases need, if absent, and waits until
// the operator has validated both bundles.
func createFixtures(ctx context.Context, kube kubernetes.Interface, operator versioned.Interface) error {
	create := func(err error) error {
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	if err := create(func() error {
		_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
		return err
	}()); err != nil {
		return err
	}
	for name, annotations := range map[string]map[string]string{withRole: {podidentityv1alpha1.RoleARNAnnotation: roleARN}, withoutRole: nil} {
		if _, err := kube.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}}, metav1.CreateOptions{}); create(err) != nil {
			return err
		}
	}
	if _, err := kube.CoreV1().Secrets(namespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "entitlement"},
		Data: map[string][]byte{"1.pem": []byte("certificate"), "1-key.pem": []byte("key")}}, metav1.CreateOptions{}); create(err) != nil {
		return err
	}
	if _, err := kube.CoreV1().ConfigMaps(namespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "yum"},
		Data: map[string]string{"redhat.repo": "[rhel]\nbaseurl=https://cdn.redhat.com/content/dist/rhel9\n"}}, metav1.CreateOptions{}); create(err) != nil {
		return err
	}
	// The Shared Resource CSI driver reads what the ClusterBundle shares, as
	// an admin grants it (docs/subscriptions.md).
	driver := clusterbundles.DefaultDriverServiceAccount
	if _, err := kube.RbacV1().Roles(namespace).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "shared-resource-driver"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"entitlement"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"yum"}, Verbs: []string{"get", "list", "watch"}},
		}}, metav1.CreateOptions{}); create(err) != nil {
		return err
	}
	if _, err := kube.RbacV1().RoleBindings(namespace).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "shared-resource-driver"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "shared-resource-driver"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: driver.Namespace, Name: driver.Name}}}, metav1.CreateOptions{}); create(err) != nil {
		return err
	}
	if _, err := operator.SubscriptionV1alpha1().Bundles(namespace).Create(ctx, &subscriptionv1alpha1.Bundle{ObjectMeta: metav1.ObjectMeta{Name: bundleName},
		Spec: subscriptionv1alpha1.BundleSpec{Entitlements: []subscriptionv1alpha1.LocalReference{{Name: "entitlement"}}, YumRepositories: []subscriptionv1alpha1.LocalReference{{Name: "yum"}}}},
		metav1.CreateOptions{}); create(err) != nil {
		return err
	}
	if _, err := operator.SubscriptionV1alpha1().ClusterBundles().Create(ctx, &subscriptionv1alpha1.ClusterBundle{ObjectMeta: metav1.ObjectMeta{Name: clusterBundle},
		Spec: subscriptionv1alpha1.ClusterBundleSpec{Entitlements: []subscriptionv1alpha1.ClusterReference{{Namespace: namespace, Name: "entitlement"}},
			YumRepositories: []subscriptionv1alpha1.ClusterReference{{Namespace: namespace, Name: "yum"}}}},
		metav1.CreateOptions{}); create(err) != nil {
		return err
	}
	// The ClusterBundle's pods' ServiceAccount may use it, through the
	// ClusterRole the operator generates for it.
	if _, err := kube.RbacV1().RoleBindings(namespace).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterBundle + "-users"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterBundle + "-subscription-bundle"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: withoutRole}}}, metav1.CreateOptions{}); create(err) != nil {
		return err
	}
	valid := func(conditions []metav1.Condition, generation, observed int64) bool {
		c := findCondition(conditions, subscriptionv1alpha1.ConditionInvalid)
		return observed == generation && c != nil && c.Status == metav1.ConditionFalse
	}
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Second, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		b, err := operator.SubscriptionV1alpha1().Bundles(namespace).Get(ctx, bundleName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cb, err := operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, clusterBundle, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = fmt.Sprintf("Bundle %s/%s: %+v; ClusterBundle %s: %+v", namespace, bundleName, b.Status.Conditions, clusterBundle, cb.Status.Conditions)
		return valid(b.Status.Conditions, b.Generation, b.Status.ObservedGeneration) && valid(cb.Status.Conditions, cb.Generation, cb.Status.ObservedGeneration), nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the operator to validate the bundles: %w (last seen: %s)", err, last)
	}
	return nil
}

func findCondition(conditions []metav1.Condition, conditionType string) *metav1.Condition {
	for i := range conditions {
		if conditions[i].Type == conditionType {
			return &conditions[i]
		}
	}
	return nil
}

// target is the webhook as the API server reaches it.
type target struct {
	address, serverName string
	ca                  *x509.CertPool
	pid                 int
	// timeouts are the webhook configuration's timeoutSeconds, for the
	// latency table.
	timeouts string
}

// findWebhook reads where the API server calls the pod webhook and with
// which CA, and which process listens there.
func findWebhook(ctx context.Context, kube kubernetes.Interface, pid int) (*target, error) {
	config, err := kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, operatorclient.WebhookName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("is run-local up? %w", err)
	}
	if len(config.Webhooks) == 0 || config.Webhooks[0].ClientConfig.Service == nil {
		return nil, fmt.Errorf("MutatingWebhookConfiguration %s has no service webhook", config.Name)
	}
	ref := config.Webhooks[0].ClientConfig.Service
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(config.Webhooks[0].ClientConfig.CABundle) {
		return nil, fmt.Errorf("MutatingWebhookConfiguration %s has no caBundle yet", config.Name)
	}
	service, err := kube.CoreV1().Services(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	t := &target{address: net.JoinHostPort(service.Spec.ClusterIP, strconv.Itoa(int(port))), serverName: ref.Name + "." + ref.Namespace + ".svc", ca: pool, pid: pid}
	var timeouts []string
	for _, w := range config.Webhooks {
		if w.TimeoutSeconds != nil {
			timeouts = append(timeouts, fmt.Sprintf("%s %d s", w.Name, *w.TimeoutSeconds))
		}
	}
	t.timeouts = strings.Join(timeouts, ", ")
	if t.pid == 0 {
		// run-local's webhook listens on the Service's port of its loopback ClusterIP.
		if t.pid, err = listenerPID(int(port)); err != nil {
			return nil, fmt.Errorf("finding the process listening on port %d (--webhook-pid names it): %w", port, err)
		}
	}
	return t, nil
}

func servingPair(dir string) (certFile, keyFile string, pool *x509.CertPool, err error) {
	caConfig, err := crypto.MakeSelfSignedCAConfig("admission-load-ca", time.Hour)
	if err != nil {
		return "", "", nil, err
	}
	ca := &crypto.CA{Config: caConfig, SerialGenerator: &crypto.RandomSerialGenerator{}}
	cert, err := ca.MakeServerCert(sets.New("127.0.0.1"), time.Hour)
	if err != nil {
		return "", "", nil, err
	}
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := cert.WriteCertConfigFile(certFile, keyFile); err != nil {
		return "", "", nil, err
	}
	pool = x509.NewCertPool()
	pool.AddCert(caConfig.Certs[0])
	return certFile, keyFile, pool, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func freeAddress() (string, error) {
	port, err := freePort()
	return fmt.Sprintf("127.0.0.1:%d", port), err
}
