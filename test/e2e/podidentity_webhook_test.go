package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
)

// The suite runs with pod identity Enabled (setUp), in region e2eRegion.
const (
	e2eRegion  = "us-east-1"
	e2eRoleARN = "arn:aws:iam::123456789012:role/e2e-reader"
	tokenDir   = "/var/run/secrets/eks.amazonaws.com/serviceaccount"
)

func createServiceAccount(t *testing.T, ns, name string, annotations map[string]string) {
	t.Helper()
	_, err := env.kube.CoreV1().ServiceAccounts(ns).Create(context.Background(),
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// envOf is a container's env as a map (plain values only).
func envOf(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, e := range c.Env {
		out[e.Name] = e.Value
	}
	return out
}

func mountsVolume(c corev1.Container, volume, path string) bool {
	for _, m := range c.VolumeMounts {
		if m.Name == volume && m.MountPath == path && m.ReadOnly {
			return true
		}
	}
	return false
}

// wantCredentials checks what a container with pod identity gets.
func wantCredentials(t *testing.T, c corev1.Container, want map[string]string) {
	t.Helper()
	got := envOf(c)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("container %s: %s=%q, want %q (env %v)", c.Name, k, got[k], v, got)
		}
	}
	if !mountsVolume(c, podidentity.VolumeName, tokenDir) {
		t.Errorf("container %s does not mount the token: %v", c.Name, c.VolumeMounts)
	}
}

func withoutCredentials(t *testing.T, c corev1.Container) {
	t.Helper()
	for k := range envOf(c) {
		if k == "AWS_ROLE_ARN" || k == "AWS_WEB_IDENTITY_TOKEN_FILE" {
			t.Errorf("container %s got %s", c.Name, k)
		}
	}
	for _, m := range c.VolumeMounts {
		if m.Name == podidentity.VolumeName {
			t.Errorf("container %s mounts the token", c.Name)
		}
	}
}

// Pods through the real API server: a ServiceAccount with a role ARN and
// every annotation, a pod overriding the expiration and skipping a
// container, a container that sets its own region, an init container, and
// a debug container added later.
func TestPodIdentityIsInjected(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ns := testNamespace(t, "pod-identity-")
	createServiceAccount(t, ns, "reader", map[string]string{
		podidentityv1alpha1.RoleARNAnnotation:         e2eRoleARN,
		podidentityv1alpha1.AudienceAnnotation:        "sts.example.com",
		podidentityv1alpha1.RegionalSTSAnnotation:     "true",
		podidentityv1alpha1.TokenExpirationAnnotation: "3600",
	})

	pod := testPod(map[string]string{
		podidentityv1alpha1.SkipContainersAnnotation:  "sidecar",
		podidentityv1alpha1.TokenExpirationAnnotation: "7200",
	})
	pod.Spec.ServiceAccountName = "reader"
	app := pod.Spec.Containers[0]
	own := *app.DeepCopy()
	own.Name, own.Env = "own-region", []corev1.EnvVar{{Name: "AWS_REGION", Value: "eu-central-1"}}
	sidecar := *app.DeepCopy()
	sidecar.Name = "sidecar"
	initC := *app.DeepCopy()
	initC.Name = "init"
	pod.Spec.Containers = append(pod.Spec.Containers, own, sidecar)
	pod.Spec.InitContainers = []corev1.Container{initC}

	created, err := env.kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{
		"AWS_ROLE_ARN":                e2eRoleARN,
		"AWS_WEB_IDENTITY_TOKEN_FILE": tokenDir + "/token",
		"AWS_STS_REGIONAL_ENDPOINTS":  "regional",
		"AWS_REGION":                  e2eRegion,
		"AWS_DEFAULT_REGION":          e2eRegion,
	}
	wantCredentials(t, created.Spec.Containers[0], all)
	wantCredentials(t, created.Spec.InitContainers[0], all)
	// Its own region group is kept whole: neither region variable is added.
	wantCredentials(t, created.Spec.Containers[1], map[string]string{"AWS_ROLE_ARN": e2eRoleARN, "AWS_REGION": "eu-central-1", "AWS_DEFAULT_REGION": ""})
	withoutCredentials(t, created.Spec.Containers[2])

	v := podVolume(created, podidentity.VolumeName)
	if v == nil || v.Projected == nil || len(v.Projected.Sources) != 1 || v.Projected.Sources[0].ServiceAccountToken == nil {
		t.Fatalf("token volume %+v", v)
	}
	token := v.Projected.Sources[0].ServiceAccountToken
	if token.Audience != "sts.example.com" || ptr.Deref(token.ExpirationSeconds, 0) != 7200 || token.Path != "token" {
		t.Errorf("token projection %+v: want audience sts.example.com, 7200 s (the pod's annotation wins), path token", token)
	}

	// A debug container gets the credentials too (kubectl debug; retried
	// when the pod's status changed meanwhile).
	var updated *corev1.Pod
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := env.kube.CoreV1().Pods(ns).Get(context.Background(), created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		current.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
			Name: "debugger", Image: "registry.invalid/e2e/debug:1",
		}}}
		updated, err = env.kube.CoreV1().Pods(ns).UpdateEphemeralContainers(context.Background(), created.Name, current, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(updated.Spec.EphemeralContainers); n != 1 {
		t.Fatalf("%d ephemeral containers", n)
	}
	wantCredentials(t, corev1.Container(updated.Spec.EphemeralContainers[0].EphemeralContainerCommon), all)

	// A ServiceAccount without a role ARN: the pod is left alone.
	plain, err := env.kube.CoreV1().Pods(ns).Create(context.Background(), testPod(nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if podVolume(plain, podidentity.VolumeName) != nil {
		t.Errorf("a pod of the default ServiceAccount got a token volume")
	}
	withoutCredentials(t, plain.Spec.Containers[0])

	// Upstream's skip label, whatever its value, keeps pod identity away
	// from a pod whose ServiceAccount has a role.
	skipped := testPod(nil)
	skipped.Spec.ServiceAccountName = "reader"
	skipped.Labels = map[string]string{podidentityv1alpha1.SkipLabel: ""}
	skipped, err = env.kube.CoreV1().Pods(ns).Create(context.Background(), skipped, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if podVolume(skipped, podidentity.VolumeName) != nil {
		t.Errorf("a pod labelled %s got a token volume", podidentityv1alpha1.SkipLabel)
	}
	withoutCredentials(t, skipped.Spec.Containers[0])
}

// A malformed annotation is refused with a message naming the
// ServiceAccount, the annotation and the value, not ignored.
func TestPodIdentityRefusesMalformedAnnotations(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ns := testNamespace(t, "pod-identity-bad-")
	createServiceAccount(t, ns, "typo", map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:iam::12345:role/short-account"})

	pod := testPod(nil)
	pod.Spec.ServiceAccountName = "typo"
	_, err := env.kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{})
	want := fmt.Sprintf(`annotation %s on ServiceAccount %s/typo: "arn:aws:iam::12345:role/short-account" is malformed`, podidentityv1alpha1.RoleARNAnnotation, ns)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want a refusal containing %q", err, want)
	}

	bad := testPod(map[string]string{podidentityv1alpha1.TokenExpirationAnnotation: "one hour"})
	bad.Spec.ServiceAccountName = "typo"
	createServiceAccount(t, ns, "fine", map[string]string{podidentityv1alpha1.RoleARNAnnotation: e2eRoleARN})
	bad.Spec.ServiceAccountName = "fine"
	_, err = env.kube.CoreV1().Pods(ns).Create(context.Background(), bad, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), podidentityv1alpha1.TokenExpirationAnnotation) || !strings.Contains(err.Error(), `"one hour"`) {
		t.Fatalf("got %v, want a refusal naming %s and the value", err, podidentityv1alpha1.TokenExpirationAnnotation)
	}
}

// The allow-list (amazon-eks-pod-identity-webhook #147, #77, #63): through
// the API server, only the containers it names, an init container among
// them, get the role; a pod naming one container in both it and
// skip-containers is refused with a message naming the container and both
// annotations.
func TestPodIdentityAllowList(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ns := testNamespace(t, "pod-identity-allow-")
	createServiceAccount(t, ns, "reader", map[string]string{podidentityv1alpha1.RoleARNAnnotation: e2eRoleARN})

	// "debugger" names no container of the pod: ignored, as upstream
	// ignores unknown names in skip-containers.
	pod := testPod(map[string]string{podidentityv1alpha1.AllowContainersAnnotation: "app, init,debugger"})
	pod.Spec.ServiceAccountName = "reader"
	app := pod.Spec.Containers[0]
	proxy, initC, setup := *app.DeepCopy(), *app.DeepCopy(), *app.DeepCopy()
	proxy.Name, initC.Name, setup.Name = "proxy", "init", "setup"
	pod.Spec.Containers = append(pod.Spec.Containers, proxy)
	pod.Spec.InitContainers = []corev1.Container{initC, setup}
	created, err := env.kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if podVolume(created, podidentity.VolumeName) == nil {
		t.Errorf("no token volume")
	}
	identity := map[string]string{"AWS_ROLE_ARN": e2eRoleARN, "AWS_WEB_IDENTITY_TOKEN_FILE": tokenDir + "/token", "AWS_REGION": e2eRegion}
	wantCredentials(t, created.Spec.Containers[0], identity)
	wantCredentials(t, created.Spec.InitContainers[0], identity)
	withoutCredentials(t, created.Spec.Containers[1])
	withoutCredentials(t, created.Spec.InitContainers[1])

	both := testPod(map[string]string{
		podidentityv1alpha1.AllowContainersAnnotation: "app,proxy",
		podidentityv1alpha1.SkipContainersAnnotation:  "proxy",
	})
	both.Spec.ServiceAccountName = "reader"
	both.Spec.Containers = append(both.Spec.Containers, proxy)
	_, err = env.kube.CoreV1().Pods(ns).Create(context.Background(), both, metav1.CreateOptions{})
	want := fmt.Sprintf(`container "proxy" is named both in annotation %s, which gives AWS credentials, and in annotation %s, which keeps them away, on pod %s/app-`,
		podidentityv1alpha1.AllowContainersAnnotation, podidentityv1alpha1.SkipContainersAnnotation, ns)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want a refusal containing %q", err, want)
	}
}

// The race upstream's users keep reporting: a pod created right after its
// ServiceAccount reaches the webhook before the watch event does. Every
// such pod still gets its credentials.
func TestPodIdentityServiceAccountCreatedJustBeforeThePod(t *testing.T) {
	dumpOnFailure(t)
	w := ensureWebhook(t)
	ns := testNamespace(t, "pod-identity-race-")
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("fresh-%d", i)
			ctx := context.Background()
			_, err := env.kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
				Name: name, Annotations: map[string]string{podidentityv1alpha1.RoleARNAnnotation: e2eRoleARN},
			}}, metav1.CreateOptions{})
			if err != nil {
				errs <- err
				return
			}
			pod := testPod(nil)
			pod.Spec.ServiceAccountName = name
			created, err := env.kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
			if err != nil {
				errs <- fmt.Errorf("pod of %s: %w", name, err)
				return
			}
			if podVolume(created, podidentity.VolumeName) == nil || envOf(created.Spec.Containers[0])["AWS_ROLE_ARN"] != e2eRoleARN {
				errs <- fmt.Errorf("the pod of ServiceAccount %s, created right after it, has no credentials", name)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	hits := metric(t, w, `workload_access_webhook_serviceaccount_lookups_total{result="found",source="cache"}`)
	live := metric(t, w, `workload_access_webhook_serviceaccount_lookups_total{result="found",source="api"}`)
	t.Logf("ServiceAccount lookups so far: %v from the cache, %v live after a miss", hits, live)
	if hits+live < n {
		t.Errorf("the lookup metric counts %v found ServiceAccounts, want at least %d", hits+live, n)
	}
}
