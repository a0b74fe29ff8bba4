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
	// entitlements and repos are the sources of the bundles the pod asked
	// for; settle adds the always-inject candidates that fit.
	entitlements []source
	repos        []source
	generations  generations
	warnings     []string
	// requested is whether the pod asked for any bundle by annotation: a
	// pod that did not is never refused.
	requested bool
	// candidates are the always-inject bundles the pod may get, in order.
	candidates []candidate
}

// candidate is an always-inject bundle the pod may get if it fits.
type candidate struct {
	sources
	what   string
	record func(*generations)
}

// generations is the JSON of the bundle-generations annotation.
type generations struct {
	Bundles        map[string]int64 `json:"bundles,omitempty"`
	ClusterBundles map[string]int64 `json:"clusterBundles,omitempty"`
	// Volumes names the volumes the injection added: only these, and their
	// mounts, are replaced when the pod (or a copy of its spec) is admitted
	// again. Records written before it existed lack it; see ownershipOf.
	Volumes []string `json:"volumes"`
}

func (g generations) empty() bool { return len(g.Bundles) == 0 && len(g.ClusterBundles) == 0 }

// denial is a refusal found while planning.
type denial struct{ reason, message string }

func (d *denial) result() mutation.Result { return mutation.Deny(d.reason, d.message) }

func deny(reason, format string, args ...any) *denial {
	return &denial{reason: reason, message: fmt.Sprintf(format, args...)}
}

// plan resolves every bundle the pod asks for or is given automatically,
// checks access and the key uniqueness of what the pod asked for, and
// returns what to mount.
func (m *Mutator) plan(ctx context.Context, namespace string, pod *mutation.PodOutline) (*plan, *denial) {
	p := &plan{}
	annotations := pod.Metadata.Annotations
	requested, d := p.requestedNames(annotations, subscriptionv1alpha1.InjectBundleAnnotation)
	if d != nil {
		return nil, d
	}
	requestedCluster, d := p.requestedNames(annotations, subscriptionv1alpha1.InjectClusterBundleAnnotation)
	if d != nil {
		return nil, d
	}
	p.requested = len(requested) > 0 || len(requestedCluster) > 0
	bundleFilter, bundleErr := parseFilter(annotations, subscriptionv1alpha1.AllowBundlesAnnotation, subscriptionv1alpha1.DenyBundlesAnnotation)
	clusterFilter, clusterErr := parseFilter(annotations, subscriptionv1alpha1.AllowClusterBundlesAnnotation, subscriptionv1alpha1.DenyClusterBundlesAnnotation)
	// A malformed filter refuses a pod that asked for bundles, as any
	// malformed request does. A pod that asked for nothing is admitted, but
	// without any automatic injection: which bundles it meant to refuse is
	// not known.
	automatic := bundleErr == nil && clusterErr == nil && !platformPod(namespace, annotations)
	for _, err := range []error{bundleErr, clusterErr} {
		switch {
		case err == nil:
		case p.requested:
			return nil, deny(reasonMalformedAnnotation, "%v", err)
		default:
			p.warnings = append(p.warnings, fmt.Sprintf("%v; the pod asks for no bundle, so it was admitted without automatic subscription injection", err))
		}
	}

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
	if d := checkKeys(p.entitlements, p.repos); d != nil {
		return nil, d
	}
	if !automatic {
		return p, nil
	}

	// Always-inject bundles: the pod did not ask, so it is never refused
	// for one; a bundle it cannot get is left out with a warning, and
	// settle leaves out one that does not fit.
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
		name, generation := b.Name, b.Generation
		p.candidates = append(p.candidates, candidate{sources: bundleSources(b), what: what,
			record: func(g *generations) { g.addBundle(name, generation) }})
	}
	alwaysCluster, err := m.clusterBundles.List(alwaysInject)
	if err != nil {
		return nil, deny(reasonLookupFailed, "listing always-inject cluster bundles: %v", err)
	}
	slices.SortFunc(alwaysCluster, func(a, b *subscriptionv1alpha1.ClusterBundle) int { return strings.Compare(a.Name, b.Name) })
	// Their checks share one budget: a slow API server costs this pod its
	// always-inject bundles (with a warning), not the injections after.
	alwaysCtx, cancel := ctx, context.CancelFunc(func() {})
	if len(alwaysCluster) > 0 {
		alwaysCtx, cancel = context.WithTimeout(ctx, m.alwaysInjectBudget)
	}
	defer cancel()
	for _, cb := range alwaysCluster {
		if slices.Contains(requestedCluster, cb.Name) || !clusterFilter.admits(cb.Name) {
			continue
		}
		what := fmt.Sprintf("always-inject cluster bundle %q", cb.Name)
		if why := m.notReady(cb, cb.Status.ObservedGeneration, cb.Status.Conditions); why != "" {
			p.skip(what, "it "+why)
			continue
		}
		allowed, err := m.access.MayGetClusterBundle(alwaysCtx, namespace, serviceAccount, cb.Name)
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
		name, generation := cb.Name, cb.Generation
		p.candidates = append(p.candidates, candidate{sources: clusterBundleSources(cb), what: what,
			record: func(g *generations) { g.addClusterBundle(name, generation) }})
	}
	return p, nil
}

// MirrorPodAnnotation marks the API server's copy of a kubelet's static pod.
const MirrorPodAnnotation = "kubernetes.io/config.mirror"

// platformPod reports whether a pod is the platform's, which automatic
// injection never reaches: static (mirror) pods, and pods in openshift,
// openshift-* and kube-* namespaces. Such a pod still gets what it asks
// for. The fail-open webhook's matchConditions skip the same pods while
// nothing else needs them (pkg/operator/webhookconfiguration).
func platformPod(namespace string, annotations map[string]string) bool {
	if _, mirror := annotations[MirrorPodAnnotation]; mirror {
		return true
	}
	return namespace == "openshift" || strings.HasPrefix(namespace, "openshift-") || strings.HasPrefix(namespace, "kube-")
}

// sources is what one bundle contributes.
type sources struct{ entitlements, repos []source }

func (p *plan) add(s sources) {
	p.entitlements = dedupe(append(p.entitlements, s.entitlements...))
	p.repos = dedupe(append(p.repos, s.repos...))
}

func (p *plan) skip(what, why string) {
	p.warnings = append(p.warnings, fmt.Sprintf("%s was not injected: %s", what, why))
}

// checkKeys refuses keys that would land on the same file, or on a path
// the injection or the container runtime needs.
func checkKeys(entitlements, repos []source) *denial {
	if d := overlap(entitlements, "entitlement"); d != nil {
		return d
	}
	if d := overlap(repos, "yum repository"); d != nil {
		return d
	}
	for _, s := range repos {
		for _, k := range s.keys {
			if reservedRepoKeys[k] {
				return deny(reasonConflict, "yum repository key %q of %s (%s) would be mounted at %s/%s, which subscription injection reserves; rename that key",
					k, s.object(), s.origin, RepoDir, k)
			}
		}
	}
	return nil
}

// reservedRepoKeys are names in /run/secrets a yum repository file must
// not take: the directories the injection mounts (etc-pki-entitlement, and
// subscription for debug containers), the one the container runtime mounts
// from the host (rhsm), and those service account tokens use
// (kubernetes.io, and eks.amazonaws.com for pod identity), which every pod
// has under /var/run/secrets, the same directory.
var reservedRepoKeys = map[string]bool{
	"etc-pki-entitlement": true, "subscription": true, "rhsm": true, "kubernetes.io": true, "eks.amazonaws.com": true,
}

// requestedNames parses an inject annotation. A value that is empty or
// only spaces asks for nothing: Helm charts render unset values that way.
// It is ignored, with a warning, everywhere: here, in the webhook
// configuration and in the injection-required policy.
func (p *plan) requestedNames(annotations map[string]string, key string) ([]string, *denial) {
	v, ok := annotations[key]
	if !ok {
		return nil, nil
	}
	if !mutation.Asks(annotations, key) {
		p.warnings = append(p.warnings, fmt.Sprintf("annotation %s is empty, so it asks for no bundle; it was ignored", key))
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
