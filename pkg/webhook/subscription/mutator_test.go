package subscription

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

const ns = "shop"

var valid = []metav1.Condition{{Type: v1alpha1.ConditionInvalid, Status: metav1.ConditionFalse, Reason: v1alpha1.ReasonValid}}

func ref(kind, namespace, name, share string, keys ...string) v1alpha1.ResolvedReference {
	return v1alpha1.ResolvedReference{Name: name, Namespace: namespace, Keys: keys, Share: share}
}

func bundle(name string, generation int64, labels map[string]string, ents, repos []v1alpha1.ResolvedReference) *v1alpha1.Bundle {
	return &v1alpha1.Bundle{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Generation: generation, Labels: labels},
		Status:     v1alpha1.BundleStatus{ObservedGeneration: generation, Conditions: valid, Entitlements: ents, YumRepositories: repos},
	}
}

func clusterBundle(name string, generation int64, labels map[string]string, ents, repos []v1alpha1.ResolvedReference) *v1alpha1.ClusterBundle {
	return &v1alpha1.ClusterBundle{
		ObjectMeta: metav1.ObjectMeta{Name: name, Generation: generation, Labels: labels},
		Status: v1alpha1.ClusterBundleStatus{ObservedGeneration: generation, Conditions: valid, ClusterRole: name + "-subscription-bundle",
			Entitlements: ents, YumRepositories: repos},
	}
}

var always = map[string]string{v1alpha1.AlwaysInjectLabel: "true"}

// access allows "namespace/serviceaccount/bundle" entries.
type access map[string]bool

func (a access) MayGetClusterBundle(_ context.Context, namespace, sa, bundle string) (bool, error) {
	if a[namespace+"/"+sa+"/error"] {
		return false, fmt.Errorf("the server is currently unable to handle the request")
	}
	if a[namespace+"/"+sa+"/timeout"] {
		return false, timedOut{}
	}
	return a[namespace+"/"+sa+"/"+bundle], nil
}

// timedOut is how the server's reviewer reports a review without an answer.
type timedOut struct{}

func (timedOut) Error() string {
	return "the API server did not answer the SubjectAccessReview within 2s"
}
func (timedOut) Unwrap() error { return context.DeadlineExceeded }

func newMutator(t testing.TB, objects []any, a access) *Mutator {
	t.Helper()
	bundles, clusterBundles := NewBundleCache(), NewClusterBundleCache()
	for _, o := range objects {
		var err error
		switch o := o.(type) {
		case *v1alpha1.Bundle:
			err = bundles.Add(o)
		case *v1alpha1.ClusterBundle:
			err = clusterBundles.Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	m, err := New(onlyIndexed{bundles, t}, onlyIndexed{clusterBundles, t}, a)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// onlyIndexed fails the test when the mutator reads every bundle of the
// cache, or of the namespace, where it should find the always-inject ones
// by their index or a named one by its key: every pod's admission offers
// it the always-inject bundles, and among 5,000 ClusterBundles reading them
// all made a pod that asks for nothing cost 14 times as much
// (docs/performance.md).
type onlyIndexed struct {
	cache.Indexer
	t testing.TB
}

func (o onlyIndexed) List() []any {
	o.t.Errorf("the mutator read every object of a bundle cache")
	return o.Indexer.List()
}

func (o onlyIndexed) Index(name string, obj any) ([]any, error) {
	o.t.Errorf("the mutator read a bundle cache by its %s index", name)
	return o.Indexer.Index(name, obj)
}

func (o onlyIndexed) ListKeys() []string {
	o.t.Errorf("the mutator read every key of a bundle cache")
	return o.Indexer.ListKeys()
}

func (o onlyIndexed) IndexKeys(name, value string) ([]string, error) {
	o.t.Errorf("the mutator read a bundle cache's keys by its %s index", name)
	return o.Indexer.IndexKeys(name, value)
}

func (o onlyIndexed) ListIndexFuncValues(name string) []string {
	o.t.Errorf("the mutator read every value of a bundle cache's %s index", name)
	return o.Indexer.ListIndexFuncValues(name)
}

func (o onlyIndexed) ByIndex(name, value string) ([]any, error) {
	if name != AlwaysInjectIndex {
		o.t.Errorf("the mutator read a bundle cache by its %s index", name)
	}
	return o.Indexer.ByIndex(name, value)
}

func TestNewRefusesCachesWithoutTheAlwaysInjectIndex(t *testing.T) {
	plain := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if _, err := New(plain, NewClusterBundleCache(), access{}); err == nil || !strings.Contains(err.Error(), "Bundle cache has no always-inject index") {
		t.Errorf("New with a plain Bundle cache: %v, want refused", err)
	}
	if _, err := New(NewBundleCache(), plain, access{}); err == nil || !strings.Contains(err.Error(), "ClusterBundle cache has no always-inject index") {
		t.Errorf("New with a plain ClusterBundle cache: %v, want refused", err)
	}
}

func pod(annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "builder", Namespace: ns, Annotations: annotations},
		Spec: corev1.PodSpec{
			ServiceAccountName: "builder",
			InitContainers:     []corev1.Container{{Name: "prepare", Image: "ubi9"}},
			Containers: []corev1.Container{{
				Name: "build", Image: "ubi9",
				VolumeMounts: []corev1.VolumeMount{{Name: "kube-api-access-x7k2p", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
			}},
			Volumes: []corev1.Volume{{Name: "kube-api-access-x7k2p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}}},
		},
	}
}

// recorded is the pod's record of the bundles injected, without the
// volumes it names (TestTheRecordNamesTheInjectedVolumes checks those).
func recorded(p *corev1.Pod) string {
	raw, ok := p.Annotations[v1alpha1.BundleGenerationsAnnotation]
	if !ok {
		return ""
	}
	var g generations
	if err := json.Unmarshal([]byte(raw), &g); err != nil {
		return "malformed: " + raw
	}
	g.Volumes = nil
	out, err := json.Marshal(struct {
		Bundles        map[string]int64 `json:"bundles,omitempty"`
		ClusterBundles map[string]int64 `json:"clusterBundles,omitempty"`
	}{g.Bundles, g.ClusterBundles})
	if err != nil {
		panic(err)
	}
	return string(out)
}

func mountsOf(c corev1.Container) []string {
	var out []string
	for _, m := range c.VolumeMounts {
		s := m.Name + "@" + m.MountPath
		if m.SubPath != "" {
			s += ":" + m.SubPath
		}
		out = append(out, s)
	}
	return out
}

func volume(p *corev1.Pod, name string) *corev1.Volume {
	for i := range p.Spec.Volumes {
		if p.Spec.Volumes[i].Name == name {
			return &p.Spec.Volumes[i]
		}
	}
	return nil
}

func TestNamespacedBundlesShareOneProjectedDirectory(t *testing.T) {
	m := newMutator(t, []any{
		bundle("rhel", 2, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent-a", "", "1.pem", "1-key.pem")},
			[]v1alpha1.ResolvedReference{ref("configmap", ns, "satellite", "", "redhat.repo")}),
		bundle("driver", 5, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent-b", "", "2.pem")}, nil),
	}, nil)
	got, result := mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel, driver"}))
	if result.Denied != nil {
		t.Fatalf("denied: %s", result.Denied.Message)
	}
	ent := volume(got, "subscription-entitlements")
	if ent == nil || ent.Projected == nil || len(ent.Projected.Sources) != 2 ||
		ent.Projected.Sources[0].Secret.Name != "ent-a" || ent.Projected.Sources[1].Secret.Name != "ent-b" {
		t.Fatalf("entitlement volume = %+v", ent)
	}
	repo := volume(got, "subscription-yum-repos")
	if repo == nil || repo.Projected == nil || repo.Projected.Sources[0].ConfigMap.Name != "satellite" {
		t.Fatalf("repo volume = %+v", repo)
	}
	want := []string{
		"kube-api-access-x7k2p@/var/run/secrets/kubernetes.io/serviceaccount",
		"subscription-entitlements@/run/secrets/etc-pki-entitlement",
		"subscription-yum-repos@/run/secrets/redhat.repo:redhat.repo",
	}
	if g := mountsOf(got.Spec.Containers[0]); strings.Join(g, " ") != strings.Join(want, " ") {
		t.Errorf("container mounts = %v, want %v", g, want)
	}
	if g := mountsOf(got.Spec.InitContainers[0]); strings.Join(g, " ") != strings.Join(want[1:], " ") {
		t.Errorf("init container mounts = %v, want %v", g, want[1:])
	}
	if g := recorded(got); g != `{"bundles":{"driver":5,"rhel":2}}` {
		t.Errorf("generations = %s", g)
	}
}

func TestClusterBundlesMountKeyByKeyIntoOneDirectory(t *testing.T) {
	m := newMutator(t, []any{
		clusterBundle("cluster", 1, nil, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "etc-pki-entitlement", "cluster-entitlement-openshift-config-etc-pki-entitlement", "e.pem", "e-key.pem")}, nil),
		clusterBundle("extra", 4, nil, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "extra", "extra-entitlement-openshift-config-extra", "x.pem")},
			[]v1alpha1.ResolvedReference{ref("configmap", "openshift-config", "repos", "extra-yum-openshift-config-repos", "a.repo")}),
	}, access{ns + "/builder/cluster": true, ns + "/builder/extra": true})
	got, result := mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: "cluster,extra"}))
	if result.Denied != nil {
		t.Fatalf("denied: %s", result.Denied.Message)
	}
	clusterVol := "subscription-ent-" + shortHash("cluster-entitlement-openshift-config-etc-pki-entitlement")
	extraVol := "subscription-ent-" + shortHash("extra-entitlement-openshift-config-extra")
	repoVol := "subscription-yum-" + shortHash("extra-yum-openshift-config-repos")
	v := volume(got, clusterVol)
	if v == nil || v.CSI == nil || v.CSI.Driver != SharedResourceDriver || !*v.CSI.ReadOnly ||
		v.CSI.VolumeAttributes["sharedSecret"] != "cluster-entitlement-openshift-config-etc-pki-entitlement" {
		t.Fatalf("cluster volume = %+v", v)
	}
	if v := volume(got, repoVol); v == nil || v.CSI.VolumeAttributes["sharedConfigMap"] != "extra-yum-openshift-config-repos" {
		t.Fatalf("repo volume = %+v", v)
	}
	want := []string{
		clusterVol + "@/run/secrets/etc-pki-entitlement/e.pem:e.pem",
		clusterVol + "@/run/secrets/etc-pki-entitlement/e-key.pem:e-key.pem",
		extraVol + "@/run/secrets/etc-pki-entitlement/x.pem:x.pem",
		repoVol + "@/run/secrets/a.repo:a.repo",
	}
	if g := mountsOf(got.Spec.InitContainers[0]); strings.Join(g, " ") != strings.Join(want, " ") {
		t.Errorf("mounts = %v, want %v", g, want)
	}
	if g := recorded(got); g != `{"clusterBundles":{"cluster":1,"extra":4}}` {
		t.Errorf("generations = %s", g)
	}
}

func TestSingleClusterShareIsMountedWhole(t *testing.T) {
	m := newMutator(t, []any{
		clusterBundle("cluster", 1, nil, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "etc-pki-entitlement", "share-a", "e.pem")}, nil),
	}, access{ns + "/builder/cluster": true})
	got, result := mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: "cluster"}))
	if result.Denied != nil {
		t.Fatalf("denied: %s", result.Denied.Message)
	}
	want := "subscription-ent-" + shortHash("share-a") + "@/run/secrets/etc-pki-entitlement"
	if g := mountsOf(got.Spec.InitContainers[0]); len(g) != 1 || g[0] != want {
		t.Errorf("mounts = %v, want [%s]", g, want)
	}
}

func TestAlwaysInjectFilters(t *testing.T) {
	elsewhere := bundle("elsewhere", 1, always, []v1alpha1.ResolvedReference{ref("secret", "other", "e", "", "e.pem")}, nil)
	elsewhere.Namespace = "other"
	objects := []any{
		bundle("a", 1, always, []v1alpha1.ResolvedReference{ref("secret", ns, "a", "", "a.pem")}, nil),
		bundle("b", 1, always, []v1alpha1.ResolvedReference{ref("secret", ns, "b", "", "b.pem")}, nil),
		bundle("manual", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "m", "", "m.pem")}, nil),
		clusterBundle("ca", 1, always, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "ca", "share-ca", "ca.pem")}, nil),
		clusterBundle("cb", 1, always, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "cb", "share-cb", "cb.pem")}, nil),
		// Never offered: the label's value is "true" exactly, and a
		// Bundle is offered only to its own namespace's pods.
		bundle("false", 1, map[string]string{v1alpha1.AlwaysInjectLabel: "false"}, []v1alpha1.ResolvedReference{ref("secret", ns, "f", "", "f.pem")}, nil),
		bundle("capital", 1, map[string]string{v1alpha1.AlwaysInjectLabel: "True"}, []v1alpha1.ResolvedReference{ref("secret", ns, "t", "", "t.pem")}, nil),
		elsewhere,
		clusterBundle("cfalse", 1, map[string]string{v1alpha1.AlwaysInjectLabel: "yes"}, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "cf", "share-cf", "cf.pem")}, nil),
	}
	a := access{ns + "/builder/ca": true, ns + "/builder/cb": true, ns + "/builder/cfalse": true}
	for _, tc := range []struct {
		annotations map[string]string
		want        string
	}{
		{nil, `{"bundles":{"a":1,"b":1},"clusterBundles":{"ca":1,"cb":1}}`},
		{map[string]string{v1alpha1.AllowBundlesAnnotation: "b"}, `{"bundles":{"b":1},"clusterBundles":{"ca":1,"cb":1}}`},
		{map[string]string{v1alpha1.DenyBundlesAnnotation: "*"}, `{"clusterBundles":{"ca":1,"cb":1}}`},
		{map[string]string{v1alpha1.DenyBundlesAnnotation: "a", v1alpha1.DenyClusterBundlesAnnotation: "cb"}, `{"bundles":{"b":1},"clusterBundles":{"ca":1}}`},
		{map[string]string{v1alpha1.AllowClusterBundlesAnnotation: "cb", v1alpha1.DenyBundlesAnnotation: "*"}, `{"clusterBundles":{"cb":1}}`},
		{map[string]string{v1alpha1.AllowBundlesAnnotation: "a,b", v1alpha1.DenyBundlesAnnotation: "b", v1alpha1.DenyClusterBundlesAnnotation: "*"}, `{"bundles":{"a":1}}`},
		// An explicit request wins over a deny list.
		{map[string]string{v1alpha1.InjectBundleAnnotation: "manual,a", v1alpha1.DenyBundlesAnnotation: "*", v1alpha1.DenyClusterBundlesAnnotation: "*"}, `{"bundles":{"a":1,"manual":1}}`},
		{map[string]string{v1alpha1.DenyBundlesAnnotation: "*", v1alpha1.DenyClusterBundlesAnnotation: "*"}, ``},
	} {
		got, result := mutationtest.Admit(t, newMutator(t, objects, a), ns, pod(tc.annotations))
		if result.Denied != nil {
			t.Errorf("%v: denied: %s", tc.annotations, result.Denied.Message)
			continue
		}
		if g := recorded(got); g != tc.want {
			t.Errorf("%v: generations = %q, want %q", tc.annotations, g, tc.want)
		}
	}
}

// A bundle whose always-inject label is taken off (or set again) is offered
// as its cache now holds it: the index follows updates.
func TestAlwaysInjectFollowsTheLabel(t *testing.T) {
	bundles := NewBundleCache()
	auto := bundle("auto", 1, always, []v1alpha1.ResolvedReference{ref("secret", ns, "a", "", "a.pem")}, nil)
	if err := bundles.Add(auto); err != nil {
		t.Fatal(err)
	}
	m, err := New(onlyIndexed{bundles, t}, onlyIndexed{NewClusterBundleCache(), t}, access{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		labels map[string]string
		want   string
	}{{always, `{"bundles":{"auto":1}}`}, {nil, ""}, {map[string]string{v1alpha1.AlwaysInjectLabel: "false"}, ""}, {always, `{"bundles":{"auto":1}}`}} {
		updated := auto.DeepCopy()
		updated.Labels = tc.labels
		if err := bundles.Update(updated); err != nil {
			t.Fatal(err)
		}
		got, result := mutationtest.Admit(t, m, ns, pod(nil))
		if result.Denied != nil {
			t.Fatalf("labels %v: denied: %s", tc.labels, result.Denied.Message)
		}
		if g := recorded(got); g != tc.want {
			t.Errorf("labels %v: generations = %q, want %q", tc.labels, g, tc.want)
		}
	}
}

func TestAlwaysInjectSkipsWhatThePodCannotUse(t *testing.T) {
	m := newMutator(t, []any{
		clusterBundle("restricted", 1, always, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "r", "share-r", "r.pem")}, nil),
		func() *v1alpha1.Bundle {
			b := bundle("stale", 3, always, nil, nil)
			b.Status.ObservedGeneration = 2
			return b
		}(),
	}, access{})
	got, result := mutationtest.Admit(t, m, ns, pod(nil))
	if result.Denied != nil || len(result.Patch) != 0 || got.Annotations != nil {
		t.Fatalf("want the pod untouched, got %+v", result)
	}
	want := []string{
		`always-inject bundle "stale" was not injected: it has not been validated by the operator yet (generation 3, status describes 2); retry in a few seconds`,
		`always-inject cluster bundle "restricted" was not injected: service account shop/builder may not get it`,
	}
	if strings.Join(result.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings = %q, want %q", result.Warnings, want)
	}
}

func TestDenials(t *testing.T) {
	invalid := clusterBundle("broken", 2, nil, nil, nil)
	invalid.Status.Conditions = []metav1.Condition{{Type: v1alpha1.ConditionInvalid, Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonMissingReference,
		Message: "secret openshift-config/gone not found"}}
	invalidBundle := bundle("broken", 2, nil, nil, nil)
	invalidBundle.Status.Conditions = invalid.Status.Conditions
	pending := bundle("pending", 2, nil, nil, nil)
	pending.Status = v1alpha1.BundleStatus{}
	objects := []any{
		invalid, invalidBundle, pending,
		bundle("one", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "s1", "", "k.pem", "a.pem")}, []v1alpha1.ResolvedReference{ref("configmap", ns, "r1", "", "redhat.repo")}),
		bundle("two", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "s2", "", "k.pem")}, []v1alpha1.ResolvedReference{ref("configmap", ns, "r2", "", "other.repo")}),
		bundle("three", 1, nil, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "r3", "", "redhat.repo")}),
		clusterBundle("cluster", 1, nil, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "e", "share-e", "k.pem")}, nil),
		clusterBundle("secret-only", 1, nil, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "x", "share-x", "x.pem")}, nil),
		bundle("runtime", 1, nil, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "runtime", "", "rhsm")}),
		bundle("token", 1, nil, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "token", "", "kubernetes.io")}),
		bundle("eks", 1, nil, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "eks", "", "eks.amazonaws.com")}),
	}
	a := access{ns + "/builder/cluster": true, "shop/flaky/error": true, "shop/slow/timeout": true}
	withMount := func(m corev1.VolumeMount) *corev1.Pod {
		p := pod(map[string]string{v1alpha1.InjectBundleAnnotation: "one"})
		p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, m)
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: m.Name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		return p
	}
	flaky := pod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: "cluster"})
	flaky.Spec.ServiceAccountName = "flaky"
	slow := pod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: "cluster"})
	slow.Spec.ServiceAccountName = "slow"
	defaultSA := pod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: "cluster"})
	defaultSA.Spec.ServiceAccountName = ""
	for _, tc := range []struct {
		name, reason, message string
		pod                   *corev1.Pod
	}{
		{"missing bundle", "BundleNotFound", `bundle "nope" requested by annotation subscription.openshift.io/inject-bundle does not exist in namespace "shop"`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "one,nope"})},
		{"missing cluster bundle", "BundleNotFound", `cluster bundle "nope" requested by annotation subscription.openshift.io/inject-cluster-bundle does not exist`,
			pod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: "nope"})},
		{"invalid bundle", "BundleNotReady", `bundle "broken" in namespace "shop" is invalid (MissingReference): secret openshift-config/gone not found`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "broken"})},
		{"invalid cluster bundle", "BundleNotReady", `cluster bundle "broken" is invalid (MissingReference): secret openshift-config/gone not found`,
			pod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: "broken"})},
		{"not yet validated", "BundleNotReady", `bundle "pending" in namespace "shop" has not been validated by the operator yet (generation 2, status describes 0); retry in a few seconds`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "pending"})},
		{"overlapping entitlements", "OverlappingKeys", `entitlement key "k.pem" is in both secret shop/s1 (bundle "one") and secret shop/s2 (bundle "two"); keys must be unique across the injected bundles`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "one,two"})},
		{"overlap with a cluster bundle", "OverlappingKeys", `entitlement key "k.pem" is in both secret shop/s1 (bundle "one") and secret openshift-config/e (cluster bundle "cluster"); keys must be unique across the injected bundles`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "one", v1alpha1.InjectClusterBundleAnnotation: "cluster"})},
		{"overlapping repos", "OverlappingKeys", `yum repository key "redhat.repo" is in both configmap shop/r1 (bundle "one") and configmap shop/r3 (bundle "three"); keys must be unique across the injected bundles`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "one,three"})},
		{"no access", "Forbidden", `service account shop/builder may not get cluster bundle "secret-only": bind it to a role that includes ClusterRole "secret-only-subscription-bundle" (the bundle's spec.aggregateToClusterRoles aggregates it into those roles), or bind that ClusterRole directly`,
			pod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: "secret-only"})},
		{"default service account", "Forbidden", `service account shop/default may not get cluster bundle "cluster": bind it to a role that includes ClusterRole "cluster-subscription-bundle" (the bundle's spec.aggregateToClusterRoles aggregates it into those roles), or bind that ClusterRole directly`,
			defaultSA},
		{"access review fails", "LookupFailed", `checking whether service account shop/flaky may get cluster bundle "cluster": the server is currently unable to handle the request`,
			flaky},
		{"access review times out", "AccessCheckTimedOut", `the access check timed out: whether service account shop/slow may get cluster bundle "cluster" is not known ` +
			`(the API server did not answer the SubjectAccessReview within 2s); the pod is refused rather than started without it; retry`,
			slow},
		{"empty entry", "MalformedAnnotation", `annotation subscription.openshift.io/inject-bundle: "one,,two" is malformed: entry 2 is empty; expected a comma-separated list of names`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "one,,two"})},
		{"wildcard request", "MalformedAnnotation", `annotation subscription.openshift.io/inject-bundle: "*" is malformed: "*" is only allowed alone, in allow/deny annotations`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "*"})},
		{"bad name", "MalformedAnnotation", `annotation subscription.openshift.io/deny-cluster-bundles: "Cluster_A" is malformed: "Cluster_A" is not a valid bundle name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "one", v1alpha1.DenyClusterBundlesAnnotation: "Cluster_A"})},
		{"user volume with our name", "Conflict", `the pod already has a volume named "subscription-entitlements", which subscription injection did not add and needs for bundle "one"; rename that volume`,
			withMount(corev1.VolumeMount{Name: "subscription-entitlements", MountPath: "/data"})},
		{"user mount at the entitlement directory", "Conflict", `container "build" already mounts volume "keys" at /run/secrets/etc-pki-entitlement/, where bundle "one" mounts entitlement keys (volume "subscription-entitlements"); remove or move that mount`,
			withMount(corev1.VolumeMount{Name: "keys", MountPath: "/run/secrets/etc-pki-entitlement/"})},
		{"user mount at the entitlement directory through /var/run", "Conflict", `container "build" already mounts volume "keys" at /var/run/secrets/etc-pki-entitlement, where bundle "one" mounts entitlement keys (volume "subscription-entitlements"); remove or move that mount`,
			withMount(corev1.VolumeMount{Name: "keys", MountPath: "/var/run/secrets/etc-pki-entitlement"})},
		{"user mount inside the entitlement directory", "Conflict", `container "build" mounts volume "keys" at /run/secrets/etc-pki-entitlement/extra.pem, inside /run/secrets/etc-pki-entitlement, where bundle "one" mounts entitlement keys (volume "subscription-entitlements"); remove or move that mount`,
			withMount(corev1.VolumeMount{Name: "keys", MountPath: "/run/secrets/etc-pki-entitlement/extra.pem"})},
		{"user mount at a repo file", "Conflict", `container "build" already mounts volume "repo" at /run/secrets/redhat.repo, where bundle "one" mounts a yum repository file (volume "subscription-yum-repos"); remove or move that mount`,
			withMount(corev1.VolumeMount{Name: "repo", MountPath: "/run/secrets/redhat.repo", SubPath: "x"})},
		{"user mount inside a repo file", "Conflict", `container "build" mounts volume "repo" at /var/run/secrets/redhat.repo/x, inside /run/secrets/redhat.repo, where bundle "one" mounts a yum repository file (volume "subscription-yum-repos"); remove or move that mount`,
			withMount(corev1.VolumeMount{Name: "repo", MountPath: "/var/run/secrets/redhat.repo/x"})},
		{"user mount at /var/run/secrets", "Conflict", `container "build" mounts volume "secrets" at /var/run/secrets, which would hide /run/secrets/etc-pki-entitlement, where bundle "one" mounts entitlement keys (volume "subscription-entitlements"); remove or move that mount`,
			withMount(corev1.VolumeMount{Name: "secrets", MountPath: "/var/run/secrets"})},
		{"user mount at /run", "Conflict", `container "build" mounts volume "run" at /run/, which would hide /run/secrets/etc-pki-entitlement, where bundle "one" mounts entitlement keys (volume "subscription-entitlements"); remove or move that mount`,
			withMount(corev1.VolumeMount{Name: "run", MountPath: "/run/"})},
		{"user mount at /", "Conflict", `container "build" mounts volume "root" at /, which would hide /run/secrets/etc-pki-entitlement, where bundle "one" mounts entitlement keys (volume "subscription-entitlements"); remove or move that mount`,
			withMount(corev1.VolumeMount{Name: "root", MountPath: "/"})},
		{"repo key used by the runtime", "Conflict", `yum repository key "rhsm" of configmap shop/runtime (bundle "runtime") would be mounted at /run/secrets/rhsm, which subscription injection reserves; rename that key`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "runtime"})},
		{"repo key used by the service account token", "Conflict", `yum repository key "kubernetes.io" of configmap shop/token (bundle "token") would be mounted at /run/secrets/kubernetes.io, which subscription injection reserves; rename that key`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "token"})},
		{"repo key used by pod identity's token", "Conflict", `yum repository key "eks.amazonaws.com" of configmap shop/eks (bundle "eks") would be mounted at /run/secrets/eks.amazonaws.com, which subscription injection reserves; rename that key`,
			pod(map[string]string{v1alpha1.InjectBundleAnnotation: "eks"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, result := mutationtest.Admit(t, newMutator(t, objects, a), ns, tc.pod)
			if result.Denied == nil {
				t.Fatalf("admitted with patch %+v", result.Patch)
			}
			if result.Denied.Reason != tc.reason || result.Denied.Message != tc.message {
				t.Errorf("denied %s: %s\nwant   %s: %s", result.Denied.Reason, result.Denied.Message, tc.reason, tc.message)
			}
		})
	}
}

func TestReadmittingAnInjectedPodChangesNothing(t *testing.T) {
	m := newMutator(t, []any{
		bundle("rhel", 2, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent-a", "", "1.pem")}, []v1alpha1.ResolvedReference{ref("configmap", ns, "satellite", "", "redhat.repo")}),
		clusterBundle("cluster", 1, nil, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "e", "share-e", "e.pem")}, nil),
	}, access{ns + "/builder/cluster": true})
	first, result := mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel", v1alpha1.InjectClusterBundleAnnotation: "cluster"}))
	if result.Denied != nil || len(result.Patch) == 0 {
		t.Fatalf("first admission: %+v", result)
	}
	second, result := mutationtest.Admit(t, m, ns, first)
	if result.Denied != nil || len(result.Patch) != 0 {
		t.Fatalf("second admission of the same pod: %+v", result)
	}
	if len(second.Spec.Volumes) != 4 || len(second.Spec.Containers[0].VolumeMounts) != 4 {
		t.Errorf("volumes %d, mounts %d", len(second.Spec.Volumes), len(second.Spec.Containers[0].VolumeMounts))
	}
}

func TestCopiedPodIsReinjectedWithCurrentBundles(t *testing.T) {
	old := []any{bundle("rhel", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "old", "", "old.pem")}, []v1alpha1.ResolvedReference{ref("configmap", ns, "r", "", "old.repo")})}
	injected, _ := mutationtest.Admit(t, newMutator(t, old, nil), ns, pod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}))
	current := []any{bundle("rhel", 2, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "new", "", "new.pem")}, nil)}
	copied, result := mutationtest.Admit(t, newMutator(t, current, nil), ns, injected)
	if result.Denied != nil {
		t.Fatalf("denied: %s", result.Denied.Message)
	}
	if v := volume(copied, "subscription-entitlements"); v == nil || v.Projected.Sources[0].Secret.Name != "new" || len(v.Projected.Sources) != 1 {
		t.Errorf("entitlements = %+v", v)
	}
	if v := volume(copied, "subscription-yum-repos"); v != nil {
		t.Errorf("stale repo volume kept: %+v", v)
	}
	want := "kube-api-access-x7k2p@/var/run/secrets/kubernetes.io/serviceaccount subscription-entitlements@/run/secrets/etc-pki-entitlement"
	if g := strings.Join(mountsOf(copied.Spec.Containers[0]), " "); g != want {
		t.Errorf("mounts = %s, want %s", g, want)
	}
	if g := recorded(copied); g != `{"bundles":{"rhel":2}}` {
		t.Errorf("generations = %s", g)
	}
}

func TestEphemeralContainersGetTheInjectedVolumes(t *testing.T) {
	m := newMutator(t, []any{
		bundle("rhel", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent", "", "1.pem")}, []v1alpha1.ResolvedReference{ref("configmap", ns, "r", "", "redhat.repo")}),
	}, nil)
	injected, _ := mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}))
	old := injected.DeepCopy()
	old.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger-1", Image: "ubi9"}}}
	updated := old.DeepCopy()
	updated.Spec.EphemeralContainers = append(updated.Spec.EphemeralContainers, corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger-2", Image: "ubi9"}})

	result := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Update, ns, "ephemeralcontainers", updated, old))
	if result.Denied != nil {
		t.Fatalf("denied: %s", result.Denied.Message)
	}
	got := mutationtest.ApplyPatch(t, updated, result)
	if m := got.Spec.EphemeralContainers[0].VolumeMounts; len(m) != 0 {
		t.Errorf("existing ephemeral container changed: %+v", m)
	}
	want := "subscription-entitlements@/run/secrets/etc-pki-entitlement subscription-yum-repos@/run/secrets/subscription/subscription-yum-repos"
	if g := strings.Join(mountsOf(corev1.Container(got.Spec.EphemeralContainers[1].EphemeralContainerCommon)), " "); g != want {
		t.Errorf("ephemeral mounts = %s, want %s", g, want)
	}
	for _, m := range got.Spec.EphemeralContainers[1].VolumeMounts {
		if m.SubPath != "" {
			t.Errorf("subPath in an ephemeral container: %+v", m)
		}
	}
	if len(result.Warnings) != 1 || !strings.Contains(result.Warnings[0], `ephemeral container "debugger-2": Kubernetes forbids subPath mounts`) {
		t.Errorf("warnings = %q", result.Warnings)
	}

	plain := pod(nil)
	plain.Spec.EphemeralContainers = updated.Spec.EphemeralContainers
	if r := m.Mutate(context.Background(), mutation.RequestFor(admissionv1.Update, ns, "ephemeralcontainers", plain, pod(nil))); len(r.Patch) != 0 || r.Denied != nil {
		t.Errorf("pod without injection: %+v", r)
	}
}

func TestPodWithoutAnnotationsGetsAnnotationMap(t *testing.T) {
	m := newMutator(t, []any{bundle("a", 1, always, []v1alpha1.ResolvedReference{ref("secret", ns, "a", "", "a.pem")}, nil)}, nil)
	got, result := mutationtest.Admit(t, m, ns, pod(nil))
	if result.Denied != nil || recorded(got) != `{"bundles":{"a":1}}` {
		t.Fatalf("result %+v, annotations %v", result, got.Annotations)
	}
}

// BenchmarkMutateThreeBundles is one realistic pod asking for two
// namespaced bundles and one cluster bundle.
func BenchmarkMutateThreeBundles(b *testing.B) {
	m := newMutator(b, []any{
		bundle("rhel", 2, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent-a", "", "1.pem", "1-key.pem")}, []v1alpha1.ResolvedReference{ref("configmap", ns, "sat", "", "redhat.repo")}),
		bundle("driver", 5, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent-b", "", "2.pem", "2-key.pem")}, nil),
		clusterBundle("cluster", 1, nil, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "e", "share-e", "e.pem", "e-key.pem")}, nil),
	}, access{ns + "/builder/cluster": true})
	p := pod(map[string]string{v1alpha1.InjectBundleAnnotation: "rhel,driver", v1alpha1.InjectClusterBundleAnnotation: "cluster"})
	req := mutation.RequestFor(admissionv1.Create, ns, "", p, nil)
	b.ReportAllocs()
	for b.Loop() {
		if r := m.Mutate(context.Background(), req); r.Denied != nil || len(r.Patch) == 0 {
			b.Fatalf("%+v", r)
		}
	}
}

func TestAlwaysInjectNeverRefusesAPod(t *testing.T) {
	objects := []any{
		bundle("asked", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "asked", "", "k.pem")}, nil),
		bundle("auto-clash", 1, always, []v1alpha1.ResolvedReference{ref("secret", ns, "clash", "", "k.pem")}, nil),
		bundle("auto-repo", 1, always, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "repo", "", "redhat.repo")}),
		clusterBundle("auto-flaky", 1, always, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "f", "share-f", "f.pem")}, nil),
	}
	a := access{ns + "/builder/error": true}

	// Overlapping a requested bundle: the always-inject one is left out.
	got, result := mutationtest.Admit(t, newMutator(t, objects, a), ns, pod(map[string]string{v1alpha1.InjectBundleAnnotation: "asked"}))
	if result.Denied != nil {
		t.Fatalf("denied: %s", result.Denied.Message)
	}
	if g := recorded(got); g != `{"bundles":{"asked":1,"auto-repo":1}}` {
		t.Errorf("generations = %s", g)
	}
	want := []string{
		`always-inject cluster bundle "auto-flaky" was not injected: checking whether service account shop/builder may get it failed: the server is currently unable to handle the request`,
		`always-inject bundle "auto-clash" was not injected: entitlement key "k.pem" is in both secret shop/asked (bundle "asked") and secret shop/clash (bundle "auto-clash"); keys must be unique across the injected bundles`,
	}
	if strings.Join(result.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings = %q\nwant %q", result.Warnings, want)
	}

	// Clashing with the pod's own mount: the pod asked for nothing, so it
	// is admitted unchanged, with the reason.
	mine := pod(map[string]string{v1alpha1.DenyBundlesAnnotation: "auto-clash"})
	mine.Spec.Volumes = append(mine.Spec.Volumes, corev1.Volume{Name: "repo", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	mine.Spec.Containers[0].VolumeMounts = append(mine.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "repo", MountPath: "/run/secrets/redhat.repo"})
	_, result = mutationtest.Admit(t, newMutator(t, objects, a), ns, mine)
	if result.Denied != nil || len(result.Patch) != 0 {
		t.Fatalf("want the pod admitted unchanged, got %+v", result)
	}
	if w := result.Warnings[len(result.Warnings)-1]; w != `always-inject bundle "auto-repo" was not injected: container "build" already mounts volume "repo" at /run/secrets/redhat.repo, where bundle "auto-repo" mounts a yum repository file (volume "subscription-yum-repos"); remove or move that mount` {
		t.Errorf("last warning = %q", w)
	}

	// An access check that times out leaves the bundle out, and says so.
	slow := pod(nil)
	slow.Spec.ServiceAccountName = "slow"
	got, result = mutationtest.Admit(t, newMutator(t, objects, access{ns + "/slow/timeout": true}), ns, slow)
	if result.Denied != nil || recorded(got) != `{"bundles":{"auto-clash":1,"auto-repo":1}}` {
		t.Fatalf("result = %+v, annotations %v", result, got.Annotations)
	}
	wantWarning := `always-inject cluster bundle "auto-flaky" was not injected: the access check for service account shop/slow timed out (the API server did not answer the SubjectAccessReview within 2s)`
	if !slices.Contains(result.Warnings, wantWarning) {
		t.Errorf("warnings = %q\nwant %q among them", result.Warnings, wantWarning)
	}
}

func TestReposOnlyLeaveTheEntitlementDirectoryToThePod(t *testing.T) {
	m := newMutator(t, []any{bundle("repos", 1, nil, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "r", "", "redhat.repo")})}, nil)
	p := pod(map[string]string{v1alpha1.InjectBundleAnnotation: "repos"})
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "keys", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "keys", MountPath: EntitlementDir})
	got, result := mutationtest.Admit(t, m, ns, p)
	if result.Denied != nil {
		t.Fatalf("denied: %s", result.Denied.Message)
	}
	want := "kube-api-access-x7k2p@/var/run/secrets/kubernetes.io/serviceaccount keys@/run/secrets/etc-pki-entitlement subscription-yum-repos@/run/secrets/redhat.repo:redhat.repo"
	if g := strings.Join(mountsOf(got.Spec.Containers[0]), " "); g != want {
		t.Errorf("mounts = %s", g)
	}
}

func TestRepoKeyOnAReservedPathIsRefused(t *testing.T) {
	m := newMutator(t, []any{bundle("bad", 1, nil, nil, []v1alpha1.ResolvedReference{ref("configmap", ns, "r", "", "etc-pki-entitlement")})}, nil)
	_, result := mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectBundleAnnotation: "bad"}))
	want := `yum repository key "etc-pki-entitlement" of configmap shop/r (bundle "bad") would be mounted at /run/secrets/etc-pki-entitlement, which subscription injection reserves; rename that key`
	if result.Denied == nil || result.Denied.Message != want {
		t.Fatalf("result = %+v\nwant denial %s", result, want)
	}
}

// Only the names the injection gives are ours: a user's volume that merely
// starts like them survives re-admission of an injected pod (found by
// FuzzMutator: it used to be dropped with its mounts).
func TestReinvocationKeepsTheUsersLookalikeVolume(t *testing.T) {
	m := newMutator(t, []any{bundle("one", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "s1", "", "k.pem")}, nil)}, nil)
	p := pod(map[string]string{v1alpha1.InjectBundleAnnotation: "one"})
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "subscription-data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "subscription-data", MountPath: "/data"})
	injected, result := mutationtest.Admit(t, m, ns, p)
	if result.Denied != nil {
		t.Fatal(result.Denied.Message)
	}
	again, result := mutationtest.Admit(t, m, ns, injected)
	if result.Denied != nil || len(result.Patch) != 0 {
		t.Fatalf("re-admission: %+v", result)
	}
	if volume(again, "subscription-data") == nil || !slices.Contains(mountsOf(again.Spec.Containers[0]), "subscription-data@/data") {
		t.Fatalf("the user's volume or mount was lost: %v", mountsOf(again.Spec.Containers[0]))
	}

	for name, ours := range map[string]bool{
		"subscription-entitlements": true, "subscription-yum-repos": true,
		"subscription-ent-" + shortHash("share"): true, "subscription-yum-0123456789": true,
		"subscription-data": false, "subscription-ent-": false, "subscription-ent-0123456789a": false, "subscription-yum-ABCDEF0123": false,
	} {
		if isInjectedVolume(name) != ours {
			t.Errorf("isInjectedVolume(%q) = %v", name, !ours)
		}
	}
}

// Without bundle-generations, volumes and mounts under the injection's own
// names that it would not add are refused, not kept: admitted again, the
// pod would have them replaced (found by FuzzMutator).
func TestInjectedNamesTheInjectionWouldNotAddAreRefused(t *testing.T) {
	objects := []any{
		bundle("one", 1, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "s1", "", "k.pem")}, []v1alpha1.ResolvedReference{ref("configmap", ns, "r1", "", "redhat.repo")}),
		clusterBundle("cluster", 1, nil, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "e", "share-e", "c.pem")}, nil),
	}
	m := newMutator(t, objects, access{ns + "/builder/cluster": true})
	injected, result := mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectBundleAnnotation: "one"}))
	if result.Denied != nil {
		t.Fatal(result.Denied.Message)
	}
	// A copy of the injected pod's spec without its annotations.
	copied := func(request string) *corev1.Pod {
		p := injected.DeepCopy()
		p.Annotations = map[string]string{request: map[string]string{v1alpha1.InjectBundleAnnotation: "one", v1alpha1.InjectClusterBundleAnnotation: "cluster"}[request]}
		return p
	}

	same := copied(v1alpha1.InjectBundleAnnotation)
	if _, result := mutationtest.Admit(t, m, ns, same); result.Denied != nil {
		t.Errorf("a copy asking for the same bundle: %s", result.Denied.Message)
	}

	extraMount := copied(v1alpha1.InjectBundleAnnotation)
	extraMount.Spec.Containers[0].VolumeMounts = append(extraMount.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "subscription-entitlements", MountPath: "/data"})
	want := `container "build" mounts volume "subscription-entitlements" at /data, where subscription injection does not mount it; that volume is the one subscription injection adds for bundle "one": remove that mount`
	if _, result := mutationtest.Admit(t, m, ns, extraMount); result.Denied == nil || result.Denied.Message != want {
		t.Errorf("an extra mount of an injected volume: %+v\nwant %s", result.Denied, want)
	}

	// Without a record, the copied volume is the user's, kept; its mounts
	// are in the way of the cluster bundle's.
	other := copied(v1alpha1.InjectClusterBundleAnnotation)
	want = `container "prepare" already mounts volume "subscription-entitlements" at /run/secrets/etc-pki-entitlement, where cluster bundle "cluster" mounts entitlement keys (volume "subscription-ent-` + shortHash("share-e") + `"); remove or move that mount`
	if _, result := mutationtest.Admit(t, m, ns, other); result.Denied == nil || result.Denied.Message != want {
		t.Errorf("an injected volume no longer injected: %+v\nwant %s", result.Denied, want)
	}
	// With bundle-generations the same pod is a copy whose injection is redone.
	other.Annotations[v1alpha1.BundleGenerationsAnnotation] = injected.Annotations[v1alpha1.BundleGenerationsAnnotation]
	redone, result := mutationtest.Admit(t, m, ns, other)
	if result.Denied != nil || volume(redone, "subscription-entitlements") != nil || volume(redone, "subscription-ent-"+shortHash("share-e")) == nil {
		t.Errorf("redoing a copied injection: %+v, volumes %v", result.Denied, redone.Spec.Volumes)
	}
}

// unanswered is an access reviewer whose reviews never come back: each
// waits for its caller's deadline.
type unanswered struct{ withDeadline *atomic.Int32 }

func (u unanswered) MayGetClusterBundle(ctx context.Context, _, _, _ string) (bool, error) {
	if _, ok := ctx.Deadline(); ok {
		u.withDeadline.Add(1)
	}
	<-ctx.Done()
	return false, fmt.Errorf("no answer: %w", ctx.Err())
}

// The access checks of always-inject ClusterBundles share one budget: when
// the API server does not answer, the pod is admitted without them, with
// a warning each, in time for the mutators after this one.
func TestAlwaysInjectChecksShareOneBudget(t *testing.T) {
	objects := []any{
		clusterBundle("auto-a", 1, always, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "a", "share-a", "a.pem")}, nil),
		clusterBundle("auto-b", 1, always, []v1alpha1.ResolvedReference{ref("secret", "openshift-config", "b", "share-b", "b.pem")}, nil),
	}
	m := newMutator(t, objects, nil)
	asked := &atomic.Int32{}
	m.access = unanswered{withDeadline: asked}
	m.alwaysInjectBudget = 20 * time.Millisecond
	_, result := mutationtest.Admit(t, m, ns, pod(nil))
	if result.Denied != nil || len(result.Patch) != 0 {
		t.Fatalf("want the pod admitted unchanged, got %+v", result)
	}
	for _, name := range []string{"auto-a", "auto-b"} {
		want := fmt.Sprintf(`always-inject cluster bundle %q was not injected: the access check for service account shop/builder timed out`, name)
		if !slices.ContainsFunc(result.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
			t.Errorf("warnings = %q\nwant one starting %q", result.Warnings, want)
		}
	}
	if asked.Load() != 2 {
		t.Errorf("%d of 2 checks had a deadline", asked.Load())
	}
}

// failingIndex is a cache whose always-inject index cannot be read: its
// informer's store is gone.
type failingIndex struct{}

func (failingIndex) ByIndex(string, string) ([]any, error) {
	return nil, errors.New("the store is gone")
}

// A pod that asked for nothing is never refused because the always-inject
// bundles could not be listed: it is admitted, with a warning for each list.
func TestAPodThatAskedForNothingIsNotRefusedWhenListingFails(t *testing.T) {
	m := newMutator(t, nil, nil)
	m.alwaysBundles, m.alwaysClusterBundles = failingIndex{}, failingIndex{}
	_, result := mutationtest.Admit(t, m, ns, pod(nil))
	if result.Denied != nil || len(result.Patch) != 0 {
		t.Fatalf("want the pod admitted unchanged, got %+v", result)
	}
	want := []string{
		`any always-inject bundle of namespace "shop" was not injected: listing them failed: the store is gone`,
		`any always-inject cluster bundle was not injected: listing them failed: the store is gone`,
	}
	if !slices.Equal(result.Warnings, want) {
		t.Errorf("warnings = %q\nwant %q", result.Warnings, want)
	}
}
