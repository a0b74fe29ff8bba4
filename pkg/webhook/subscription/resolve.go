package subscription

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

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
	reasonAccessCheckTimedOut = "AccessCheckTimedOut"
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
	// requested is whether the pod asked for any bundle by annotation: a
	// pod that did not is never refused.
	requested bool
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
func (m *Mutator) plan(ctx context.Context, namespace string, pod *mutation.PodOutline) (*plan, *denial) {
	p := &plan{}
	requested, d := requestedNames(pod.Metadata.Annotations, subscriptionv1alpha1.InjectBundleAnnotation)
	if d != nil {
		return nil, d
	}
	requestedCluster, d := requestedNames(pod.Metadata.Annotations, subscriptionv1alpha1.InjectClusterBundleAnnotation)
	if d != nil {
		return nil, d
	}
	bundleFilter, err := parseFilter(pod.Metadata.Annotations, subscriptionv1alpha1.AllowBundlesAnnotation, subscriptionv1alpha1.DenyBundlesAnnotation)
	if err != nil {
		return nil, deny(reasonMalformedAnnotation, "%v", err)
	}
	clusterFilter, err := parseFilter(pod.Metadata.Annotations, subscriptionv1alpha1.AllowClusterBundlesAnnotation, subscriptionv1alpha1.DenyClusterBundlesAnnotation)
	if err != nil {
		return nil, deny(reasonMalformedAnnotation, "%v", err)
	}

	p.requested = len(requested) > 0 || len(requestedCluster) > 0
	serviceAccount := pod.Spec.ServiceAccountName
	if serviceAccount == "" {
		serviceAccount = "default"
	}

	// Bundles asked for by name: any problem refuses the pod.
	for _, name := range requested {
		b, err := m.bundles.Bundles(namespace).Get(name)
		if apierrors.IsNotFound(err) {
			return nil, deny(reasonBundleNotFound, "bundle %q requested by annotation %s does not exist in namespace %q",
				name, subscriptionv1alpha1.InjectBundleAnnotation, namespace)
		} else if err != nil {
			return nil, deny(reasonLookupFailed, "reading bundle %q in namespace %q: %v", name, namespace, err)
		}
		if why := m.notReady(b, b.Status.ObservedGeneration, b.Status.Conditions); why != "" {
			return nil, deny(reasonBundleNotReady, "bundle %q in namespace %q %s", name, namespace, why)
		}
		p.add(bundleSources(b))
		p.generations.addBundle(b.Name, b.Generation)
	}
	// The pod's service account must be allowed to get each cluster bundle.
	for _, name := range requestedCluster {
		cb, err := m.clusterBundles.Get(name)
		if apierrors.IsNotFound(err) {
			return nil, deny(reasonBundleNotFound, "cluster bundle %q requested by annotation %s does not exist",
				name, subscriptionv1alpha1.InjectClusterBundleAnnotation)
		} else if err != nil {
			return nil, deny(reasonLookupFailed, "reading cluster bundle %q: %v", name, err)
		}
		if why := m.notReady(cb, cb.Status.ObservedGeneration, cb.Status.Conditions); why != "" {
			return nil, deny(reasonBundleNotReady, "cluster bundle %q %s", name, why)
		}
		allowed, err := m.access.MayGetClusterBundle(ctx, namespace, serviceAccount, name)
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, deny(reasonAccessCheckTimedOut, "the access check timed out: whether service account %s/%s may get cluster bundle %q is not known (%v); "+
				"the pod is refused rather than started without it; retry", namespace, serviceAccount, name, err)
		}
		if err != nil {
			return nil, deny(reasonLookupFailed, "checking whether service account %s/%s may get cluster bundle %q: %v", namespace, serviceAccount, name, err)
		}
		if !allowed {
			return nil, deny(reasonForbidden, "service account %s/%s may not get cluster bundle %q: bind it to a role that includes ClusterRole %q "+
				"(the bundle's spec.aggregateToClusterRoles aggregates it into those roles), or bind that ClusterRole directly",
				namespace, serviceAccount, name, clusterRoleName(cb))
		}
		p.add(clusterBundleSources(cb))
		p.generations.addClusterBundle(cb.Name, cb.Generation)
	}
	if d := p.check(); d != nil {
		return nil, d
	}

	// Always-inject bundles: the pod did not ask, so it is never refused
	// for one; a bundle it cannot get is left out with a warning.
	always, err := m.bundles.Bundles(namespace).List(alwaysInject)
	if err != nil {
		return nil, deny(reasonLookupFailed, "listing always-inject bundles in namespace %q: %v", namespace, err)
	}
	slices.SortFunc(always, func(a, b *subscriptionv1alpha1.Bundle) int { return strings.Compare(a.Name, b.Name) })
	for _, b := range always {
		if slices.Contains(requested, b.Name) || !bundleFilter.admits(b.Name) {
			continue
		}
		what := fmt.Sprintf("always-inject bundle %q", b.Name)
		if why := m.notReady(b, b.Status.ObservedGeneration, b.Status.Conditions); why != "" {
			p.skip(what, "it "+why)
			continue
		}
		if p.tryAdd(what, bundleSources(b)) {
			p.generations.addBundle(b.Name, b.Generation)
		}
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
		what := fmt.Sprintf("always-inject cluster bundle %q", cb.Name)
		if why := m.notReady(cb, cb.Status.ObservedGeneration, cb.Status.Conditions); why != "" {
			p.skip(what, "it "+why)
			continue
		}
		allowed, err := m.access.MayGetClusterBundle(ctx, namespace, serviceAccount, cb.Name)
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			p.skip(what, fmt.Sprintf("the access check for service account %s/%s timed out (%v)", namespace, serviceAccount, err))
			continue
		case err != nil:
			p.skip(what, fmt.Sprintf("checking whether service account %s/%s may get it failed: %v", namespace, serviceAccount, err))
			continue
		case !allowed:
			p.skip(what, fmt.Sprintf("service account %s/%s may not get it", namespace, serviceAccount))
			continue
		}
		if p.tryAdd(what, clusterBundleSources(cb)) {
			p.generations.addClusterBundle(cb.Name, cb.Generation)
		}
	}
	return p, nil
}

// sources is what one bundle contributes.
type sources struct{ entitlements, repos []source }

func (p *plan) add(s sources) {
	p.entitlements = dedupe(append(p.entitlements, s.entitlements...))
	p.repos = dedupe(append(p.repos, s.repos...))
}

// tryAdd adds an always-inject bundle unless it would clash with what the
// pod already gets; then it is skipped with a warning.
func (p *plan) tryAdd(what string, s sources) bool {
	before := *p
	p.add(s)
	if d := p.check(); d != nil {
		p.entitlements, p.repos = before.entitlements, before.repos
		p.skip(what, d.message)
		return false
	}
	return true
}

func (p *plan) skip(what, why string) {
	p.warnings = append(p.warnings, fmt.Sprintf("%s was not injected: %s", what, why))
}

// check refuses keys that would land on the same file, or on a path the
// injection itself needs.
func (p *plan) check() *denial {
	if d := overlap(p.entitlements, "entitlement"); d != nil {
		return d
	}
	if d := overlap(p.repos, "yum repository"); d != nil {
		return d
	}
	for _, s := range p.repos {
		for _, k := range s.keys {
			if reservedRepoKeys[k] {
				return deny(reasonConflict, "yum repository key %q of %s (%s) would be mounted at %s/%s, which subscription injection reserves; rename that key",
					k, s.object(), s.origin, RepoDir, k)
			}
		}
	}
	return nil
}

// reservedRepoKeys are file names in /run/secrets the injection mounts
// directories at.
var reservedRepoKeys = map[string]bool{"etc-pki-entitlement": true, "subscription": true}

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
func (m *Mutator) notReady(bundle metav1.Object, observed int64, conditions []metav1.Condition) string {
	invalid := meta.FindStatusCondition(conditions, subscriptionv1alpha1.ConditionInvalid)
	switch {
	case observed != bundle.GetGeneration() || invalid == nil:
		return m.notValidated(bundle, observed)
	case invalid.Status != metav1.ConditionFalse:
		return fmt.Sprintf("is invalid (%s): %s", invalid.Reason, invalid.Message)
	}
	return ""
}

func bundleSources(b *subscriptionv1alpha1.Bundle) sources {
	origin := fmt.Sprintf("bundle %q", b.Name)
	var s sources
	for _, r := range b.Status.Entitlements {
		s.entitlements = append(s.entitlements, source{origin: origin, kind: "secret", namespace: r.Namespace, name: r.Name, keys: r.Keys})
	}
	for _, r := range b.Status.YumRepositories {
		s.repos = append(s.repos, source{origin: origin, kind: "configmap", namespace: r.Namespace, name: r.Name, keys: r.Keys})
	}
	return s
}

func clusterBundleSources(cb *subscriptionv1alpha1.ClusterBundle) sources {
	origin := fmt.Sprintf("cluster bundle %q", cb.Name)
	var s sources
	for _, r := range cb.Status.Entitlements {
		s.entitlements = append(s.entitlements, source{origin: origin, kind: "secret", namespace: r.Namespace, name: r.Name, keys: r.Keys, share: r.Share})
	}
	for _, r := range cb.Status.YumRepositories {
		s.repos = append(s.repos, source{origin: origin, kind: "configmap", namespace: r.Namespace, name: r.Name, keys: r.Keys, share: r.Share})
	}
	return s
}

func (g *generations) addBundle(name string, generation int64) {
	if g.Bundles == nil {
		g.Bundles = map[string]int64{}
	}
	g.Bundles[name] = generation
}

func (g *generations) addClusterBundle(name string, generation int64) {
	if g.ClusterBundles == nil {
		g.ClusterBundles = map[string]int64{}
	}
	g.ClusterBundles[name] = generation
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
func dedupe(list []source) []source {
	seen := map[string]bool{}
	out := make([]source, 0, len(list))
	for _, s := range list {
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
