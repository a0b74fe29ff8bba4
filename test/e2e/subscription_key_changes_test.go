package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// statusFollowsWithin is how long a change of a referenced Secret may take
// to reach bundle status (issue 13).
const statusFollowsWithin = 5 * time.Second

// timeUntil polls done every 20 ms and returns how long it took to hold,
// waiting up to 30 s so that a slow result is measured rather than cut off.
func timeUntil(t *testing.T, what string, done func(ctx context.Context) (bool, error)) time.Duration {
	t.Helper()
	start := time.Now()
	if err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, done); err != nil {
		t.Fatalf("%s: not after %s: %v", what, time.Since(start).Round(time.Millisecond), err)
	}
	return time.Since(start)
}

// expectWithin fails when took exceeds statusFollowsWithin, and logs it.
func expectWithin(t *testing.T, what string, took time.Duration) {
	t.Helper()
	t.Logf("%s after %s", what, took.Round(time.Millisecond))
	if took > statusFollowsWithin {
		t.Errorf("%s after %s, want within %s", what, took.Round(time.Millisecond), statusFollowsWithin)
	}
}

// setSecretKeys replaces the keys of Secret ns/name.
func setSecretKeys(t *testing.T, ns, name string, keys ...string) {
	t.Helper()
	data := map[string][]byte{}
	for _, k := range keys {
		data[k] = []byte("not a real key: " + k)
	}
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := env.kube.CoreV1().Secrets(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s.Data = data
		_, err = env.kube.CoreV1().Secrets(ns).Update(context.Background(), s, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// keysAre says whether refs hold exactly one reference, with exactly keys.
func keysAre(refs []v1alpha1.ResolvedReference, keys ...string) bool {
	return len(refs) == 1 && slices.Equal(refs[0].Keys, keys)
}

// A routine entitlement refresh renames every key (certificates are named
// <serial>.pem). The new names reach Bundle and ClusterBundle status within
// seconds, and a pod created afterwards mounts the new key, not the old one.
// The pod asks for both bundles, so its entitlement keys come from two
// volumes and each key is its own subPath mount: the case the key names in
// status decide.
func TestRenamedKeysReachStatusAndPodsWithinSeconds(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	source := testNamespace(t, "key-source-")
	createSecret(t, source, "etc-pki-entitlement", "c.pem")
	cb := createClusterBundle(t, "e2e-keys-", nil, v1alpha1.ClusterBundleSpec{
		AggregateToClusterRoles: []string{"edit"},
		Entitlements:            []v1alpha1.ClusterReference{{Namespace: source, Name: "etc-pki-entitlement"}},
	}, metav1.ConditionFalse)
	share := cb.Status.Entitlements[0].Share
	ns := testNamespace(t, "key-changes-")
	createSecret(t, ns, "ent", "a.pem")
	createBundle(t, ns, "rhel", nil, v1alpha1.BundleSpec{Entitlements: localRefs("ent")}, metav1.ConditionFalse)
	if _, err := env.kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	grantEdit(t, ns, "builder-edit", rbacv1.Subject{Kind: "ServiceAccount", Name: "builder", Namespace: ns})

	// (a) A Bundle's Secret: a.pem becomes b.pem.
	setSecretKeys(t, ns, "ent", "b.pem")
	took := timeUntil(t, "Bundle status lists b.pem alone", func(ctx context.Context) (bool, error) {
		b, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Get(ctx, "rhel", metav1.GetOptions{})
		return err == nil && keysAre(b.Status.Entitlements, "b.pem"), err
	})
	expectWithin(t, "Bundle status lists b.pem and not a.pem", took)

	// (b) A ClusterBundle's Secret in another namespace: c.pem becomes d.pem;
	// the share stays as it was (it names the Secret, not its keys).
	setSecretKeys(t, source, "etc-pki-entitlement", "d.pem")
	var got *v1alpha1.ClusterBundle
	took = timeUntil(t, "ClusterBundle status lists d.pem alone", func(ctx context.Context) (bool, error) {
		var err error
		got, err = env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, cb.Name, metav1.GetOptions{})
		return err == nil && keysAre(got.Status.Entitlements, "d.pem"), err
	})
	expectWithin(t, "ClusterBundle status lists d.pem and not c.pem", took)
	if got.Status.Entitlements[0].Share != share || !slices.Equal(got.Status.Shares, cb.Status.Shares) {
		t.Errorf("shares changed with the keys: %+v, was %+v", got.Status, cb.Status)
	}
	if s, err := shareClient(t).SharedresourceV1alpha1().SharedSecrets().Get(ctx, share, metav1.GetOptions{}); err != nil ||
		s.Spec.SecretRef.Namespace != source || s.Spec.SecretRef.Name != "etc-pki-entitlement" {
		t.Errorf("SharedSecret %s: %+v, %v", share, s, err)
	}

	// A new pod mounts the new keys, once the webhook's cache has the new
	// status (and the kube-controller-manager has aggregated the bundle's
	// role into edit).
	p := testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel", v1alpha1.InjectClusterBundleAnnotation: cb.Name})
	p.Spec.ServiceAccountName = "builder"
	var lastErr error
	var mounts string
	start := time.Now()
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		dry, err := env.kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if ctx.Err() == nil {
			lastErr = err
		}
		if err != nil {
			return false, nil
		}
		mounts = mountList(dry.Spec.Containers[0].VolumeMounts)
		return strings.Contains(mounts, "/b.pem:") && strings.Contains(mounts, "/d.pem:"), nil
	}); err != nil {
		t.Fatalf("no pod with the new keys after %s: last error %v, mounts %s", time.Since(start).Round(time.Millisecond), lastErr, mounts)
	}
	t.Logf("the webhook mounted the new keys %s after the ClusterBundle status had them", time.Since(start).Round(time.Millisecond))
	pod, err := env.kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var shareVolume string
	for _, v := range pod.Spec.Volumes {
		if v.CSI != nil && v.CSI.VolumeAttributes["sharedSecret"] == share {
			shareVolume = v.Name
		}
	}
	want := strings.Join([]string{
		tokenMount(pod.Spec.Containers[0]),
		"subscription-entitlements@/run/secrets/etc-pki-entitlement/b.pem:b.pem",
		shareVolume + "@/run/secrets/etc-pki-entitlement/d.pem:d.pem",
	}, " ")
	if m := mountList(pod.Spec.Containers[0].VolumeMounts); m != want {
		t.Errorf("stored pod mounts\n%s\nwant\n%s", m, want)
	}
	for _, old := range []string{"a.pem", "c.pem"} {
		for _, m := range pod.Spec.Containers[0].VolumeMounts {
			if strings.Contains(m.SubPath, old) || strings.Contains(m.MountPath, old) {
				t.Errorf("the stored pod still mounts the removed key %s: %s", old, mountList(pod.Spec.Containers[0].VolumeMounts))
			}
		}
	}
}

// (c) A Secret created after the bundle that names it makes the bundle valid
// within seconds, not at the 15-second retry for missing references: the
// Secret is created right after the bundle was found Invalid.
func TestSecretCreatedAfterItsBundleValidatesItWithinSeconds(t *testing.T) {
	dumpOnFailure(t)
	ns := testNamespace(t, "key-late-")
	b := createBundle(t, ns, "late", nil, v1alpha1.BundleSpec{Entitlements: localRefs("ent")}, metav1.ConditionTrue)
	expectMissingReference(t, b.Status.Conditions)
	createSecret(t, ns, "ent", "e.pem")
	took := timeUntil(t, "the Bundle is valid", func(ctx context.Context) (bool, error) {
		b, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Get(ctx, "late", metav1.GetOptions{})
		return err == nil && validWithKeys(b.Status.Conditions, b.Status.Entitlements, "e.pem"), err
	})
	expectWithin(t, "a Bundle whose Secret was created later is valid", took)

	cb := createClusterBundle(t, "e2e-late-", nil, v1alpha1.ClusterBundleSpec{
		Entitlements: []v1alpha1.ClusterReference{{Namespace: ns, Name: "cluster-ent"}},
	}, metav1.ConditionTrue)
	expectMissingReference(t, cb.Status.Conditions)
	createSecret(t, ns, "cluster-ent", "c.pem")
	took = timeUntil(t, "the ClusterBundle is valid", func(ctx context.Context) (bool, error) {
		got, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, cb.Name, metav1.GetOptions{})
		return err == nil && validWithKeys(got.Status.Conditions, got.Status.Entitlements, "c.pem"), err
	})
	expectWithin(t, "a ClusterBundle whose Secret was created later is valid", took)
}

func expectMissingReference(t *testing.T, conditions []metav1.Condition) {
	t.Helper()
	if c := meta.FindStatusCondition(conditions, v1alpha1.ConditionInvalid); c == nil || c.Reason != v1alpha1.ReasonMissingReference {
		t.Fatalf("Invalid condition %+v, want reason %s", c, v1alpha1.ReasonMissingReference)
	}
}

func validWithKeys(conditions []metav1.Condition, refs []v1alpha1.ResolvedReference, keys ...string) bool {
	c := meta.FindStatusCondition(conditions, v1alpha1.ConditionInvalid)
	return c != nil && c.Status == metav1.ConditionFalse && keysAre(refs, keys...)
}

// A key renamed and a pod created at once, before any status can follow:
// entitlement keys from a single volume (one Bundle, or one ClusterBundle)
// are mounted as the whole directory, so the pod names no key at all and the
// kubelet mounts whatever the Secret holds when the container starts — the
// new key, not the old one. (Keys mounted one by one are the documented
// exception: docs/subscriptions.md, Known limits.)
func TestKeyRenamedAtOncePodMountsTheWholeDirectory(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	source := testNamespace(t, "at-once-source-")
	createSecret(t, source, "etc-pki-entitlement", "c.pem")
	cb := createClusterBundle(t, "e2e-at-once-", nil, v1alpha1.ClusterBundleSpec{
		AggregateToClusterRoles: []string{"edit"},
		Entitlements:            []v1alpha1.ClusterReference{{Namespace: source, Name: "etc-pki-entitlement"}},
	}, metav1.ConditionFalse)
	ns := testNamespace(t, "at-once-")
	createSecret(t, ns, "ent", "a.pem")
	createBundle(t, ns, "rhel", nil, v1alpha1.BundleSpec{Entitlements: localRefs("ent")}, metav1.ConditionFalse)
	if _, err := env.kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	grantEdit(t, ns, "builder-edit", rbacv1.Subject{Kind: "ServiceAccount", Name: "builder", Namespace: ns})
	clusterPod := testPod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: cb.Name})
	clusterPod.Spec.ServiceAccountName = "builder"
	// Until the kube-controller-manager has aggregated the bundle's role into
	// edit, the builder may not use the ClusterBundle.
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := env.kube.CoreV1().Pods(ns).Create(ctx, clusterPod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err == nil, nil
	}); err != nil {
		t.Fatalf("the builder never got the ClusterBundle: %v", err)
	}

	for _, tc := range []struct {
		name            string
		secretNS        string
		secret, renamed string
		pod             *corev1.Pod
	}{
		{"Bundle", ns, "ent", "b.pem", testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"})},
		{"ClusterBundle", source, "etc-pki-entitlement", "d.pem", clusterPod},
	} {
		setSecretKeys(t, tc.secretNS, tc.secret, tc.renamed)
		pod, err := env.kube.CoreV1().Pods(ns).Create(ctx, tc.pod, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("%s: pod created right after the rename: %v", tc.name, err)
		}
		var entitlementMounts []string
		for _, m := range pod.Spec.Containers[0].VolumeMounts {
			if strings.HasPrefix(m.MountPath, "/run/secrets/etc-pki-entitlement") {
				entitlementMounts = append(entitlementMounts, m.Name+"@"+m.MountPath+":"+m.SubPath)
			}
		}
		if len(entitlementMounts) != 1 || !strings.HasSuffix(entitlementMounts[0], "@/run/secrets/etc-pki-entitlement:") {
			t.Errorf("%s: want the entitlement directory mounted whole (no key named), got %v", tc.name, entitlementMounts)
		}
		for _, v := range pod.Spec.Volumes {
			if v.Projected == nil {
				continue
			}
			for _, s := range v.Projected.Sources {
				if s.Secret != nil && len(s.Secret.Items) > 0 {
					t.Errorf("%s: projected Secret %s names keys %v: the kubelet would not mount what it holds now", tc.name, s.Secret.Name, s.Secret.Items)
				}
			}
		}
	}
}

// A referenced Secret deleted makes its bundles Invalid within seconds, and
// made again under its name (another UID) valid again. The Secrets exist
// before the bundles, so the operator's watch never kept them (it keeps only
// what bundles reference, referencewatch): the delete is noticed by the
// bundles' index, not by what was held.
func TestSecretDeletedUnderItsBundlesInvalidatesThemWithinSeconds(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	ns := testNamespace(t, "key-deleted-")
	createSecret(t, ns, "ent", "a.pem")
	createSecret(t, ns, "cluster-ent", "c.pem")
	// The operator's watch sees the Secrets created before any bundle
	// references them: had their events come after the bundles, it would
	// keep them.
	time.Sleep(time.Second)
	createBundle(t, ns, "gone", nil, v1alpha1.BundleSpec{Entitlements: localRefs("ent")}, metav1.ConditionFalse)
	cb := createClusterBundle(t, "e2e-gone-", nil, v1alpha1.ClusterBundleSpec{
		Entitlements: []v1alpha1.ClusterReference{{Namespace: ns, Name: "cluster-ent"}},
	}, metav1.ConditionFalse)
	missing := func(conditions []metav1.Condition) bool {
		c := meta.FindStatusCondition(conditions, v1alpha1.ConditionInvalid)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == v1alpha1.ReasonMissingReference
	}
	bundle := func(ctx context.Context) (*v1alpha1.Bundle, error) {
		return env.operator.SubscriptionV1alpha1().Bundles(ns).Get(ctx, "gone", metav1.GetOptions{})
	}
	clusterBundle := func(ctx context.Context) (*v1alpha1.ClusterBundle, error) {
		return env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, cb.Name, metav1.GetOptions{})
	}

	// Each bundle's status write wakes it once more; let that sync pass, so
	// that what follows the delete can only be the delete's wakeup.
	time.Sleep(2 * time.Second)
	for _, name := range []string{"ent", "cluster-ent"} {
		if err := env.kube.CoreV1().Secrets(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	took := timeUntil(t, "the Bundle is missing its Secret", func(ctx context.Context) (bool, error) {
		b, err := bundle(ctx)
		return err == nil && missing(b.Status.Conditions), err
	})
	expectWithin(t, "a Bundle whose Secret was deleted is Invalid", took)
	took = timeUntil(t, "the ClusterBundle is missing its Secret", func(ctx context.Context) (bool, error) {
		got, err := clusterBundle(ctx)
		return err == nil && missing(got.Status.Conditions), err
	})
	expectWithin(t, "a ClusterBundle whose Secret was deleted is Invalid", took)

	createSecret(t, ns, "ent", "b.pem")
	createSecret(t, ns, "cluster-ent", "d.pem")
	took = timeUntil(t, "the Bundle is valid again", func(ctx context.Context) (bool, error) {
		b, err := bundle(ctx)
		return err == nil && validWithKeys(b.Status.Conditions, b.Status.Entitlements, "b.pem"), err
	})
	expectWithin(t, "a Bundle whose Secret was made again is valid", took)
	took = timeUntil(t, "the ClusterBundle is valid again", func(ctx context.Context) (bool, error) {
		got, err := clusterBundle(ctx)
		return err == nil && validWithKeys(got.Status.Conditions, got.Status.Entitlements, "d.pem"), err
	})
	expectWithin(t, "a ClusterBundle whose Secret was made again is valid", took)
}
