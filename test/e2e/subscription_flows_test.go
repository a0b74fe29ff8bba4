package e2e

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// editor creates service account name in ns, bound to the built-in edit
// role, into which the test's ClusterBundles aggregate.
func editor(t *testing.T, ns, name string) {
	t.Helper()
	if _, err := env.kube.CoreV1().ServiceAccounts(ns).Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	grantEdit(t, ns, name+"-edit", rbacv1.Subject{Kind: "ServiceAccount", Name: name, Namespace: ns})
}

func podAs(sa string, annotations map[string]string) *corev1.Pod {
	p := testPod(annotations)
	p.Spec.ServiceAccountName = sa
	return p
}

// waitMayInject waits until a pod of ns/sa asking for each cluster bundle is
// admitted: the kube-controller-manager aggregates their roles into edit
// asynchronously.
func waitMayInject(t *testing.T, ns, sa string, clusterBundles ...string) {
	t.Helper()
	for _, name := range clusterBundles {
		var last error
		if err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, last = env.kube.CoreV1().Pods(ns).Create(ctx, podAs(sa, map[string]string{v1alpha1.InjectClusterBundleAnnotation: name}),
				metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return last == nil, nil
		}); err != nil {
			t.Fatalf("%s/%s never got cluster bundle %s: %v", ns, sa, name, last)
		}
	}
}

// csiVolume is p's Shared Resource CSI volume of the share, by attribute
// ("sharedSecret" or "sharedConfigMap").
func csiVolume(p *corev1.Pod, attribute, share string) *corev1.Volume {
	for i, v := range p.Spec.Volumes {
		if v.CSI != nil && v.CSI.Driver == "csi.sharedresource.openshift.io" && v.CSI.VolumeAttributes[attribute] == share {
			return &p.Spec.Volumes[i]
		}
	}
	return nil
}

func csiVolumes(p *corev1.Pod) int {
	n := 0
	for _, v := range p.Spec.Volumes {
		if v.CSI != nil {
			n++
		}
	}
	return n
}

// A ClusterBundle's yum repository ConfigMap reaches pods through a
// read-only SharedConfigMap volume, one subPath mount per key at
// /run/secrets/<key>.
func TestClusterBundleYumRepositoriesInPods(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	source := testNamespace(t, "yum-source-")
	createConfigMap(t, source, "repos", "redhat.repo", "satellite.repo")
	cb := createClusterBundle(t, "e2e-yum-", nil, v1alpha1.ClusterBundleSpec{
		AggregateToClusterRoles: []string{"edit"},
		YumRepositories:         []v1alpha1.ClusterReference{{Namespace: source, Name: "repos"}},
	}, metav1.ConditionFalse)
	ns := testNamespace(t, "yum-")
	editor(t, ns, "builder")
	waitMayInject(t, ns, "builder", cb.Name)

	got, err := env.kube.CoreV1().Pods(ns).Create(ctx, podAs("builder", map[string]string{v1alpha1.InjectClusterBundleAnnotation: cb.Name}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	share := cb.Status.YumRepositories[0].Share
	volume := csiVolume(got, "sharedConfigMap", share)
	if volume == nil || !ptr.Deref(volume.CSI.ReadOnly, false) || len(got.Spec.Volumes) != 2 {
		t.Fatalf("no single read-only SharedConfigMap volume for share %q: %+v", share, got.Spec.Volumes)
	}
	want := fmt.Sprintf("%s %s@/run/secrets/redhat.repo:redhat.repo %s@/run/secrets/satellite.repo:satellite.repo",
		tokenMount(got.Spec.Containers[0]), volume.Name, volume.Name)
	if m := mountList(got.Spec.Containers[0].VolumeMounts); m != want {
		t.Errorf("mounts = %s\nwant %s", m, want)
	}
}

// allow-bundles and deny-bundles pick always-inject Bundles by name; a
// bundle the pod asks for is injected whatever deny-bundles says.
func TestAllowAndDenyBundlesByName(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	ns := testNamespace(t, "allow-deny-")
	createSecret(t, ns, "a", "a.pem")
	createSecret(t, ns, "b", "b.pem")
	always := map[string]string{v1alpha1.AlwaysInjectLabel: "true"}
	createBundle(t, ns, "auto-a", always, v1alpha1.BundleSpec{Entitlements: localRefs("a")}, metav1.ConditionFalse)
	createBundle(t, ns, "auto-b", always, v1alpha1.BundleSpec{Entitlements: localRefs("b")}, metav1.ConditionFalse)

	for _, tc := range []struct {
		name        string
		annotations map[string]string
		want        string // the entitlement volume's Secrets
	}{
		{"nothing asked", nil, "a,b"},
		{"deny one", map[string]string{v1alpha1.DenyBundlesAnnotation: "auto-a"}, "b"},
		{"allow one", map[string]string{v1alpha1.AllowBundlesAnnotation: "auto-b"}, "b"},
		{"allow another", map[string]string{v1alpha1.AllowBundlesAnnotation: "auto-c"}, ""},
		{"deny all but ask for one", map[string]string{v1alpha1.DenyBundlesAnnotation: "*", v1alpha1.InjectBundleAnnotation: "auto-a"}, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(tc.annotations), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil {
				t.Fatal(err)
			}
			var secrets []string
			if v := podVolume(got, "subscription-entitlements"); v != nil && v.Projected != nil {
				for _, s := range v.Projected.Sources {
					secrets = append(secrets, s.Secret.Name)
				}
			}
			if s := strings.Join(secrets, ","); s != tc.want {
				t.Errorf("entitlements from %q, want %q", s, tc.want)
			}
		})
	}
}

// ClusterBundles a pod asks for must not share a key; deny-cluster-bundles
// "*" keeps always-inject ClusterBundles out; a deleted ClusterBundle
// refuses new pods and leaves running ones alone.
func TestClusterBundleOverlapDenyAllAndDeletion(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	source := testNamespace(t, "cluster-flows-source-")
	createSecret(t, source, "one", "k.pem", "one.pem")
	createSecret(t, source, "two", "k.pem")
	createSecret(t, source, "auto", "auto.pem")
	edit := []string{"edit"}
	one := createClusterBundle(t, "e2e-one-", nil, v1alpha1.ClusterBundleSpec{AggregateToClusterRoles: edit,
		Entitlements: []v1alpha1.ClusterReference{{Namespace: source, Name: "one"}}}, metav1.ConditionFalse)
	two := createClusterBundle(t, "e2e-two-", nil, v1alpha1.ClusterBundleSpec{AggregateToClusterRoles: edit,
		Entitlements: []v1alpha1.ClusterReference{{Namespace: source, Name: "two"}}}, metav1.ConditionFalse)
	ns := testNamespace(t, "cluster-flows-")
	editor(t, ns, "builder")
	waitMayInject(t, ns, "builder", one.Name, two.Name)

	t.Run("overlapping keys", func(t *testing.T) {
		_, err := env.kube.CoreV1().Pods(ns).Create(ctx, podAs("builder", map[string]string{v1alpha1.InjectClusterBundleAnnotation: one.Name + "," + two.Name}),
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			t.Fatal("a pod asking for two cluster bundles with the same key was admitted")
		}
		for _, want := range []string{deniedPrefix, `"k.pem"`, "secret " + source + "/one", "secret " + source + "/two", one.Name, two.Name} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("refusal %q does not name %s", err, want)
			}
		}
	})

	t.Run("deleted cluster bundle", func(t *testing.T) {
		running, err := env.kube.CoreV1().Pods(ns).Create(ctx, podAs("builder", map[string]string{v1alpha1.InjectClusterBundleAnnotation: two.Name}), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		share := two.Status.Entitlements[0].Share
		if csiVolume(running, "sharedSecret", share) == nil {
			t.Fatalf("the running pod has no volume of share %s: %+v", share, running.Spec.Volumes)
		}
		if err := env.operator.SubscriptionV1alpha1().ClusterBundles().Delete(ctx, two.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		want := deniedPrefix + fmt.Sprintf("cluster bundle %q requested by annotation %s does not exist", two.Name, v1alpha1.InjectClusterBundleAnnotation)
		var last error
		if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
			_, last = env.kube.CoreV1().Pods(ns).Create(ctx, podAs("builder", map[string]string{v1alpha1.InjectClusterBundleAnnotation: two.Name}),
				metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return last != nil && last.Error() == want, nil
		}); err != nil {
			t.Errorf("a new pod asking for the deleted bundle: %v, want %s", last, want)
		}
		// Once the garbage collector has removed the bundle's share, the
		// running pod is still there, as admitted.
		framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
			_, err := shareClient(t).SharedresourceV1alpha1().SharedSecrets().Get(ctx, share, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("share %s is still there (%v)", share, err)
			}
			return nil
		})
		now, err := env.kube.CoreV1().Pods(ns).Get(ctx, running.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the running pod is gone: %v", err)
		}
		if now.UID != running.UID || now.DeletionTimestamp != nil ||
			!reflect.DeepEqual(now.Spec.Volumes, running.Spec.Volumes) || !reflect.DeepEqual(now.Spec.Containers, running.Spec.Containers) ||
			!reflect.DeepEqual(now.Annotations, running.Annotations) {
			t.Errorf("the running pod changed:\nwas %+v\nnow %+v", running, now)
		}
	})

	t.Run("deny-cluster-bundles *", func(t *testing.T) {
		auto := createClusterBundle(t, "e2e-auto-", map[string]string{v1alpha1.AlwaysInjectLabel: "true"}, v1alpha1.ClusterBundleSpec{AggregateToClusterRoles: edit,
			Entitlements: []v1alpha1.ClusterReference{{Namespace: source, Name: "auto"}}}, metav1.ConditionFalse)
		share := auto.Status.Entitlements[0].Share
		// It reaches a pod that does not filter it, once aggregated.
		var got *corev1.Pod
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			p, err := env.kube.CoreV1().Pods(ns).Create(ctx, podAs("builder", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			got = p
			return err == nil && csiVolume(p, "sharedSecret", share) != nil, nil
		}); err != nil {
			t.Fatalf("the always-inject cluster bundle never reached the builder's pod: %+v", got)
		}
		denied, err := env.kube.CoreV1().Pods(ns).Create(ctx, podAs("builder", map[string]string{v1alpha1.DenyClusterBundlesAnnotation: "*"}),
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatal(err)
		}
		if n := csiVolumes(denied); n != 0 || denied.Annotations[v1alpha1.BundleGenerationsAnnotation] != "" {
			t.Errorf("deny-cluster-bundles=* still injected %d volumes: %+v", n, denied.Spec.Volumes)
		}
	})
}

// The webhook decides from bundle status and never reads a Secret: its
// service account may not get, list or watch any, anywhere.
func TestWebhookServiceAccountCannotReadSecrets(t *testing.T) {
	ctx := context.Background()
	ask := func(attributes authorizationv1.ResourceAttributes) bool {
		t.Helper()
		review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               "system:serviceaccount:" + operandNS + ":workload-access-webhook",
			Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + operandNS, "system:authenticated"},
			ResourceAttributes: &attributes,
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return review.Status.Allowed
	}
	// The review can say yes: the webhook reads ClusterBundles.
	if !ask(authorizationv1.ResourceAttributes{Verb: "list", Group: v1alpha1.GroupName, Resource: "clusterbundles"}) {
		t.Fatal("the webhook's service account may not list clusterbundles: the review does not describe it")
	}
	for _, ns := range []string{"", "openshift-config", operandNS} {
		for _, verb := range []string{"get", "list", "watch"} {
			if ask(authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Resource: "secrets"}) {
				t.Errorf("the webhook's service account may %s secrets in namespace %q", verb, ns)
			}
		}
	}
}
