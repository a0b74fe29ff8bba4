package subscription

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

func withUserMount(p *corev1.Pod, volume, at string) *corev1.Pod {
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: volume, MountPath: at})
	return p
}

// An always-inject bundle that clashes with the pod's own mounts is left
// out, with a warning naming it and why; the bundle the pod asked for is
// injected, as is an always-inject bundle that fits. A clash the requested
// bundle causes refuses the pod, naming bundle, container, volume and path.
func TestAlwaysInjectClashIsSkippedWhileTheRequestIsHonoured(t *testing.T) {
	m := newMutator(t, []any{
		bundle("asked", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "asked", "", "k.pem")}, nil),
		bundle("auto-repo", 1, always, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "repo", "", "redhat.repo")}),
		bundle("auto-fits", 1, always, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "other", "", "other.repo")}),
	}, nil)
	p := withUserMount(pod(map[string]string{v1alpha1.InjectBundleAnnotation: "asked"}), "repo", "/var/run/secrets/redhat.repo")
	got, result := mutationtest.Admit(t, m, ns, p)
	if result.Denied != nil {
		t.Fatalf("denied: %s", result.Denied.Message)
	}
	if g := recorded(got); g != `{"bundles":{"asked":1,"auto-fits":1}}` {
		t.Errorf("generations = %s", g)
	}
	want := []string{`always-inject bundle "auto-repo" was not injected: container "build" already mounts volume "repo" at /var/run/secrets/redhat.repo, ` +
		`where bundle "auto-repo" mounts a yum repository file (volume "subscription-yum-repos"); remove or move that mount`}
	if !slices.Equal(result.Warnings, want) {
		t.Errorf("warnings = %q\nwant %q", result.Warnings, want)
	}
	wantMounts := "kube-api-access-x7k2p@/var/run/secrets/kubernetes.io/serviceaccount repo@/var/run/secrets/redhat.repo " +
		"subscription-entitlements@/run/secrets/etc-pki-entitlement subscription-yum-repos@/run/secrets/other.repo:other.repo"
	if g := strings.Join(mountsOf(got.Spec.Containers[0]), " "); g != wantMounts {
		t.Errorf("mounts = %s\nwant %s", g, wantMounts)
	}
	mutationtest.Readmit(t, m, mutation.RequestFor(admissionv1.Create, ns, "", p, nil), got, nil)

	// Asked for, the same bundle refuses the pod.
	p = withUserMount(pod(map[string]string{v1alpha1.InjectBundleAnnotation: "asked,auto-repo"}), "repo", "/var/run/secrets/redhat.repo")
	_, result = mutationtest.Admit(t, m, ns, p)
	wantDenial := `container "build" already mounts volume "repo" at /var/run/secrets/redhat.repo, where bundle "auto-repo" mounts a yum repository file (volume "subscription-yum-repos"); remove or move that mount`
	if result.Denied == nil || result.Denied.Message != wantDenial {
		t.Errorf("result %+v\nwant denial %s", result, wantDenial)
	}
}

// Always-inject bundles are added one by one: the first that fits stays,
// a later one clashing with it (same key) is left out.
func TestAlwaysInjectBundlesClashingWithEachOtherKeepTheFirst(t *testing.T) {
	m := newMutator(t, []any{
		bundle("a", 1, always, []v1alpha1.ResolvedReference{ref("secret", ns, "a", "", "k.pem")}, nil),
		bundle("b", 1, always, []v1alpha1.ResolvedReference{ref("secret", ns, "b", "", "k.pem")}, nil),
		bundle("c", 1, always, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "c", "", "c.repo")}),
	}, nil)
	got, result := mutationtest.Admit(t, m, ns, pod(nil))
	if result.Denied != nil || recorded(got) != `{"bundles":{"a":1,"c":1}}` {
		t.Fatalf("result %+v, generations %s", result, recorded(got))
	}
	if len(result.Warnings) != 1 || !strings.HasPrefix(result.Warnings[0], `always-inject bundle "b" was not injected: entitlement key "k.pem" is in both`) {
		t.Errorf("warnings = %q", result.Warnings)
	}
}

// An inject annotation that is empty or only spaces asks for nothing: the
// pod is admitted (with its always-inject bundles) and told it was ignored.
// A malformed allow/deny annotation on a pod that asked for nothing admits
// it without any automatic injection, quoting the annotation; on a pod that
// asked, it refuses it.
func TestEmptyAndMalformedAnnotations(t *testing.T) {
	m := newMutator(t, []any{
		bundle("auto", 1, always, []v1alpha1.ResolvedReference{ref("secret", ns, "auto", "", "auto.pem")}, nil),
		bundle("asked", 1, nil, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "r", "", "redhat.repo")}),
	}, nil)
	for _, value := range []string{"", "  ", "\t"} {
		got, result := mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: value}))
		if result.Denied != nil || recorded(got) != `{"bundles":{"auto":1}}` {
			t.Errorf("%q: result %+v, generations %s", value, result, recorded(got))
		}
		want := []string{"annotation subscription.openshift.io/inject-cluster-bundle is empty, so it asks for no bundle; it was ignored"}
		if !slices.Equal(result.Warnings, want) {
			t.Errorf("%q: warnings %q", value, result.Warnings)
		}
	}

	got, result := mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.DenyBundlesAnnotation: "auto,,other"}))
	if result.Denied != nil || len(result.Patch) != 0 || got.Annotations[v1alpha1.BundleGenerationsAnnotation] != "" {
		t.Fatalf("malformed deny list without a request: want admitted unchanged, got %+v", result)
	}
	want := []string{`annotation subscription.openshift.io/deny-bundles: "auto,,other" is malformed: entry 2 is empty; expected a comma-separated list of names; ` +
		`the pod asks for no bundle, so it was admitted without automatic subscription injection`}
	if !slices.Equal(result.Warnings, want) {
		t.Errorf("warnings = %q\nwant %q", result.Warnings, want)
	}

	_, result = mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectBundleAnnotation: "asked", v1alpha1.DenyBundlesAnnotation: "auto,,other"}))
	if result.Denied == nil || result.Denied.Reason != reasonMalformedAnnotation ||
		result.Denied.Message != `annotation subscription.openshift.io/deny-bundles: "auto,,other" is malformed: entry 2 is empty; expected a comma-separated list of names` {
		t.Errorf("malformed deny list with a request: %+v", result.Denied)
	}
	// A malformed inject value is a request, and refused.
	if _, result = mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectBundleAnnotation: " , "})); result.Denied == nil {
		t.Errorf("a malformed inject value was admitted")
	}
}

// The record names the volumes the injection added, and only those are
// replaced: a user's volume named like ours is kept with its mounts, and
// one under a name the injection needs is a conflict.
func TestTheRecordNamesTheInjectedVolumes(t *testing.T) {
	objects := []any{
		bundle("rhel", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent", "", "1.pem")}, []v1alpha1.ResolvedReference{ref("configmap", ns, "r", "", "redhat.repo")}),
		bundle("ents", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent", "", "1.pem")}, nil),
		bundle("auto", 1, always, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "a", "", "auto.repo")}),
	}
	m := newMutator(t, objects, nil)
	lookalike := "subscription-ent-0123456789"
	p := withUserMount(pod(map[string]string{v1alpha1.InjectBundleAnnotation: "ents", v1alpha1.DenyBundlesAnnotation: "auto"}), lookalike, "/data")
	// As a copy of an injected pod's spec would carry.
	p.Annotations[v1alpha1.BundleGenerationsAnnotation] = `{"bundles":{"ents":1},"volumes":["subscription-entitlements"]}`
	got, result := mutationtest.Admit(t, m, ns, p)
	if result.Denied != nil {
		t.Fatal(result.Denied.Message)
	}
	if g := got.Annotations[v1alpha1.BundleGenerationsAnnotation]; g != `{"bundles":{"ents":1},"volumes":["subscription-entitlements"]}` {
		t.Errorf("record = %s", g)
	}
	if volume(got, lookalike) == nil || !slices.Contains(mountsOf(got.Spec.Containers[0]), lookalike+"@/data") {
		t.Errorf("the user's %s was lost: %v", lookalike, mountsOf(got.Spec.Containers[0]))
	}

	// Under a name the injection needs, not recorded: refused when asked
	// for, left out with a warning when automatic.
	p = withUserMount(pod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}), "subscription-yum-repos", "/data")
	p.Annotations[v1alpha1.BundleGenerationsAnnotation] = `{"bundles":{"rhel":1},"volumes":["subscription-entitlements"]}`
	_, result = mutationtest.Admit(t, m, ns, p)
	want := `the pod already has a volume named "subscription-yum-repos", which subscription injection did not add and needs for bundle "rhel"; rename that volume`
	if result.Denied == nil || result.Denied.Message != want {
		t.Errorf("result %+v\nwant %s", result.Denied, want)
	}
	p = withUserMount(pod(nil), "subscription-yum-repos", "/data")
	got, result = mutationtest.Admit(t, m, ns, p)
	if result.Denied != nil || len(result.Patch) != 0 || len(result.Warnings) != 1 ||
		result.Warnings[0] != `always-inject bundle "auto" was not injected: the pod already has a volume named "subscription-yum-repos", which subscription injection did not add and needs for bundle "auto"; rename that volume` {
		t.Errorf("automatic: result %+v", result)
	}
	if volume(got, "subscription-yum-repos").EmptyDir == nil {
		t.Errorf("the user's volume was replaced")
	}

	// A record from before records named volumes owns every volume with an
	// injection's name, as then.
	p = withUserMount(pod(map[string]string{v1alpha1.InjectBundleAnnotation: "ents", v1alpha1.DenyBundlesAnnotation: "auto"}), lookalike, "/data")
	p.Annotations[v1alpha1.BundleGenerationsAnnotation] = `{"bundles":{"ents":1}}`
	got, result = mutationtest.Admit(t, m, ns, p)
	if result.Denied != nil || volume(got, lookalike) != nil || slices.Contains(mountsOf(got.Spec.Containers[0]), lookalike+"@/data") {
		t.Errorf("legacy record: result %+v, volumes %v", result.Denied, got.Spec.Volumes)
	}
	if g := got.Annotations[v1alpha1.BundleGenerationsAnnotation]; g != `{"bundles":{"ents":1},"volumes":["subscription-entitlements"]}` {
		t.Errorf("legacy record rewritten as %s", g)
	}

	for _, tc := range []struct {
		record string
		owns   map[string]bool
	}{
		{``, map[string]bool{"subscription-entitlements": false}},
		{`not json`, map[string]bool{"subscription-entitlements": false}},
		{`{"bundles":{"a":1}}`, map[string]bool{"subscription-entitlements": true, lookalike: true, "data": false}},
		{`{"bundles":{"a":1},"volumes":[]}`, map[string]bool{"subscription-entitlements": false}},
		{`{"volumes":["subscription-yum-repos","data"]}`, map[string]bool{"subscription-yum-repos": true, "subscription-entitlements": false, "data": false}},
	} {
		annotations := map[string]string{}
		if tc.record != "" {
			annotations[v1alpha1.BundleGenerationsAnnotation] = tc.record
		}
		own := ownershipOf(annotations, v1alpha1.BundleGenerationsAnnotation)
		for name, want := range tc.owns {
			if own.owns(name) != want {
				t.Errorf("record %q: owns(%q) = %v", tc.record, name, !want)
			}
		}
	}
}

// A debug container gets only the volumes the record names, never a
// user's volume named like ours.
func TestEphemeralContainersGetOnlyRecordedVolumes(t *testing.T) {
	m := newMutator(t, []any{bundle("rhel", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent", "", "1.pem")}, nil)}, nil)
	injected, result := mutationtest.Admit(t, m, ns, withUserMount(pod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}), "subscription-yum-repos", "/data"))
	if result.Denied != nil {
		t.Fatal(result.Denied.Message)
	}
	updated := injected.DeepCopy()
	updated.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "ubi9"}}}
	result = m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Update, ns, "ephemeralcontainers", updated, injected))
	got := mutationtest.ApplyPatch(t, updated, result)
	if g := strings.Join(mountsOf(corev1.Container(got.Spec.EphemeralContainers[0].EphemeralContainerCommon)), " "); g != "subscription-entitlements@/run/secrets/etc-pki-entitlement" {
		t.Errorf("debug container mounts = %s", g)
	}

	// A debug container mounting something over /run/secrets: refused for
	// a pod that asked, left without the volumes (and told) for one that
	// did not.
	over := updated.DeepCopy()
	over.Spec.EphemeralContainers[0].VolumeMounts = []corev1.VolumeMount{{Name: "subscription-yum-repos", MountPath: "/run/secrets"}}
	result = m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Update, ns, "ephemeralcontainers", over, injected))
	if result.Denied == nil || !strings.Contains(result.Denied.Message, `container "debugger" mounts volume "subscription-yum-repos" at /run/secrets, which would hide /run/secrets/etc-pki-entitlement`) {
		t.Errorf("asked: %+v", result)
	}
	delete(over.Annotations, v1alpha1.InjectBundleAnnotation)
	delete(injected.Annotations, v1alpha1.InjectBundleAnnotation)
	result = m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Update, ns, "ephemeralcontainers", over, injected))
	if result.Denied != nil || len(result.Patch) != 0 || len(result.Warnings) != 1 || !strings.HasPrefix(result.Warnings[0], `ephemeral container "debugger" did not get the injected subscription volumes: `) {
		t.Errorf("automatic: %+v", result)
	}
}

// Automatic injection never reaches platform pods; what they ask for they
// still get.
func TestPlatformPodsGetNothingAutomatically(t *testing.T) {
	objects := func(namespace string) []any {
		auto := bundle("auto", 1, always, []v1alpha1.ResolvedReference{ref("secret", namespace, "auto", "", "auto.pem")}, nil)
		auto.Namespace = namespace
		asked := bundle("asked", 1, nil, nil, []v1alpha1.ResolvedReference{ref("configmap", namespace, "r", "", "redhat.repo")})
		asked.Namespace = namespace
		return []any{auto, asked, clusterBundle("auto-cluster", 1, always, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "c", "share-c", "c.pem")}, nil)}
	}
	mirror := map[string]string{mutation.MirrorPodAnnotation: "abc"}
	for _, tc := range []struct {
		namespace   string
		annotations map[string]string
		want        string
	}{
		{"openshift-monitoring", nil, ``},
		{"kube-system", nil, ``},
		{"openshift", nil, ``},
		{"shop", mirror, ``},
		{"openshift-monitoring", map[string]string{v1alpha1.InjectBundleAnnotation: "asked"}, `{"bundles":{"asked":1}}`},
		{"default", nil, `{"bundles":{"auto":1},"clusterBundles":{"auto-cluster":1}}`},
		{"openshiftish", nil, `{"bundles":{"auto":1},"clusterBundles":{"auto-cluster":1}}`},
	} {
		m := newMutator(t, objects(tc.namespace), access{tc.namespace + "/builder/auto-cluster": true})
		p := pod(tc.annotations)
		p.Namespace = tc.namespace
		got, result := mutationtest.Admit(t, m, tc.namespace, p)
		if result.Denied != nil || recorded(got) != tc.want || len(result.Warnings) != 0 {
			t.Errorf("%s %v: result %+v, generations %q, want %q", tc.namespace, tc.annotations, result, recorded(got), tc.want)
		}
	}
}

// The service account token and pod identity's token, in every pod under
// /var/run/secrets, are never in the way.
func TestTokenMountsAreNoConflict(t *testing.T) {
	m := newMutator(t, []any{bundle("rhel", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent", "", "1.pem")},
		[]v1alpha1.ResolvedReference{ref("configmap", ns, "r", "", "redhat.repo")})}, nil)
	p := withUserMount(pod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}), "aws-iam-token", "/var/run/secrets/eks.amazonaws.com/serviceaccount")
	if _, result := mutationtest.Admit(t, m, ns, p); result.Denied != nil {
		t.Fatal(result.Denied.Message)
	}
	for _, tc := range []struct{ p, ours, want string }{
		{"/run/secrets/kubernetes.io/serviceaccount", EntitlementDir, ""},
		{"/run/secrets/etc-pki-entitlementx", EntitlementDir, ""},
		{"/run/secrets", EntitlementDir, "over"},
		{"/", EntitlementDir, "over"},
		{EntitlementDir + "/a", EntitlementDir, "inside"},
		{EntitlementDir, EntitlementDir, "at"},
	} {
		if got := pathClash(tc.p, tc.ours); got != tc.want {
			t.Errorf("pathClash(%q, %q) = %q, want %q", tc.p, tc.ours, got, tc.want)
		}
	}
	for in, want := range map[string]string{"/var/run/secrets/": "/run/secrets", "/var/run": "/run", "/var/runner": "/var/runner", "//run//secrets/.": "/run/secrets", "run": "run"} {
		if got := normalPath(in); got != want {
			t.Errorf("normalPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// The record written names exactly the volumes added.
func TestRecordFormat(t *testing.T) {
	m := newMutator(t, []any{bundle("rhel", 2, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent", "", "1.pem")},
		[]v1alpha1.ResolvedReference{ref("configmap", ns, "r", "", "redhat.repo")})}, nil)
	got, _ := mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}))
	var g generations
	raw := got.Annotations[v1alpha1.BundleGenerationsAnnotation]
	if err := json.Unmarshal([]byte(raw), &g); err != nil || raw != `{"bundles":{"rhel":2},"volumes":["subscription-entitlements","subscription-yum-repos"]}` {
		t.Errorf("record %s (%v)", raw, err)
	}
}
