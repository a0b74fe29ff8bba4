package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// patchPodIdentity merge-patches WorkloadAccess cluster's spec.podIdentity.
func patchPodIdentity(ctx context.Context, fields string) error {
	_, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Patch(ctx, "cluster", "application/merge-patch+json",
		[]byte(`{"spec":{"podIdentity":`+fields+`}}`), metav1.PatchOptions{})
	return err
}

// tokenProjection is the pod's pod identity token, or nil.
func tokenProjection(pod *corev1.Pod) *corev1.ServiceAccountTokenProjection {
	v := podVolume(pod, podidentity.VolumeName)
	if v == nil || v.Projected == nil || len(v.Projected.Sources) != 1 {
		return nil
	}
	return v.Projected.Sources[0].ServiceAccountToken
}

// An admin changes the cluster-wide defaults in spec.podIdentity; the
// running webhook, not restarted and its Deployment not rolled, gives new
// pods the new audience, lifetime and STS endpoint, while a ServiceAccount's
// own annotation still wins. Values the webhook could not use are refused
// by the API server.
func TestPodIdentityDefaultsFollowTheWorkloadAccess(t *testing.T) {
	dumpOnFailure(t)
	w := ensureWebhook(t)
	ctx := context.Background()
	pid := w.PID()
	deployment, err := env.kube.AppsV1().Deployments(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns := testNamespace(t, "pod-identity-defaults-")
	createServiceAccount(t, ns, "reader", map[string]string{podidentityv1alpha1.RoleARNAnnotation: e2eRoleARN})
	createServiceAccount(t, ns, "own-audience", map[string]string{podidentityv1alpha1.RoleARNAnnotation: e2eRoleARN, podidentityv1alpha1.AudienceAnnotation: "own.example"})
	newPod := func(serviceAccount string, dryRun bool) (*corev1.Pod, error) {
		pod := testPod(nil)
		pod.Spec.ServiceAccountName = serviceAccount
		options := metav1.CreateOptions{}
		if dryRun {
			options.DryRun = []string{metav1.DryRunAll}
		}
		return env.kube.CoreV1().Pods(ns).Create(ctx, pod, options)
	}
	// Before: the webhook's defaults.
	before, err := newPod("reader", false)
	if err != nil {
		t.Fatal(err)
	}
	if token := tokenProjection(before); token == nil || token.Audience != "sts.amazonaws.com" || ptr.Deref(token.ExpirationSeconds, 0) != 86400 {
		t.Fatalf("before any default is set: token %+v, want sts.amazonaws.com for 86400 s", token)
	}

	t.Cleanup(func() {
		if err := patchPodIdentity(ctx, `{"defaultAudience":null,"defaultTokenExpirationSeconds":null,"defaultSTSEndpoints":null}`); err != nil {
			t.Errorf("restoring spec.podIdentity: %v", err)
		}
	})
	if err := patchPodIdentity(ctx, `{"defaultAudience":"sts.example.com","defaultTokenExpirationSeconds":3600,"defaultSTSEndpoints":"Regional"}`); err != nil {
		t.Fatal(err)
	}
	// The webhook's informer brings the change within moments; dry-run pods
	// ask until it has.
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		pod, err := newPod("reader", true)
		if err != nil {
			return err
		}
		if token := tokenProjection(pod); token == nil || token.Audience != "sts.example.com" {
			return fmt.Errorf("token %+v, want audience sts.example.com", token)
		}
		return nil
	})
	after, err := newPod("reader", false)
	if err != nil {
		t.Fatal(err)
	}
	if token := tokenProjection(after); token == nil || token.Audience != "sts.example.com" || ptr.Deref(token.ExpirationSeconds, 0) != 3600 {
		t.Errorf("stored pod: token %+v, want sts.example.com for 3600 s", token)
	}
	wantCredentials(t, after.Spec.Containers[0], map[string]string{"AWS_ROLE_ARN": e2eRoleARN, "AWS_STS_REGIONAL_ENDPOINTS": "regional"})
	own, err := newPod("own-audience", false)
	if err != nil {
		t.Fatal(err)
	}
	if token := tokenProjection(own); token == nil || token.Audience != "own.example" || ptr.Deref(token.ExpirationSeconds, 0) != 3600 {
		t.Errorf("the ServiceAccount's audience annotation must win over the default: token %+v", token)
	}

	// The same process, and no rollout of the Deployment.
	if w.Exited() || w.PID() != pid {
		t.Errorf("the webhook process changed: pid %d, was %d (exited %v)", w.PID(), pid, w.Exited())
	}
	now, err := env.kube.AppsV1().Deployments(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if now.Generation != deployment.Generation {
		t.Errorf("the webhook Deployment changed (generation %d, was %d): a default change must not roll the webhook", now.Generation, deployment.Generation)
	}

	// The CRD refuses what the webhook could not use.
	for _, bad := range []struct{ patch, want string }{
		{`{"defaultAudience":" sts.example.com"}`, "leading or trailing spaces"},
		{`{"defaultAudience":""}`, "defaultAudience"},
		{`{"defaultTokenExpirationSeconds":599}`, "defaultTokenExpirationSeconds"},
		{`{"defaultTokenExpirationSeconds":4294967297}`, "defaultTokenExpirationSeconds"},
		{`{"defaultSTSEndpoints":"Global"}`, "defaultSTSEndpoints"},
	} {
		err := patchPodIdentity(ctx, bad.patch)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("spec.podIdentity %s: got %v, want a refusal naming %q", bad.patch, err, bad.want)
		}
	}
}

// A Windows pod gets the token file at its Windows path, whether it says
// so by spec.os.name or, as before that field, by its node selector.
func TestPodIdentityWindowsPod(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	ns := testNamespace(t, "pod-identity-windows-")
	createServiceAccount(t, ns, "reader", map[string]string{podidentityv1alpha1.RoleARNAnnotation: e2eRoleARN})
	const windowsToken = `C:\var\run\secrets\eks.amazonaws.com\serviceaccount\token`

	// spec.os.name windows: the API server refuses Linux-only security
	// fields in it.
	byOS := testPod(nil)
	byOS.Spec.ServiceAccountName = "reader"
	byOS.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
	byOS.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{RunAsNonRoot: ptr.To(true)}
	byNodeSelector := testPod(nil)
	byNodeSelector.Spec.ServiceAccountName = "reader"
	byNodeSelector.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "windows"}
	linux := testPod(nil)
	linux.Spec.ServiceAccountName = "reader"

	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"spec.os.name windows", byOS, windowsToken},
		{"nodeSelector kubernetes.io/os=windows", byNodeSelector, windowsToken},
		{"a Linux pod of the same ServiceAccount", linux, tokenDir + "/token"},
	} {
		created, err := env.kube.CoreV1().Pods(ns).Create(ctx, tc.pod, metav1.CreateOptions{})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		// What the API server stored, not what it answered.
		stored, err := env.kube.CoreV1().Pods(ns).Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wantCredentials(t, stored.Spec.Containers[0], map[string]string{"AWS_ROLE_ARN": e2eRoleARN, "AWS_WEB_IDENTITY_TOKEN_FILE": tc.want})
		if tokenProjection(stored) == nil {
			t.Errorf("%s: no token volume", tc.name)
		}
	}
}

// spec.podIdentity.region takes the region of every AWS partition the
// operator knows (podidentity.Partition), eusc- included, and refuses what
// is not a region.
func TestPodIdentityRegionOfEveryPartition(t *testing.T) {
	ctx := context.Background()
	dry := metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}
	patch := func(region string) error {
		_, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Patch(ctx, "cluster", "application/merge-patch+json",
			[]byte(`{"spec":{"podIdentity":{"region":"`+region+`"}}}`), dry)
		return err
	}
	for _, region := range []string{"us-east-1", "eu-west-3", "cn-north-1", "us-gov-west-1", "us-isob-east-1", "eu-isoe-west-1", "eusc-de-east-1"} {
		if err := patch(region); err != nil {
			t.Errorf("region %s refused: %v", region, err)
		}
	}
	for _, region := range []string{"EU-west-1", "us-east", "useast1", "eu-west-1a"} {
		if err := patch(region); !apierrors.IsInvalid(err) {
			t.Errorf("region %s: %v, want Invalid", region, err)
		}
	}
}
