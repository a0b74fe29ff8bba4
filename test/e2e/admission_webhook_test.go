package e2e

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const (
	requestedWebhook        = "requested.workload-access.openshift.io"
	opportunisticWebhook    = "opportunistic.workload-access.openshift.io"
	podIdentityDebugWebhook = "pod-identity-debug-containers.workload-access.openshift.io"
	// admittedSeries counts AdmissionReviews the webhook answered.
	admittedSeries = `workload_access_webhook_http_requests_total{code="200",path="/mutate-pods",verb="POST"}`
)

// ensureWebhook returns the shared webhook process, starting one if none runs.
func ensureWebhook(t *testing.T) *framework.WebhookProcess {
	t.Helper()
	if env.webhook != nil && !env.webhook.Exited() {
		return env.webhook
	}
	env.webhooks++
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w, err := env.cp.StartWebhook(ctx, env.binary, fmt.Sprintf("webhook-%d", env.webhooks))
	if err != nil {
		t.Fatal(err)
	}
	env.webhook = w
	return w
}

func stopWebhook() {
	if env.webhook != nil {
		env.webhook.Stop()
		env.webhook = nil
	}
}

// deleteWebhookServiceAccount deletes the webhook's ServiceAccount. The
// running webhook's token dies with it (the API server answers its
// SubjectAccessReviews and watches Unauthorized from then on), so it is
// stopped first; the next test that needs it starts one with a token of the
// recreated account.
func deleteWebhookServiceAccount(ctx context.Context) error {
	stopWebhook()
	return env.kube.CoreV1().ServiceAccounts(operandNS).Delete(ctx, framework.WebhookName, metav1.DeleteOptions{})
}

// testNamespace creates a namespace the webhook serves, where the Shared
// Resource CSI driver may read Secrets and ConfigMaps (as every ClusterBundle
// source must allow), and deletes it after t.
func testNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := namespaceWithoutDriverAccess(t, prefix)
	grantDriverRead(t, ns)
	return ns
}

// namespaceWithoutDriverAccess is testNamespace without the grant that lets
// the Shared Resource CSI driver read its Secrets and ConfigMaps.
func namespaceWithoutDriverAccess(t *testing.T, prefix string) string {
	t.Helper()
	ns, err := env.kube.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	waitServiceAccount(t, ns.Name, "default")
	return ns.Name
}

func testPod(annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "app-", Annotations: annotations, Labels: map[string]string{"app": "e2e"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: "registry.invalid/e2e/app:1",
			SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false), RunAsNonRoot: ptr.To(true),
				Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
		}}},
	}
}

func metric(t *testing.T, w *framework.WebhookProcess, series string) float64 {
	t.Helper()
	v, err := w.Metric(context.Background(), series)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func expectMetric(t *testing.T, w *framework.WebhookProcess, series string, want float64) {
	t.Helper()
	framework.Eventually(t, 10*time.Second, func(ctx context.Context) error {
		got, err := w.Metric(ctx, series)
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%s = %v, want %v", series, got, want)
		}
		return nil
	})
}

// caBundle is the serving-CA ConfigMap's bundle.
func caBundle(ctx context.Context) (string, error) {
	cm, err := env.kube.CoreV1().ConfigMaps(operandNS).Get(ctx, framework.WebhookCAConfigMap, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return cm.Data[framework.WebhookCABundleKey], nil
}

// webhookTrustsBundle checks that every webhook carries the CA bundle and,
// if wantCAs > 0, that the bundle holds that many CAs.
func webhookTrustsBundle(ctx context.Context, wantCAs int) error {
	bundle, err := caBundle(ctx)
	if err != nil {
		return err
	}
	if n := countCerts(bundle); wantCAs > 0 && n != wantCAs {
		return fmt.Errorf("the CA bundle holds %d certificates, want %d", n, wantCAs)
	}
	mwc, err := env.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, w := range mwc.Webhooks {
		if string(w.ClientConfig.CABundle) != bundle {
			return fmt.Errorf("webhook %s does not carry the current CA bundle", w.Name)
		}
	}
	return nil
}

func countCerts(bundle string) int {
	n, rest := 0, []byte(bundle)
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return n
		}
		n++
	}
}

func secretCert(ctx context.Context, name string) (*x509.Certificate, error) {
	secret, err := env.kube.CoreV1().Secrets(operandNS).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(secret.Data[corev1.TLSCertKey])
	if block == nil {
		return nil, fmt.Errorf("secret %s holds no certificate", name)
	}
	return x509.ParseCertificate(block.Bytes)
}

func expectWebhookAvailable(t *testing.T) {
	t.Helper()
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		cond, err := operatorCondition(ctx, "WebhookAvailable")
		if err != nil {
			return err
		}
		if cond.Status != operatorv1.ConditionTrue {
			return fmt.Errorf("WebhookAvailable=%s %s: %s", cond.Status, cond.Reason, cond.Message)
		}
		return nil
	})
}

// The configuration the operator applies is the one docs/admission.md
// describes, and it trusts the serving CA the operator rotates.
func TestWebhookConfigurationAsShipped(t *testing.T) {
	dumpOnFailure(t)
	expectWebhookAvailable(t)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error { return webhookTrustsBundle(ctx, 1) })

	mwc, err := env.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	policies := map[string]admissionregistrationv1.FailurePolicyType{}
	for _, w := range mwc.Webhooks {
		policies[w.Name] = *w.FailurePolicy
		if *w.SideEffects != admissionregistrationv1.SideEffectClassNone || strings.Join(w.AdmissionReviewVersions, ",") != "v1" {
			t.Errorf("%s: sideEffects %s, admissionReviewVersions %v", w.Name, *w.SideEffects, w.AdmissionReviewVersions)
		}
		if *w.TimeoutSeconds > 5 || *w.ReinvocationPolicy != admissionregistrationv1.IfNeededReinvocationPolicy {
			t.Errorf("%s: timeout %ds, reinvocation %s", w.Name, *w.TimeoutSeconds, *w.ReinvocationPolicy)
		}
		svc := w.ClientConfig.Service
		if svc == nil || svc.Name != framework.WebhookName || svc.Namespace != operandNS || *svc.Path != "/mutate-pods" || w.ClientConfig.URL != nil {
			t.Errorf("%s: clientConfig %+v", w.Name, w.ClientConfig)
		}
		if len(w.MatchConditions) != 1 {
			t.Errorf("%s: matchConditions %v", w.Name, w.MatchConditions)
		}
		excluded := map[string]string{}
		for _, e := range w.NamespaceSelector.MatchExpressions {
			excluded[e.Key] = fmt.Sprintf("%s %v", e.Operator, e.Values)
		}
		if excluded["openshift.io/run-level"] != "NotIn [0 1]" ||
			excluded["kubernetes.io/metadata.name"] != "NotIn [openshift-workload-access openshift-workload-access-operator]" {
			t.Errorf("%s: namespaceSelector %v", w.Name, excluded)
		}
	}
	// The suite runs with pod identity on, which adds its debug-container webhook.
	if policies[requestedWebhook] != admissionregistrationv1.Fail || policies[opportunisticWebhook] != admissionregistrationv1.Ignore ||
		policies[podIdentityDebugWebhook] != admissionregistrationv1.Ignore || len(policies) != 3 {
		t.Errorf("failure policies %v: want %s=Fail, %s=Ignore and %s=Ignore", policies, requestedWebhook, opportunisticWebhook, podIdentityDebugWebhook)
	}
}

// The API server calls the real webhook binary through the Service-referenced
// configuration, over TLS verified with the caBundle the operator synced.
func TestAPIServerCallsWebhookThroughService(t *testing.T) {
	dumpOnFailure(t)
	expectWebhookAvailable(t)
	w := ensureWebhook(t)
	ns := testNamespace(t, "webhook-call-")
	ctx := context.Background()

	before := metric(t, w, admittedSeries)
	pod, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a pod that asks for nothing: %v", err)
	}
	if len(pod.Annotations) != 0 || len(pod.Spec.Volumes) != 1 { // only the service account token volume
		t.Errorf("a pod that asks for nothing was changed: annotations %v, volumes %v", pod.Annotations, pod.Spec.Volumes)
	}
	expectMetric(t, w, admittedSeries, before+1)

	// A pod that asks for an injection reaches the fail-closed webhook,
	// which refuses it with the reason when it cannot be served.
	deniedSeries := `workload_access_webhook_admission_denials_total{mutator="subscription",reason="BundleNotFound"}`
	deniedBefore := metric(t, w, deniedSeries)
	_, err = env.kube.CoreV1().Pods(ns).Create(ctx, testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), deniedPrefix+`bundle "rhel" requested by annotation `+v1alpha1.InjectBundleAnnotation+` does not exist in namespace "`+ns+`"`) {
		t.Fatalf("a pod asking for a bundle that does not exist: err = %v", err)
	}
	expectMetric(t, w, deniedSeries, deniedBefore+1)
}

// The webhook Deployment runs two replicas on different control-plane nodes
// behind a PodDisruptionBudget, and one replica without either on a
// single-replica control plane.
func TestWebhookDeploymentFollowsTopology(t *testing.T) {
	dumpOnFailure(t)
	expectWebhookAvailable(t)
	ctx := context.Background()

	deploy, err := env.kube.AppsV1().Deployments(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := deploy.Spec.Template.Spec
	c := spec.Containers[0]
	switch {
	case *deploy.Spec.Replicas != 2:
		t.Errorf("replicas %d, want 2", *deploy.Spec.Replicas)
	case spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil ||
		len(spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 ||
		spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != "kubernetes.io/hostname":
		t.Errorf("anti-affinity %+v", spec.Affinity)
	case c.Image != operatorImage:
		t.Errorf("image %q, want the operator's %q", c.Image, operatorImage)
	case spec.PriorityClassName != "system-cluster-critical" || c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero():
		t.Errorf("priority %q, requests %v", spec.PriorityClassName, c.Resources.Requests)
	case !*spec.SecurityContext.RunAsNonRoot || *c.SecurityContext.AllowPrivilegeEscalation || !*c.SecurityContext.ReadOnlyRootFilesystem:
		t.Errorf("security context %+v / %+v", spec.SecurityContext, c.SecurityContext)
	case deploy.Spec.Template.Annotations["workload-access.openshift.io/serving-cert-hash"] == "":
		t.Errorf("no serving certificate hash on the pod template: %v", deploy.Spec.Template.Annotations)
	}

	// Admitted under the namespace's restricted pod security, one per node.
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		pods, err := env.kube.CoreV1().Pods(operandNS).List(ctx, metav1.ListOptions{LabelSelector: "app=" + framework.WebhookName})
		if err != nil {
			return err
		}
		nodes := map[string]bool{}
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
				nodes[p.Spec.NodeName] = true
			}
		}
		if len(nodes) != 2 {
			return fmt.Errorf("running webhook pods on nodes %v, want two control-plane nodes", nodes)
		}
		for node := range nodes {
			if !slices.Contains(controlplane.ControlPlaneNodes, node) {
				return fmt.Errorf("a webhook pod runs on %s, not a control-plane node", node)
			}
		}
		return nil
	})
	pdb, err := env.kube.PolicyV1().PodDisruptionBudgets(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil || pdb.Spec.MaxUnavailable.IntValue() != 1 {
		t.Fatalf("PodDisruptionBudget: %+v, %v", pdb, err)
	}

	setTopology(t, configv1.SingleReplicaTopologyMode)
	defer setTopology(t, configv1.HighlyAvailableTopologyMode)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		d, err := env.kube.AppsV1().Deployments(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if *d.Spec.Replicas != 1 || d.Spec.Template.Spec.Affinity != nil {
			return fmt.Errorf("single replica topology: replicas %d, affinity %+v", *d.Spec.Replicas, d.Spec.Template.Spec.Affinity)
		}
		_, err = env.kube.PolicyV1().PodDisruptionBudgets(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("the PodDisruptionBudget would block every drain of one replica (%v)", err)
		}
		return nil
	})

	setTopology(t, configv1.HighlyAvailableTopologyMode)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		d, err := env.kube.AppsV1().Deployments(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if *d.Spec.Replicas != 2 || d.Spec.Template.Spec.Affinity == nil {
			return fmt.Errorf("highly available topology: replicas %d", *d.Spec.Replicas)
		}
		_, err = env.kube.PolicyV1().PodDisruptionBudgets(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
		return err
	})
	expectClusterOperator(t, 2*time.Minute, healthy, "")
}

func setTopology(t *testing.T, mode configv1.TopologyMode) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		infra, err := env.config.ConfigV1().Infrastructures().Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return err
		}
		infra.Status.ControlPlaneTopology = mode
		_, err = env.config.ConfigV1().Infrastructures().UpdateStatus(ctx, infra, metav1.UpdateOptions{})
		return err
	})
}

// Pods keep being created while the serving certificate, then the signer
// CA, are rotated: none fails, every one of them went through the webhook
// (none was let through because a call failed), and the caBundle follows.
func TestRotationUnderLoad(t *testing.T) {
	dumpOnFailure(t)
	expectWebhookAvailable(t)
	w := ensureWebhook(t)
	ctx := context.Background()
	ns := testNamespace(t, "rotation-")
	framework.Eventually(t, time.Minute, func(ctx context.Context) error { return webhookTrustsBundle(ctx, 0) })

	before := metric(t, w, admittedSeries)
	load := framework.StartPodLoad(env.cp.Config, 150*time.Millisecond,
		framework.PodKind{Name: "plain", Namespace: ns, Pod: func() *corev1.Pod { return testPod(nil) }})
	t.Cleanup(load.Stop)

	// 1. A new serving certificate: the webhook serves it without a restart,
	// and the Deployment rolls because its hash changed.
	oldServing, err := secretCert(ctx, framework.WebhookServingSecret)
	if err != nil {
		t.Fatal(err)
	}
	deploy, err := env.kube.AppsV1().Deployments(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	oldHash := deploy.Spec.Template.Annotations["workload-access.openshift.io/serving-cert-hash"]
	time.Sleep(2 * time.Second) // some load before the rotation
	if err := env.kube.CoreV1().Secrets(operandNS).Delete(ctx, framework.WebhookServingSecret, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		cert, err := secretCert(ctx, framework.WebhookServingSecret)
		if err != nil {
			return err
		}
		if cert.Equal(oldServing) {
			return fmt.Errorf("the serving certificate was not reissued")
		}
		served, err := w.ServedCertificate()
		if err != nil {
			return err
		}
		if !served.Equal(cert) {
			return fmt.Errorf("the webhook still serves serial %s", served.SerialNumber)
		}
		d, err := env.kube.AppsV1().Deployments(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Spec.Template.Annotations["workload-access.openshift.io/serving-cert-hash"] == oldHash {
			return fmt.Errorf("the webhook Deployment did not roll for the new certificate")
		}
		return nil
	})

	// 2. A new signer: the bundle keeps the old CA beside the new one, the
	// webhook configuration follows, and only then is a certificate from the
	// new signer served.
	oldSigner, err := secretCert(ctx, framework.WebhookSignerSecret)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.kube.CoreV1().Secrets(operandNS).Delete(ctx, framework.WebhookSignerSecret, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error { return webhookTrustsBundle(ctx, 2) })
	newSigner, err := secretCert(ctx, framework.WebhookSignerSecret)
	if err != nil {
		t.Fatal(err)
	}
	if newSigner.Equal(oldSigner) {
		t.Fatal("the signer was not replaced")
	}
	if err := env.kube.CoreV1().Secrets(operandNS).Delete(ctx, framework.WebhookServingSecret, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		served, err := w.ServedCertificate()
		if err != nil {
			return err
		}
		if served.Issuer.CommonName != newSigner.Subject.CommonName {
			return fmt.Errorf("the webhook serves a certificate from %q, want the new signer %q", served.Issuer.CommonName, newSigner.Subject.CommonName)
		}
		return nil
	})
	time.Sleep(2 * time.Second) // some load after the rotation
	load.Stop()

	figures := load.Figures()
	created := figures.TotalCreated()
	if len(figures.Refused) > 0 {
		t.Fatalf("%d of %d pod creations failed during rotation, first: %v", len(figures.Refused), created+len(figures.Refused), figures.Refused[0])
	}
	if created < 20 {
		t.Fatalf("only %d pods were created: the load did not run", created)
	}
	// With failurePolicy Ignore a failed call would still create the pod;
	// the webhook's own count shows that none did.
	expectMetric(t, w, admittedSeries, before+float64(created))
	t.Logf("%d pods created through two rotations, all admitted by the webhook", created)
	expectWebhookAvailable(t)
}

// With the webhook down, a pod that asks for nothing is still created; a pod
// that asks for an injection is refused, naming the fail-closed webhook.
func TestWebhookDownFailsOnlyRequestedPods(t *testing.T) {
	dumpOnFailure(t)
	expectWebhookAvailable(t)
	ensureWebhook(t)
	stopWebhook()
	ns := testNamespace(t, "webhook-down-")
	ctx := context.Background()

	if _, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(nil), metav1.CreateOptions{}); err != nil {
		t.Fatalf("a pod that asks for nothing was blocked by the webhook being down: %v", err)
	}
	_, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), `failed calling webhook "`+requestedWebhook+`"`) {
		t.Fatalf("a pod that asks for an injection must fail closed, naming the webhook: err = %v", err)
	}
	pods, err := env.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("want only the pod that asked for nothing, got %d (%v)", len(pods.Items), err)
	}
}

// Deleting or tampering with what the API server needs to reach the webhook
// is undone by the operator.
func TestWebhookObjectsAreRestored(t *testing.T) {
	dumpOnFailure(t)
	expectWebhookAvailable(t)
	ctx := context.Background()
	admission := env.kube.AdmissionregistrationV1().MutatingWebhookConfigurations()

	if err := admission.Delete(ctx, framework.WebhookName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error { return webhookTrustsBundle(ctx, 0) })

	patch := []byte(`[{"op":"replace","path":"/webhooks/0/clientConfig/caBundle","value":"` +
		"bm90IHRoZSBidW5kbGU=" + `"}]`)
	if _, err := admission.Patch(ctx, framework.WebhookName, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error { return webhookTrustsBundle(ctx, 0) })

	oldBundle, err := caBundle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.kube.CoreV1().ConfigMaps(operandNS).Delete(ctx, framework.WebhookCAConfigMap, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		if err := webhookTrustsBundle(ctx, 0); err != nil {
			return err
		}
		bundle, err := caBundle(ctx)
		if err != nil {
			return err
		}
		// The recreated bundle holds at least the current signer, which the
		// old bundle held too.
		signer, err := env.kube.CoreV1().Secrets(operandNS).Get(ctx, framework.WebhookSignerSecret, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !strings.Contains(bundle, strings.TrimSpace(string(signer.Data[corev1.TLSCertKey]))) || !strings.Contains(oldBundle, strings.TrimSpace(string(signer.Data[corev1.TLSCertKey]))) {
			return fmt.Errorf("the CA bundle does not hold the current signer")
		}
		return nil
	})

	svc, err := env.kube.CoreV1().Services(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.kube.CoreV1().Services(operandNS).Delete(ctx, framework.WebhookName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		restored, err := env.kube.CoreV1().Services(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if restored.UID == svc.UID {
			return fmt.Errorf("service not yet recreated")
		}
		return nil
	})

	// The recreated Service has a new ClusterIP: move the webhook there, as
	// kube-proxy would, and admit through it again.
	stopWebhook()
	w := ensureWebhook(t)
	before := metric(t, w, admittedSeries)
	ns := testNamespace(t, "restored-")
	if _, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expectMetric(t, w, admittedSeries, before+1)
	expectWebhookAvailable(t)
	expectClusterOperator(t, time.Minute, healthy, "")
	if bytes.Contains([]byte(w.Log()), []byte("BEGIN")) {
		t.Error("the webhook logged PEM material")
	}
}

// /metrics answers only callers the API server authenticates and allows to
// get it, as OpenShift's Prometheus is; health stays open for the kubelet.
func TestWebhookMetricsNeedAuthorization(t *testing.T) {
	dumpOnFailure(t)
	expectWebhookAvailable(t)
	w := ensureWebhook(t)
	ctx := context.Background()
	ns := testNamespace(t, "metrics-")
	stranger, err := env.kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prometheus, err := framework.PrometheusToken(ctx, env.kube)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		who, token string
		code       int
	}{
		{"nobody", "", http.StatusUnauthorized},
		{"a forged token", "not-a-token", http.StatusUnauthorized},
		{"a ServiceAccount without the right", stranger.Status.Token, http.StatusForbidden},
		{"Prometheus", prometheus, http.StatusOK},
	} {
		code, body, err := w.MetricsWithToken(ctx, c.token)
		if err != nil {
			t.Fatal(err)
		}
		if code != c.code {
			t.Errorf("%s: /metrics answered %d, want %d", c.who, code, c.code)
		}
		if readMetrics := strings.Contains(body, "workload_access_webhook_"); readMetrics != (c.code == http.StatusOK) {
			t.Errorf("%s: read the metrics: %v", c.who, readMetrics)
		}
	}
}

// The webhook serves with the cluster's TLS security profile: Intermediate
// while none is set, and whatever apiservers/cluster asks for after.
func TestWebhookFollowsTheClusterTLSProfile(t *testing.T) {
	dumpOnFailure(t)
	expectWebhookAvailable(t)
	ctx := context.Background()
	expectArgs := func(want string, unwanted string) {
		t.Helper()
		framework.Eventually(t, time.Minute, func(ctx context.Context) error {
			deploy, err := env.kube.AppsV1().Deployments(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
			if err != nil {
				return err
			}
			args := strings.Join(deploy.Spec.Template.Spec.Containers[0].Args, " ")
			if !strings.Contains(args, want) || (unwanted != "" && strings.Contains(args, unwanted)) {
				return fmt.Errorf("webhook args %q, want %q and not %q", args, want, unwanted)
			}
			return nil
		})
	}
	expectArgs("--tls-min-version=VersionTLS12 --tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,", "")

	apiserver, err := env.config.ConfigV1().APIServers().Get(ctx, "cluster", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		apiserver, err = env.config.ConfigV1().APIServers().Create(ctx, &configv1.APIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	apiserver.Spec.TLSSecurityProfile = &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType, Modern: &configv1.ModernTLSProfile{}}
	if _, err := env.config.ConfigV1().APIServers().Update(ctx, apiserver, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		apiserver, err := env.config.ConfigV1().APIServers().Get(ctx, "cluster", metav1.GetOptions{})
		if err == nil {
			apiserver.Spec.TLSSecurityProfile = nil
			_, err = env.config.ConfigV1().APIServers().Update(ctx, apiserver, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Errorf("restoring the TLS profile: %v", err)
		}
		expectArgs("--tls-min-version=VersionTLS12", "")
		expectWebhookAvailable(t)
	}()
	expectArgs("--tls-min-version=VersionTLS13", "--tls-cipher-suites")
}
