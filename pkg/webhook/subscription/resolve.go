package subscription

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// Denial reasons, for metrics and logs.
const (
	reasonMalformedAnnotation = "MalformedAnnotation"
	reasonBundleNotFound      = "BundleNotFound"
	reasonBundleNotReady      = "BundleNotReady"
	reasonForbidden           = "Forbidden"
	reasonOverlappingKeys     = "OverlappingKeys"
	reasonConflict            = "Conflict"
	reasonLookupFailed        = "LookupFailed"
)

var alwaysInject = labels.SelectorFromSet(labels.Set{subscriptionv1alpha1.AlwaysInjectLabel: "true"})

// source is one Secret or ConfigMap to mount, and where it came from.
type source struct {
	// origin names the bundle in messages: `bundle "b"` or `cluster bundle "c"`.
	origin    string
	kind      string // "secret" or "configmap"
	namespace string
	name      string
	keys      []string
	// share is the SharedSecret/SharedConfigMap of a ClusterBundle; empty
	// for a namespaced Bundle, whose objects are projected directly.
	share string
}

func (s source) object() string { return s.kind + " " + s.namespace + "/" + s.name }

// plan is what one pod gets: the sources to mount and the generations to record.
type plan struct {
	entitlements []source
	repos        []source
	generations  generations
	warnings     []string
}

// generations is the JSON of the bundle-generations annotation.
type generations struct {
	Bundles        map[string]int64 `json:"bundles,omitempty"`
	ClusterBundles map[string]int64 `json:"clusterBundles,omitempty"`
}

func (g generations) empty() bool { return len(g.Bundles) == 0 && len(g.ClusterBundles) == 0 }

// denial is a refusal found while planning.
type denial struct{ reason, message string }

func (d *denial) result() mutation.Result { return mutation.Deny(d.reason, d.message) }

func deny(reason, format string, args ...any) *denial {
	return &denial{reason: reason, message: fmt.Sprintf(format, args...)}
}

// plan resolves every bundle the pod asks for or is given automatically,
// checks access and key uniqueness, and returns what to mount.
func (m *Mutator) plan(ctx context.Context, namespace string, pod *corev1.Pod) (*plan, *denial) {
	p := &plan{}
	requested, d := requestedNames(pod.Annotations, subscriptionv1alpha1.InjectBundleAnnotation)
	if d != nil {
		return nil, d
	}
	requestedCluster, d := requestedNames(pod.Annotations, subscriptionv1alpha1.InjectClusterBundleAnnotation)
	if d != nil {
		return nil, d
	}
	bundleFilter, err := parseFilter(pod.Annotations, subscriptionv1alpha1.AllowBundlesAnnotation, subscriptionv1alpha1.DenyBundlesAnnotation)
	if err != nil {
		return nil, deny(reasonMalformedAnnotation, "%v", err)
	}
	clusterFilter, err := parseFilter(pod.Annotations, subscriptionv1alpha1.AllowClusterBundlesAnnotation, subscriptionv1alpha1.DenyClusterBundlesAnnotation)
	if err != nil {
		return nil, deny(reasonMalformedAnnotation, "%v", err)
	}

	// Namespaced bundles: asked for by name, then always-inject ones.
	for _, name := range requested {
		b, err := m.bundles.Bundles(namespace).Get(name)
		if apierrors.IsNotFound(err) {
			return nil, deny(reasonBundleNotFound, "bundle %q requested by annotation %s does not exist in namespace %q",
				name, subscriptionv1alpha1.InjectBundleAnnotation, namespace)
		} else if err != nil {
			return nil, deny(reasonLookupFailed, "reading bundle %q in namespace %q: %v", name, namespace, err)
		}
		if why := notReady(b.Generation, b.Status.ObservedGeneration, b.Status.Conditions); why != "" {
			return nil, deny(reasonBundleNotReady, "bundle %q in namespace %q %s", name, namespace, why)
		}
		p.addBundle(b)
	}
	always, err := m.bundles.Bundles(namespace).List(alwaysInject)
	if err != nil {
		return nil, deny(reasonLookupFailed, "listing always-inject bundles in namespace %q: %v", namespace, err)
	}
	slices.SortFunc(always, func(a, b *subscriptionv1alpha1.Bundle) int { return strings.Compare(a.Name, b.Name) })
	for _, b := range always {
		if slices.Contains(requested, b.Name) || !bundleFilter.admits(b.Name) {
			continue
		}
		if why := notReady(b.Generation, b.Status.ObservedGeneration, b.Status.Conditions); why != "" {
			p.warnings = append(p.warnings, fmt.Sprintf("always-inject bundle %q was not injected: it %s", b.Name, why))
			continue
		}
		p.addBundle(b)
	}

	// Cluster bundles: the pod's service account must be allowed to get each.
	serviceAccount := pod.Spec.ServiceAccountName
	if serviceAccount == "" {
		serviceAccount = "default"
	}
	for _, name := range requestedCluster {
		cb, err := m.clusterBundles.Get(name)
		if apierrors.IsNotFound(err) {
			return nil, deny(reasonBundleNotFound, "cluster bundle %q requested by annotation %s does not exist",
				name, subscriptionv1alpha1.InjectClusterBundleAnnotation)
		} else if err != nil {
			return nil, deny(reasonLookupFailed, "reading cluster bundle %q: %v", name, err)
		}
		if why := notReady(cb.Generation, cb.Status.ObservedGeneration, cb.Status.Conditions); why != "" {
			return nil, deny(reasonBundleNotReady, "cluster bundle %q %s", name, why)
		}
		allowed, err := m.access.MayGetClusterBundle(ctx, namespace, serviceAccount, name)
		if err != nil {
			return nil, deny(reasonLookupFailed, "checking whether service account %s/%s may get cluster bundle %q: %v", namespace, serviceAccount, name, err)
		}
		if !allowed {
			return nil, deny(reasonForbidden, "service account %s/%s may not get cluster bundle %q: bind it to a role that includes ClusterRole %q "+
				"(the bundle's spec.aggregateToClusterRoles aggregates it into those roles), or bind that ClusterRole directly",
				namespace, serviceAccount, name, clusterRoleName(cb))
		}
		p.addClusterBundle(cb)
	}
	alwaysCluster, err := m.clusterBundles.List(alwaysInject)
	if err != nil {
		return nil, deny(reasonLookupFailed, "listing always-inject cluster bundles: %v", err)
	}
	slices.SortFunc(alwaysCluster, func(a, b *subscriptionv1alpha1.ClusterBundle) int { return strings.Compare(a.Name, b.Name) })
	for _, cb := range alwaysCluster {
		if slices.Contains(requestedCluster, cb.Name) || !clusterFilter.admits(cb.Name) {
			continue
		}
		if why := notReady(cb.Generation, cb.Status.ObservedGeneration, cb.Status.Conditions); why != "" {
			p.warnings = append(p.warnings, fmt.Sprintf("always-inject cluster bundle %q was not injected: it %s", cb.Name, why))
			continue
		}
		// A pod that did not ask is not refused for a bundle it may not
		// use: it simply does not get it.
		allowed, err := m.access.MayGetClusterBundle(ctx, namespace, serviceAccount, cb.Name)
		if err != nil || !allowed {
			p.warnings = append(p.warnings, fmt.Sprintf("always-inject cluster bundle %q was not injected: service account %s/%s may not get it",
				cb.Name, namespace, serviceAccount))
			continue
		}
		p.addClusterBundle(cb)
	}

	p.entitlements = dedupe(p.entitlements)
	p.repos = dedupe(p.repos)
	if d := overlap(p.entitlements, "entitlement"); d != nil {
		return nil, d
	}
	if d := overlap(p.repos, "yum repository"); d != nil {
		return nil, d
	}
	return p, nil
}

func requestedNames(annotations map[string]string, key string) ([]string, *denial) {
	v, ok := annotations[key]
	if !ok {
		return nil, nil
	}
	names, _, err := nameList(key, v, false)
	if err != nil {
		return nil, deny(reasonMalformedAnnotation, "%v", err)
	}
	return names, nil
}

// notReady explains why a bundle cannot be injected now, or returns "".
// The webhook trusts only a status that describes the current spec.
func notReady(generation, observed int64, conditions []metav1.Condition) string {
	invalid := meta.FindStatusCondition(conditions, subscriptionv1alpha1.ConditionInvalid)
	switch {
	case observed != generation || invalid == nil:
		return fmt.Sprintf("has not been validated by the operator yet (generation %d, status describes %d); retry in a few seconds", generation, observed)
	case invalid.Status != metav1.ConditionFalse:
		return fmt.Sprintf("is invalid (%s): %s", invalid.Reason, invalid.Message)
	}
	return ""
}

func (p *plan) addBundle(b *subscriptionv1alpha1.Bundle) {
	origin := fmt.Sprintf("bundle %q", b.Name)
	for _, r := range b.Status.Entitlements {
		p.entitlements = append(p.entitlements, source{origin: origin, kind: "secret", namespace: r.Namespace, name: r.Name, keys: r.Keys})
	}
	for _, r := range b.Status.YumRepositories {
		p.repos = append(p.repos, source{origin: origin, kind: "configmap", namespace: r.Namespace, name: r.Name, keys: r.Keys})
	}
	if p.generations.Bundles == nil {
		p.generations.Bundles = map[string]int64{}
	}
	p.generations.Bundles[b.Name] = b.Generation
}

func (p *plan) addClusterBundle(cb *subscriptionv1alpha1.ClusterBundle) {
	origin := fmt.Sprintf("cluster bundle %q", cb.Name)
	for _, r := range cb.Status.Entitlements {
		p.entitlements = append(p.entitlements, source{origin: origin, kind: "secret", namespace: r.Namespace, name: r.Name, keys: r.Keys, share: r.Share})
	}
	for _, r := range cb.Status.YumRepositories {
		p.repos = append(p.repos, source{origin: origin, kind: "configmap", namespace: r.Namespace, name: r.Name, keys: r.Keys, share: r.Share})
	}
	if p.generations.ClusterBundles == nil {
		p.generations.ClusterBundles = map[string]int64{}
	}
	p.generations.ClusterBundles[cb.Name] = cb.Generation
}

func clusterRoleName(cb *subscriptionv1alpha1.ClusterBundle) string {
	if cb.Status.ClusterRole != "" {
		return cb.Status.ClusterRole
	}
	return cb.Name + "-subscription-bundle"
}

// dedupe keeps the first source of each object: two bundles naming the same
// Secret mount it once rather than conflicting with themselves. A namespaced
// bundle comes first, so its projected volume wins over a share.
func dedupe(sources []source) []source {
	seen := map[string]bool{}
	out := sources[:0]
	for _, s := range sources {
		if seen[s.object()] {
			continue
		}
		seen[s.object()] = true
		out = append(out, s)
	}
	return out
}

// overlap refuses two objects with the same key: both would be the same
// file in one directory.
func overlap(sources []source, what string) *denial {
	owner := map[string]source{}
	for _, s := range sources {
		for _, k := range s.keys {
			if first, ok := owner[k]; ok {
				return deny(reasonOverlappingKeys, "%s key %q is in both %s (%s) and %s (%s); keys must be unique across the injected bundles",
					what, k, first.object(), first.origin, s.object(), s.origin)
			}
			owner[k] = s
		}
	}
	return nil
}
