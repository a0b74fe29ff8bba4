package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

const deniedPrefix = `admission webhook "` + requestedWebhook + `" denied the request: `

// createSecret creates a Secret in ns with the given key names.
func createSecret(t *testing.T, ns, name string, keys ...string) {
	t.Helper()
	data := map[string][]byte{}
	for _, k := range keys {
		data[k] = []byte("not a real key: " + k)
	}
	if _, err := env.kube.CoreV1().Secrets(ns).Create(context.Background(),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createConfigMap creates a ConfigMap in ns with a yum repository file for
// each key name.
func createConfigMap(t *testing.T, ns, name string, keys ...string) {
	t.Helper()
	data := map[string]string{}
	for _, k := range keys {
		data[k] = "[repo]\nbaseurl=https://satellite.invalid/" + k + "\n"
	}
	if _, err := env.kube.CoreV1().ConfigMaps(ns).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func localRefs(names ...string) []v1alpha1.LocalReference {
	var refs []v1alpha1.LocalReference
	for _, n := range names {
		refs = append(refs, v1alpha1.LocalReference{Name: n})
	}
	return refs
}

// createBundle creates a Bundle and waits until the operator has validated
// it, with Invalid as wanted.
func createBundle(t *testing.T, ns, name string, labels map[string]string, spec v1alpha1.BundleSpec, wantInvalid metav1.ConditionStatus) *v1alpha1.Bundle {
	t.Helper()
	ctx := context.Background()
	b, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Create(ctx,
		&v1alpha1.Bundle{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		b, err = env.operator.SubscriptionV1alpha1().Bundles(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(b.Status.Conditions, v1alpha1.ConditionInvalid)
		return b.Status.ObservedGeneration == b.Generation && c != nil && c.Status == wantInvalid, nil
	})
	if err != nil {
		t.Fatalf("bundle %s/%s never reached Invalid=%s: %v; status %+v", ns, name, wantInvalid, err, b.Status)
	}
	waitWebhookSees(t, ns, v1alpha1.InjectBundleAnnotation, name)
	return b
}

// waitWebhookSees waits until the webhook's informer has the bundle's
// current status, by dry-run pod creations, so a test never races the
// cache the webhook decides from.
func waitWebhookSees(t *testing.T, ns, annotation, name string) {
	t.Helper()
	waitServiceAccount(t, ns, "default")
	var last error
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = env.kube.CoreV1().Pods(ns).Create(ctx, testPod(map[string]string{annotation: name}), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return last == nil || !(strings.Contains(last.Error(), "does not exist") || strings.Contains(last.Error(), "has not been validated")), nil
	}); err != nil {
		t.Fatalf("the webhook never saw %s %q: %v", annotation, name, last)
	}
}

// createClusterBundle creates a uniquely named ClusterBundle, deleted at the
// end of the test, and waits until the operator has validated it.
func createClusterBundle(t *testing.T, prefix string, labels map[string]string, spec v1alpha1.ClusterBundleSpec, wantInvalid metav1.ConditionStatus) *v1alpha1.ClusterBundle {
	t.Helper()
	ctx := context.Background()
	cb, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Create(ctx,
		&v1alpha1.ClusterBundle{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix, Labels: labels}, Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	name := cb.Name
	t.Cleanup(func() {
		_ = env.operator.SubscriptionV1alpha1().ClusterBundles().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		cb, err = env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(cb.Status.Conditions, v1alpha1.ConditionInvalid)
		return cb.Status.ObservedGeneration == cb.Generation && c != nil && c.Status == wantInvalid, nil
	})
	if err != nil {
		t.Fatalf("cluster bundle %s never reached Invalid=%s: %v; status %+v", name, wantInvalid, err, cb.Status)
	}
	waitWebhookSees(t, "default", v1alpha1.InjectClusterBundleAnnotation, name)
	return cb
}

// waitServiceAccount waits for the service account controller to create
// the namespace's default account, as the ServiceAccount admission plugin
// requires before any pod.
func waitServiceAccount(t *testing.T, ns, name string) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := env.kube.CoreV1().ServiceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatalf("service account %s/%s: %v", ns, name, err)
	}
}

func mountList(mounts []corev1.VolumeMount) string {
	var out []string
	for _, m := range mounts {
		s := m.Name + "@" + m.MountPath
		if m.SubPath != "" {
			s += ":" + m.SubPath
		}
		if !m.ReadOnly {
			s += "(rw)"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func podVolume(p *corev1.Pod, name string) *corev1.Volume {
	for i := range p.Spec.Volumes {
		if p.Spec.Volumes[i].Name == name {
			return &p.Spec.Volumes[i]
		}
	}
	return nil
}

// tokenMount is c's service account token mount, in mountList's form, or
// "" when it has none.
func tokenMount(c corev1.Container) string {
	for _, m := range c.VolumeMounts {
		if strings.HasPrefix(m.Name, "kube-api-access-") {
			return m.Name + "@" + m.MountPath
		}
	}
	return ""
}

// Namespaced bundles asked for by annotation, plus an always-inject one,
// land in every container, in one projected entitlement directory; the
// stored pod records what was injected.
func TestBundlesAreInjectedIntoPods(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ns := testNamespace(t, "bundles-")
	ctx := context.Background()
	createSecret(t, ns, "ent-a", "1.pem", "1-key.pem")
	createSecret(t, ns, "ent-b", "2.pem")
	createSecret(t, ns, "ent-auto", "3.pem")
	createConfigMap(t, ns, "satellite", "redhat.repo")
	rhel := createBundle(t, ns, "rhel", nil, v1alpha1.BundleSpec{Entitlements: localRefs("ent-a"), YumRepositories: localRefs("satellite")}, metav1.ConditionFalse)
	driver := createBundle(t, ns, "driver", nil, v1alpha1.BundleSpec{Entitlements: localRefs("ent-b")}, metav1.ConditionFalse)
	auto := createBundle(t, ns, "auto", map[string]string{v1alpha1.AlwaysInjectLabel: "true"}, v1alpha1.BundleSpec{Entitlements: localRefs("ent-auto")}, metav1.ConditionFalse)
	waitServiceAccount(t, ns, "default")

	p := testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel,driver"})
	p.Spec.InitContainers = []corev1.Container{{Name: "prepare", Image: "registry.invalid/e2e/prepare:1", SecurityContext: p.Spec.Containers[0].SecurityContext}}
	got, err := env.kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ent := podVolume(got, "subscription-entitlements")
	if ent == nil || ent.Projected == nil {
		t.Fatalf("no projected entitlement volume: %+v", got.Spec.Volumes)
	}
	var secrets []string
	for _, s := range ent.Projected.Sources {
		secrets = append(secrets, s.Secret.Name)
	}
	if strings.Join(secrets, ",") != "ent-a,ent-b,ent-auto" {
		t.Errorf("entitlement sources = %v, want ent-a,ent-b,ent-auto", secrets)
	}
	if repo := podVolume(got, "subscription-yum-repos"); repo == nil || repo.Projected == nil || repo.Projected.Sources[0].ConfigMap.Name != "satellite" {
		t.Errorf("repo volume = %+v", repo)
	}
	injected := "subscription-entitlements@/run/secrets/etc-pki-entitlement subscription-yum-repos@/run/secrets/redhat.repo:redhat.repo"
	if m := mountList(got.Spec.InitContainers[0].VolumeMounts); m != strings.TrimSpace(tokenMount(got.Spec.InitContainers[0])+" "+injected) {
		t.Errorf("init container mounts = %s", m)
	}
	if m := mountList(got.Spec.Containers[0].VolumeMounts); m != tokenMount(got.Spec.Containers[0])+" "+injected {
		t.Errorf("container mounts = %s, want token + %s", m, injected)
	}
	want := fmt.Sprintf(`{"bundles":{"auto":%d,"driver":%d,"rhel":%d}}`, auto.Generation, driver.Generation, rhel.Generation)
	if g := bundlesRecord(t, got); g != want {
		t.Errorf("bundle-generations = %s, want %s", g, want)
	}
	if _, volumes := recordedBundles(t, got); !slices.Equal(volumes, []string{"subscription-entitlements", "subscription-yum-repos"}) {
		t.Errorf("recorded volumes = %q", volumes)
	}

	// Opting out of always-inject bundles.
	plain, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(map[string]string{v1alpha1.DenyBundlesAnnotation: "*"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if podVolume(plain, "subscription-entitlements") != nil || plain.Annotations[v1alpha1.BundleGenerationsAnnotation] != "" {
		t.Errorf("deny-bundles=* still injected: %+v", plain.Spec.Volumes)
	}
	// Asking for nothing gets the always-inject bundle.
	autoPod, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := autoPod.Annotations[v1alpha1.BundleGenerationsAnnotation]; g != fmt.Sprintf(`{"bundles":{"auto":%d},"volumes":["subscription-entitlements"]}`, auto.Generation) {
		t.Errorf("always-inject pod generations = %q", g)
	}

	// A debug container added later gets the entitlements too.
	// (kwok updates the pod's status meanwhile: read, add, retry on conflict, as kubectl debug does)
	var debugged *corev1.Pod
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := env.kube.CoreV1().Pods(ns).Get(ctx, got.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		current.Spec.EphemeralContainers = append(current.Spec.EphemeralContainers, corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
			Name: "debugger", Image: "registry.invalid/e2e/debug:1", SecurityContext: p.Spec.Containers[0].SecurityContext,
		}})
		debugged, err = env.kube.CoreV1().Pods(ns).UpdateEphemeralContainers(ctx, got.Name, current, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wantDebug := "subscription-entitlements@/run/secrets/etc-pki-entitlement subscription-yum-repos@/run/secrets/subscription/subscription-yum-repos"
	if m := mountList(debugged.Spec.EphemeralContainers[0].VolumeMounts); m != wantDebug {
		t.Errorf("ephemeral container mounts = %s, want %s", m, wantDebug)
	}

	// Deleting a bundle refuses new pods that ask for it.
	if err := env.operator.SubscriptionV1alpha1().Bundles(ns).Delete(ctx, "driver", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	wantErr := deniedPrefix + fmt.Sprintf(`bundle "driver" requested by annotation %s does not exist in namespace %q`, v1alpha1.InjectBundleAnnotation, ns)
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "driver"}), metav1.CreateOptions{})
		return err != nil && err.Error() == wantErr, nil
	}); err != nil {
		t.Errorf("pod asking for a deleted bundle was not refused with %q", wantErr)
	}
}

// A ClusterBundle is mounted through the Shared Resource CSI driver, only
// into pods whose service account may get it: here through the built-in
// edit role, into which the operator's ClusterRole aggregates.
func TestClusterBundleAccessThroughAggregatedEdit(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	source := testNamespace(t, "entitlements-")
	createSecret(t, source, "etc-pki-entitlement", "e.pem", "e-key.pem")
	createSecret(t, source, "extra", "x.pem")
	cb := createClusterBundle(t, "e2e-edit-", nil, v1alpha1.ClusterBundleSpec{
		AggregateToClusterRoles: []string{"edit"},
		Entitlements:            []v1alpha1.ClusterReference{{Namespace: source, Name: "etc-pki-entitlement"}, {Namespace: source, Name: "extra"}},
	}, metav1.ConditionFalse)

	ns := testNamespace(t, "cluster-bundle-")
	for _, sa := range []string{"builder", "outsider"} {
		if _, err := env.kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	grantEdit(t, ns, "builder-edit", rbacv1.Subject{Kind: "ServiceAccount", Name: "builder", Namespace: ns})
	podFor := func(sa string) *corev1.Pod {
		p := testPod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: cb.Name})
		p.Spec.ServiceAccountName = sa
		return p
	}

	// The kube-controller-manager aggregates the bundle's role into edit
	// asynchronously; once it has, the builder's pod is admitted.
	var got *corev1.Pod
	var lastErr error
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		got, err = env.kube.CoreV1().Pods(ns).Create(ctx, podFor("builder"), metav1.CreateOptions{})
		if ctx.Err() == nil {
			lastErr = err // not the poll's own deadline
		}
		return err == nil, nil
	}); err != nil {
		t.Fatalf("builder (edit in its namespace) was never admitted: %v", lastErr)
	}
	var wantMounts []string
	shares := map[string]string{}
	for _, r := range cb.Status.Entitlements {
		shares[r.Name] = r.Share
	}
	for _, secret := range []struct{ name, keys string }{{"etc-pki-entitlement", "e-key.pem e.pem"}, {"extra", "x.pem"}} {
		var volume *corev1.Volume
		for i, v := range got.Spec.Volumes {
			if v.CSI != nil && v.CSI.VolumeAttributes["sharedSecret"] == shares[secret.name] {
				volume = &got.Spec.Volumes[i]
			}
		}
		if volume == nil || volume.CSI.Driver != "csi.sharedresource.openshift.io" || !ptr.Deref(volume.CSI.ReadOnly, false) {
			t.Fatalf("no read-only Shared Resource CSI volume for share %q: %+v", shares[secret.name], got.Spec.Volumes)
		}
		for _, k := range strings.Fields(secret.keys) {
			wantMounts = append(wantMounts, volume.Name+"@/run/secrets/etc-pki-entitlement/"+k+":"+k)
		}
	}
	if m := mountList(got.Spec.Containers[0].VolumeMounts); m != tokenMount(got.Spec.Containers[0])+" "+strings.Join(wantMounts, " ") {
		t.Errorf("mounts = %s, want token + %v", m, wantMounts)
	}
	if g := bundlesRecord(t, got); g != fmt.Sprintf(`{"clusterBundles":{%q:%d}}`, cb.Name, cb.Generation) {
		t.Errorf("bundle-generations = %s", g)
	}

	_, err := env.kube.CoreV1().Pods(ns).Create(ctx, podFor("outsider"), metav1.CreateOptions{})
	want := deniedPrefix + fmt.Sprintf(`service account %s/outsider may not get cluster bundle %q: bind it to a role that includes ClusterRole "%s-subscription-bundle" `+
		`(the bundle's spec.aggregateToClusterRoles aggregates it into those roles), or bind that ClusterRole directly`, ns, cb.Name, cb.Name)
	if err == nil || err.Error() != want {
		t.Errorf("outsider: err = %v\nwant %s", err, want)
	}
}

// Every refusal names the bundle, the object and the key, and nothing is
// created.
func TestSubscriptionRefusals(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	ns := testNamespace(t, "refusals-")
	createSecret(t, ns, "s1", "k.pem")
	createSecret(t, ns, "s2", "k.pem")
	createConfigMap(t, ns, "r1", "redhat.repo")
	createConfigMap(t, ns, "r2", "redhat.repo")
	createBundle(t, ns, "one", nil, v1alpha1.BundleSpec{Entitlements: localRefs("s1"), YumRepositories: localRefs("r1")}, metav1.ConditionFalse)
	createBundle(t, ns, "two", nil, v1alpha1.BundleSpec{Entitlements: localRefs("s2")}, metav1.ConditionFalse)
	createBundle(t, ns, "three", nil, v1alpha1.BundleSpec{YumRepositories: localRefs("r2")}, metav1.ConditionFalse)
	broken := createBundle(t, ns, "broken", nil, v1alpha1.BundleSpec{Entitlements: localRefs("gone")}, metav1.ConditionTrue)
	invalid := meta.FindStatusCondition(broken.Status.Conditions, v1alpha1.ConditionInvalid)
	source := testNamespace(t, "refusals-source-")
	missing := createClusterBundle(t, "e2e-missing-", nil, v1alpha1.ClusterBundleSpec{
		Entitlements: []v1alpha1.ClusterReference{{Namespace: source, Name: "absent"}},
	}, metav1.ConditionTrue)
	missingCond := meta.FindStatusCondition(missing.Status.Conditions, v1alpha1.ConditionInvalid)
	waitServiceAccount(t, ns, "default")

	withMount := testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "one"})
	withMount.Spec.Volumes = []corev1.Volume{{Name: "keys", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	withMount.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "keys", MountPath: "/run/secrets/redhat.repo"}}
	withVolume := testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "one"})
	withVolume.Spec.Volumes = []corev1.Volume{{Name: "subscription-entitlements", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}

	for _, tc := range []struct {
		name, want string
		pod        *corev1.Pod
	}{
		{"missing bundle", `bundle "nope" requested by annotation subscription.openshift.io/inject-bundle does not exist in namespace "` + ns + `"`,
			testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "one,nope"})},
		{"invalid bundle", fmt.Sprintf(`bundle "broken" in namespace %q is invalid (%s): %s`, ns, invalid.Reason, invalid.Message),
			testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "broken"})},
		{"invalid cluster bundle", fmt.Sprintf(`cluster bundle %q is invalid (%s): %s`, missing.Name, missingCond.Reason, missingCond.Message),
			testPod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: missing.Name})},
		{"missing cluster bundle", `cluster bundle "e2e-nope" requested by annotation subscription.openshift.io/inject-cluster-bundle does not exist`,
			testPod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: "e2e-nope"})},
		{"overlapping entitlement keys", fmt.Sprintf(`entitlement key "k.pem" is in both secret %s/s1 (bundle "one") and secret %s/s2 (bundle "two"); keys must be unique across the injected bundles`, ns, ns),
			testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "one,two"})},
		{"overlapping repo keys", fmt.Sprintf(`yum repository key "redhat.repo" is in both configmap %s/r1 (bundle "one") and configmap %s/r2 (bundle "three"); keys must be unique across the injected bundles`, ns, ns),
			testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "one,three"})},
		{"malformed annotation", `annotation subscription.openshift.io/inject-bundle: "one,,two" is malformed: entry 2 is empty; expected a comma-separated list of names`,
			testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "one,,two"})},
		{"user mount at an injected path", `container "app" already mounts volume "keys" at /run/secrets/redhat.repo, where bundle "one" mounts a yum repository file (volume "subscription-yum-repos"); remove or move that mount`,
			withMount},
		{"user volume with an injected name", `the pod already has a volume named "subscription-entitlements", which subscription injection did not add and needs for bundle "one"; rename that volume`,
			withVolume},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := env.kube.CoreV1().Pods(ns).Create(ctx, tc.pod, metav1.CreateOptions{})
			if err == nil || err.Error() != deniedPrefix+tc.want {
				t.Errorf("err = %v\nwant %s", err, deniedPrefix+tc.want)
			}
		})
	}
}

// warnings collects the admission warnings the API server returns.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, message string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, message)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

// An always-inject ClusterBundle reaches every pod whose service account
// may get it, unless the pod opts out; a pod that may not get it is admitted
// without it, and the API server passes the reason on as a warning.
func TestAlwaysInjectClusterBundle(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	source := testNamespace(t, "always-source-")
	createSecret(t, source, "entitlement", "auto.pem")
	cb := createClusterBundle(t, "e2e-always-", map[string]string{v1alpha1.AlwaysInjectLabel: "true"}, v1alpha1.ClusterBundleSpec{
		AggregateToClusterRoles: []string{"edit"},
		Entitlements:            []v1alpha1.ClusterReference{{Namespace: source, Name: "entitlement"}},
	}, metav1.ConditionFalse)

	ns := testNamespace(t, "always-")
	waitServiceAccount(t, ns, "default")
	if _, err := env.kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	grantEdit(t, ns, "builder-edit", rbacv1.Subject{Kind: "ServiceAccount", Name: "builder", Namespace: ns})
	collected := &warnings{}
	config := rest.CopyConfig(env.cp.Config)
	config.WarningHandler = collected
	kube := kubernetes.NewForConfigOrDie(config)
	podFor := func(sa string, annotations map[string]string) *corev1.Pod {
		p := testPod(annotations)
		p.Spec.ServiceAccountName = sa
		return p
	}
	want := fmt.Sprintf(`{"clusterBundles":{%q:%d}}`, cb.Name, cb.Generation)

	// Once the kube-controller-manager has aggregated the role into edit.
	var got *corev1.Pod
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := kube.CoreV1().Pods(ns).Create(ctx, podFor("builder", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		got = p
		return err == nil && bundlesRecord(t, p) == want, nil
	}); err != nil {
		t.Fatalf("builder never got the always-inject bundle: %+v", got)
	}
	collected.take()
	if got, err := kube.CoreV1().Pods(ns).Create(ctx, podFor("builder", map[string]string{v1alpha1.DenyClusterBundlesAnnotation: cb.Name}), metav1.CreateOptions{}); err != nil || got.Annotations[v1alpha1.BundleGenerationsAnnotation] != "" {
		t.Errorf("deny-cluster-bundles: err %v, annotations %v", err, got.Annotations)
	}
	if got, err := kube.CoreV1().Pods(ns).Create(ctx, podFor("builder", map[string]string{v1alpha1.AllowClusterBundlesAnnotation: "someone-else"}), metav1.CreateOptions{}); err != nil || got.Annotations[v1alpha1.BundleGenerationsAnnotation] != "" {
		t.Errorf("allow-cluster-bundles naming another bundle: err %v, annotations %v", err, got.Annotations)
	}
	if w := collected.take(); len(w) != 0 {
		t.Errorf("opting out produced warnings: %q", w)
	}

	plain, err := kube.CoreV1().Pods(ns).Create(ctx, podFor("default", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a pod that may not get an always-inject bundle must still be admitted: %v", err)
	}
	if plain.Annotations[v1alpha1.BundleGenerationsAnnotation] != "" || len(plain.Spec.Volumes) != 1 {
		t.Errorf("the default service account's pod was changed: %v %+v", plain.Annotations, plain.Spec.Volumes)
	}
	wantWarning := fmt.Sprintf("always-inject cluster bundle %q was not injected: service account %s/default may not get it", cb.Name, ns)
	if w := collected.take(); !slices.Contains(w, wantWarning) {
		t.Errorf("warnings = %q, want %q", w, wantWarning)
	}
}
