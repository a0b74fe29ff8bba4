package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// warningClient is a client whose admission warnings are collected.
func warningClient() (kubernetes.Interface, *warnings) {
	collected := &warnings{}
	config := rest.CopyConfig(env.cp.Config)
	config.WarningHandler = collected
	return kubernetes.NewForConfigOrDie(config), collected
}

// withUserMount gives the pod's container an emptyDir volume of its own,
// mounted at path.
func withUserMount(p *corev1.Pod, volume, path string) *corev1.Pod {
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: volume, MountPath: path})
	return p
}

// recordedBundles is the stored pod's record without the volumes it names.
func recordedBundles(t *testing.T, p *corev1.Pod) (bundles map[string]int64, volumes []string) {
	t.Helper()
	raw, ok := p.Annotations[v1alpha1.BundleGenerationsAnnotation]
	if !ok {
		return nil, nil
	}
	var record struct {
		Bundles map[string]int64 `json:"bundles"`
		Volumes []string         `json:"volumes"`
	}
	if err := json.Unmarshal([]byte(raw), &record); err != nil {
		t.Fatalf("record %q: %v", raw, err)
	}
	return record.Bundles, record.Volumes
}

// bundlesRecord is the stored pod's record of bundles, without the volumes
// it names, or "" when it has none.
func bundlesRecord(t *testing.T, p *corev1.Pod) string {
	t.Helper()
	if p == nil {
		return ""
	}
	raw, ok := p.Annotations[v1alpha1.BundleGenerationsAnnotation]
	if !ok {
		return ""
	}
	var record map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &record); err != nil {
		t.Fatalf("record %q: %v", raw, err)
	}
	delete(record, "volumes")
	out, err := json.Marshal(record)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// What the pod asked for is honoured, an always-inject bundle that clashes
// with the pod's own mount is skipped with a warning; a clash the request
// causes (a mount over /var/run/secrets) refuses the pod naming the path;
// a user's volume named like ours, in a pod whose record does not name it,
// is kept.
func TestSubscriptionClashesAndOwnership(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	ns := testNamespace(t, "clashes-")
	createSecret(t, ns, "ent", "1.pem")
	createConfigMap(t, ns, "repos", "redhat.repo")
	asked := createBundle(t, ns, "asked", nil, v1alpha1.BundleSpec{Entitlements: localRefs("ent")}, metav1.ConditionFalse)
	createBundle(t, ns, "auto-repo", map[string]string{v1alpha1.AlwaysInjectLabel: "true"}, v1alpha1.BundleSpec{YumRepositories: localRefs("repos")}, metav1.ConditionFalse)
	kube, collected := warningClient()

	t.Run("always-inject clash is skipped", func(t *testing.T) {
		p := withUserMount(testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "asked"}), "repo", "/run/secrets/redhat.repo")
		got, err := kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("a pod whose own mount clashes only with an always-inject bundle was refused: %v", err)
		}
		if bundles, volumes := recordedBundles(t, got); len(bundles) != 1 || bundles["asked"] != asked.Generation || !slices.Equal(volumes, []string{"subscription-entitlements"}) {
			t.Errorf("record = %s", got.Annotations[v1alpha1.BundleGenerationsAnnotation])
		}
		want := `always-inject bundle "auto-repo" was not injected: container "app" already mounts volume "repo" at /run/secrets/redhat.repo, ` +
			`where bundle "auto-repo" mounts a yum repository file (volume "subscription-yum-repos"); remove or move that mount`
		if w := collected.take(); !slices.Contains(w, want) {
			t.Errorf("warnings = %q\nwant %q", w, want)
		}
	})

	t.Run("a mount over /var/run/secrets refuses a pod that asks", func(t *testing.T) {
		p := withUserMount(testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "asked"}), "secrets", "/var/run/secrets")
		_, err := env.kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		want := deniedPrefix + `container "app" mounts volume "secrets" at /var/run/secrets, which would hide /run/secrets/etc-pki-entitlement, ` +
			`where bundle "asked" mounts entitlement keys (volume "subscription-entitlements"); remove or move that mount`
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %s", err, want)
		}
	})

	t.Run("a lookalike volume the record does not name is kept", func(t *testing.T) {
		lookalike := "subscription-ent-0123456789"
		p := withUserMount(testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "asked", v1alpha1.DenyBundlesAnnotation: "*",
			// As copied from an injected pod's spec.
			v1alpha1.BundleGenerationsAnnotation: `{"bundles":{"asked":1},"volumes":["subscription-entitlements"]}`}), lookalike, "/data")
		got, err := env.kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if podVolume(got, lookalike) == nil || !strings.Contains(mountList(got.Spec.Containers[0].VolumeMounts), lookalike+"@/data(rw)") {
			t.Errorf("the user's %s was lost: volumes %+v, mounts %s", lookalike, got.Spec.Volumes, mountList(got.Spec.Containers[0].VolumeMounts))
		}
		if podVolume(got, "subscription-entitlements") == nil {
			t.Errorf("the bundle asked for was not injected: %+v", got.Spec.Volumes)
		}
	})
}

// An empty inject annotation asks for nothing, and a malformed filter on a
// pod that asks for nothing admits it without automatic injection: the same
// whether the webhook is up or down (the injection-required policy agrees).
func TestEmptyAnnotationsAreTheSameWithTheWebhookUpOrDown(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	ns := testNamespace(t, "empty-annotations-")
	createSecret(t, ns, "auto", "auto.pem")
	createBundle(t, ns, "auto", map[string]string{v1alpha1.AlwaysInjectLabel: "true"}, v1alpha1.BundleSpec{Entitlements: localRefs("auto")}, metav1.ConditionFalse)
	kube, collected := warningClient()
	empty := map[string]string{v1alpha1.InjectBundleAnnotation: "", v1alpha1.InjectClusterBundleAnnotation: "  "}
	malformed := map[string]string{v1alpha1.DenyBundlesAnnotation: "auto,,other"}

	got, err := kube.CoreV1().Pods(ns).Create(ctx, testPod(empty), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("webhook up: a pod with empty inject annotations was refused: %v", err)
	}
	if bundles, _ := recordedBundles(t, got); len(bundles) != 1 || bundles["auto"] == 0 {
		t.Errorf("webhook up: want the always-inject bundle, record %q", got.Annotations[v1alpha1.BundleGenerationsAnnotation])
	}
	if w := collected.take(); !slices.Contains(w, "annotation subscription.openshift.io/inject-bundle is empty, so it asks for no bundle; it was ignored") {
		t.Errorf("webhook up: warnings %q", w)
	}
	got, err = kube.CoreV1().Pods(ns).Create(ctx, testPod(malformed), metav1.CreateOptions{})
	if err != nil || got.Annotations[v1alpha1.BundleGenerationsAnnotation] != "" {
		t.Fatalf("webhook up: a malformed deny list on a pod asking for nothing: err %v, annotations %v", err, got.Annotations)
	}
	want := `annotation subscription.openshift.io/deny-bundles: "auto,,other" is malformed: entry 2 is empty; expected a comma-separated list of names; ` +
		`the pod asks for no bundle, so it was admitted without automatic subscription injection`
	if w := collected.take(); !slices.Contains(w, want) {
		t.Errorf("webhook up: warnings %q\nwant %q", w, want)
	}

	stopWebhook()
	t.Cleanup(func() { ensureWebhook(t) })
	for _, annotations := range []map[string]string{empty, malformed} {
		got, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(annotations), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("webhook down: %v refused: %v", annotations, err)
		}
		if got.Annotations[v1alpha1.BundleGenerationsAnnotation] != "" {
			t.Errorf("webhook down: %v injected", annotations)
		}
	}
}

// An always-inject bundle never reaches a pod in an openshift-* namespace;
// a bundle the pod asks for does.
func TestAutomaticBundlesSkipPlatformNamespaces(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	ns := testNamespace(t, "openshift-e2e-")
	createSecret(t, ns, "auto", "auto.pem")
	createConfigMap(t, ns, "repos", "redhat.repo")
	createBundle(t, ns, "auto", map[string]string{v1alpha1.AlwaysInjectLabel: "true"}, v1alpha1.BundleSpec{Entitlements: localRefs("auto")}, metav1.ConditionFalse)
	asked := createBundle(t, ns, "asked", nil, v1alpha1.BundleSpec{YumRepositories: localRefs("repos")}, metav1.ConditionFalse)

	plain, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Annotations[v1alpha1.BundleGenerationsAnnotation] != "" || podVolume(plain, "subscription-entitlements") != nil {
		t.Errorf("an always-inject bundle reached a pod in %s: %v %+v", ns, plain.Annotations, plain.Spec.Volumes)
	}
	got, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "asked"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if bundles, volumes := recordedBundles(t, got); len(bundles) != 1 || bundles["asked"] != asked.Generation || !slices.Equal(volumes, []string{"subscription-yum-repos"}) {
		t.Errorf("record = %q, want only the bundle asked for", got.Annotations[v1alpha1.BundleGenerationsAnnotation])
	}
}
