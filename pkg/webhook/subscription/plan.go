package subscription

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// plan is what one pod gets: the Secrets and ConfigMaps to mount and the generations to record.
type plan struct {
	// entitlements and repos are the mounted objects of the bundles the pod asked
	// for; fitToPod adds the always-inject candidates that fit.
	entitlements []mountedObject
	repos        []mountedObject
	generations  generations
	warnings     []string
	// candidates are the always-inject bundles the pod may get, in order.
	candidates []candidate
	// encoded is the mutator's cache of injected volumes, encoded.
	encoded *volumeCache
}

// mountedObject is one Secret or ConfigMap to mount, and where it came from.
type mountedObject struct {
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

func (s mountedObject) object() string { return s.kind + " " + s.namespace + "/" + s.name }

// mountedObjects is what one bundle contributes.
type mountedObjects struct{ entitlements, repos []mountedObject }

// candidate is an always-inject bundle the pod may get if it fits.
type candidate struct {
	mountedObjects
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

// plan resolves the bundles the pod asks for, then, when automatic
// injection reaches it, the always-inject ones it may get, and returns what
// to mount. Each step below is one kind of bundle, in this order.
func (m *Mutator) plan(ctx context.Context, namespace string, pod *mutation.PodOutline, r *request) (*plan, *denial) {
	p := &plan{warnings: r.warnings, encoded: &m.encodedVolumes}
	serviceAccount := serviceAccountOf(pod)
	if d := m.addBundles(p, namespace, r.bundles); d != nil {
		return nil, d
	}
	if d := m.addClusterBundles(ctx, p, namespace, serviceAccount, r.clusterBundles); d != nil {
		return nil, d
	}
	// What the pod asked for must fit together before anything is added
	// to it; fitToPod checks each candidate it adds the same way.
	if d := checkKeys(p.entitlements, p.repos); d != nil {
		return nil, d
	}
	if !r.automatic {
		return p, nil
	}
	// Always-inject bundles: the pod did not ask, so it is never refused
	// for one; a bundle it cannot get is left out with a warning, and
	// fitToPod leaves out one that does not fit.
	m.offerBundles(p, namespace, r)
	m.offerClusterBundles(ctx, p, namespace, serviceAccount, r)
	return p, nil
}

// serviceAccountOf is whom access reviews ask about: a pod that names no
// service account runs as its namespace's default one.
func serviceAccountOf(pod *mutation.PodOutline) string {
	if pod.Spec.ServiceAccountName == "" {
		return "default"
	}
	return pod.Spec.ServiceAccountName
}

// addBundles adds the Bundles the pod names: it asked for them, so any
// problem with one refuses it.
func (m *Mutator) addBundles(p *plan, namespace string, names []string) *denial {
	for _, name := range names {
		b, err := m.bundles.Bundles(namespace).Get(name)
		if apierrors.IsNotFound(err) {
			return deny(reasonBundleNotFound, "bundle %q requested by annotation %s does not exist in namespace %q",
				name, subscriptionv1alpha1.InjectBundleAnnotation, namespace)
		} else if err != nil {
			return deny(reasonLookupFailed, "reading bundle %q in namespace %q: %v", name, namespace, err)
		}
		if why := m.notReady(b, b.Status.ObservedGeneration, b.Status.Conditions); why != "" {
			return deny(reasonBundleNotReady, "bundle %q in namespace %q %s", name, namespace, why)
		}
		p.add(bundleObjects(b))
		p.generations.addBundle(b.Name, b.Generation)
	}
	return nil
}

// addClusterBundles adds the ClusterBundles the pod names, as addBundles
// does; a ClusterBundle is everyone's, so the pod's service account must
// also be allowed to get it.
func (m *Mutator) addClusterBundles(ctx context.Context, p *plan, namespace, serviceAccount string, names []string) *denial {
	for _, name := range names {
		cb, err := m.clusterBundles.Get(name)
		if apierrors.IsNotFound(err) {
			return deny(reasonBundleNotFound, "cluster bundle %q requested by annotation %s does not exist",
				name, subscriptionv1alpha1.InjectClusterBundleAnnotation)
		} else if err != nil {
			return deny(reasonLookupFailed, "reading cluster bundle %q: %v", name, err)
		}
		if why := m.notReady(cb, cb.Status.ObservedGeneration, cb.Status.Conditions); why != "" {
			return deny(reasonBundleNotReady, "cluster bundle %q %s", name, why)
		}
		if d := m.checkAccess(ctx, namespace, serviceAccount, cb); d != nil {
			return d
		}
		p.add(clusterBundleObjects(cb))
		p.generations.addClusterBundle(cb.Name, cb.Generation)
	}
	return nil
}

// checkAccess refuses a ClusterBundle the pod asked for when its service
// account may not get it, or when that cannot be known: a pod is refused
// rather than started without what it asked for.
func (m *Mutator) checkAccess(ctx context.Context, namespace, serviceAccount string, cb *subscriptionv1alpha1.ClusterBundle) *denial {
	name := cb.Name
	allowed, err := m.access.MayGetClusterBundle(ctx, namespace, serviceAccount, name)
	if errors.Is(err, context.DeadlineExceeded) {
		return deny(reasonAccessCheckTimedOut, "the access check timed out: whether service account %s/%s may get cluster bundle %q is not known (%v); "+
			"the pod is refused rather than started without it; retry", namespace, serviceAccount, name, err)
	}
	if err != nil {
		return deny(reasonLookupFailed, "checking whether service account %s/%s may get cluster bundle %q: %v", namespace, serviceAccount, name, err)
	}
	if !allowed {
		return deny(reasonForbidden, "service account %s/%s may not get cluster bundle %q: bind it to a role that includes ClusterRole %q "+
			"(the bundle's spec.aggregateToClusterRoles aggregates it into those roles), or bind that ClusterRole directly",
			namespace, serviceAccount, name, clusterRoleName(cb))
	}
	return nil
}

// offerBundles makes candidates of the namespace's always-inject Bundles
// that the pod did not name and its filter admits, by name; one not ready
// is left out with a warning.
func (m *Mutator) offerBundles(p *plan, namespace string, r *request) {
	always, err := indexed[*subscriptionv1alpha1.Bundle](m.alwaysBundles, namespace)
	if err != nil {
		// The pod did not name them: it may have asked for nothing.
		p.skip(fmt.Sprintf("any always-inject bundle of namespace %q", namespace), fmt.Sprintf("listing them failed: %v", err))
		return
	}
	slices.SortFunc(always, func(a, b *subscriptionv1alpha1.Bundle) int { return strings.Compare(a.Name, b.Name) })
	for _, b := range always {
		if slices.Contains(r.bundles, b.Name) || !r.bundleFilter.admits(b.Name) {
			continue
		}
		what := fmt.Sprintf("always-inject bundle %q", b.Name)
		if why := m.notReady(b, b.Status.ObservedGeneration, b.Status.Conditions); why != "" {
			p.skip(what, "it "+why)
			continue
		}
		name, generation := b.Name, b.Generation
		p.candidates = append(p.candidates, candidate{mountedObjects: bundleObjects(b), what: what,
			record: func(g *generations) { g.addBundle(name, generation) }})
	}
}

// indexed are the always-inject bundles of namespace ("" for ClusterBundles).
func indexed[T any](always byIndex, namespace string) ([]T, error) {
	objs, err := always.ByIndex(AlwaysInjectIndex, namespace)
	if err != nil {
		return nil, err
	}
	bundles := make([]T, 0, len(objs))
	for _, o := range objs {
		b, ok := o.(T)
		if !ok {
			return nil, fmt.Errorf("the cache holds a %T", o)
		}
		bundles = append(bundles, b)
	}
	return bundles, nil
}

// offerClusterBundles makes candidates of the always-inject ClusterBundles
// as offerBundles does, and of those only the ones the pod's service
// account may get. Their access checks share one budget, started with the
// first check: a slow API server costs this pod its always-inject
// bundles (each left out with a warning), not the injections after.
func (m *Mutator) offerClusterBundles(ctx context.Context, p *plan, namespace, serviceAccount string, r *request) {
	always, err := indexed[*subscriptionv1alpha1.ClusterBundle](m.alwaysClusterBundles, "")
	if err != nil {
		p.skip("any always-inject cluster bundle", fmt.Sprintf("listing them failed: %v", err))
		return
	}
	slices.SortFunc(always, func(a, b *subscriptionv1alpha1.ClusterBundle) int { return strings.Compare(a.Name, b.Name) })
	// The budget starts with the first access check, not before: bundles
	// the pod's filter leaves out cost it nothing.
	checks := &startedOnUse{parent: ctx, budget: m.alwaysInjectBudget}
	defer checks.stop()
	for _, cb := range always {
		if slices.Contains(r.clusterBundles, cb.Name) || !r.clusterFilter.admits(cb.Name) {
			continue
		}
		what := fmt.Sprintf("always-inject cluster bundle %q", cb.Name)
		if why := m.notReady(cb, cb.Status.ObservedGeneration, cb.Status.Conditions); why != "" {
			p.skip(what, "it "+why)
			continue
		}
		if why := m.withoutAccess(checks.context(), namespace, serviceAccount, cb.Name); why != "" {
			p.skip(what, why)
			continue
		}
		name, generation := cb.Name, cb.Generation
		p.candidates = append(p.candidates, candidate{mountedObjects: clusterBundleObjects(cb), what: what,
			record: func(g *generations) { g.addClusterBundle(name, generation) }})
	}
}

// startedOnUse is a deadline budget after parent that starts when its
// context is first asked for.
type startedOnUse struct {
	parent context.Context
	budget time.Duration
	ctx    context.Context
	cancel context.CancelFunc
}

func (s *startedOnUse) context() context.Context {
	if s.ctx == nil {
		s.ctx, s.cancel = context.WithTimeout(s.parent, s.budget)
	}
	return s.ctx
}

func (s *startedOnUse) stop() {
	if s.cancel != nil {
		s.cancel()
	}
}

// withoutAccess says why the pod's service account may not get an
// always-inject ClusterBundle, or returns "": unlike checkAccess, any
// failure only leaves the bundle out.
func (m *Mutator) withoutAccess(ctx context.Context, namespace, serviceAccount, name string) string {
	allowed, err := m.access.MayGetClusterBundle(ctx, namespace, serviceAccount, name)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("the access check for service account %s/%s timed out (%v)", namespace, serviceAccount, err)
	case err != nil:
		return fmt.Sprintf("checking whether service account %s/%s may get it failed: %v", namespace, serviceAccount, err)
	case !allowed:
		return fmt.Sprintf("service account %s/%s may not get it", namespace, serviceAccount)
	}
	return ""
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

func (p *plan) add(s mountedObjects) {
	p.entitlements = dedupe(append(p.entitlements, s.entitlements...))
	p.repos = dedupe(append(p.repos, s.repos...))
}

func (p *plan) skip(what, why string) {
	p.warnings = append(p.warnings, fmt.Sprintf("%s was not injected: %s", what, why))
}

func bundleObjects(b *subscriptionv1alpha1.Bundle) mountedObjects {
	origin := "bundle " + strconv.Quote(b.Name)
	var s mountedObjects
	for _, r := range b.Status.Entitlements {
		s.entitlements = append(s.entitlements, mountedObject{origin: origin, kind: "secret", namespace: r.Namespace, name: r.Name, keys: r.Keys})
	}
	for _, r := range b.Status.YumRepositories {
		s.repos = append(s.repos, mountedObject{origin: origin, kind: "configmap", namespace: r.Namespace, name: r.Name, keys: r.Keys})
	}
	return s
}

func clusterBundleObjects(cb *subscriptionv1alpha1.ClusterBundle) mountedObjects {
	origin := "cluster bundle " + strconv.Quote(cb.Name)
	var s mountedObjects
	for _, r := range cb.Status.Entitlements {
		s.entitlements = append(s.entitlements, mountedObject{origin: origin, kind: "secret", namespace: r.Namespace, name: r.Name, keys: r.Keys, share: r.Share})
	}
	for _, r := range cb.Status.YumRepositories {
		s.repos = append(s.repos, mountedObject{origin: origin, kind: "configmap", namespace: r.Namespace, name: r.Name, keys: r.Keys, share: r.Share})
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

// dedupe keeps the first of each Secret or ConfigMap: two bundles naming the same
// Secret mount it once rather than conflicting with themselves. A namespaced
// bundle comes first, so its projected volume wins over a share.
func dedupe(list []mountedObject) []mountedObject {
	seen := map[string]bool{}
	out := make([]mountedObject, 0, len(list))
	for _, s := range list {
		if seen[s.object()] {
			continue
		}
		seen[s.object()] = true
		out = append(out, s)
	}
	return out
}

// checkKeys refuses keys that would land on the same file, or on a path
// the injection or the container runtime needs.
func checkKeys(entitlements, repos []mountedObject) *denial {
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

// overlap refuses two objects with the same key: both would be the same
// file in one directory.
func overlap(objects []mountedObject, what string) *denial {
	owner := map[string]mountedObject{}
	for _, s := range objects {
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
