// Package subscription is the webhook's subscription mutator: it mounts the
// entitlement keys and yum repository files of the Bundles and
// ClusterBundles a pod asks for (or is given automatically) into every
// container. It decides from the bundles' status, which the operator fills
// with key names, so it never reads a Secret.
//
// An admission runs in stages, each in its own file, in this order:
//
//   - mutator.go: [Mutator.Mutate], which calls the stages below in turn,
//     and the entry of an ephemeral-container update;
//   - parse.go: the pod's annotations: the bundles it names, its allow and
//     deny filters, and which volumes its record says an earlier injection
//     added;
//   - plan.go: the named Bundles and ClusterBundles resolved into mounted objects,
//     with their readiness (pending.go explains one the operator has not
//     validated yet), access reviews and key checks, then the always-inject
//     candidates;
//   - layout.go: the volumes and mounts that carry a set of mounted objects, and
//     the names they take;
//   - fit.go: a layout merged into the pod's own volumes and mounts, every
//     clash that refuses it, and fitToPod, which adds the candidates that fit;
//   - patch.go: the JSON patch of what changed, and the record annotation.
package subscription

import (
	"context"
	"fmt"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/client-go/tools/cache"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

// Mutator injects subscription bundles. It reads bundles from informer
// caches; it asks whether a pod may use a ClusterBundle through the
// AccessReviewer the server gives it.
type Mutator struct {
	bundles        listers.BundleLister
	clusterBundles listers.ClusterBundleLister
	// alwaysBundles and alwaysClusterBundles find the always-inject
	// bundles by AlwaysInjectIndex: every pod's admission reads them, and a
	// cluster may hold thousands of bundles that are not.
	alwaysBundles, alwaysClusterBundles byIndex
	access                              AccessReviewer
	operatorState                       OperatorState
	now                                 func() time.Time
	// alwaysInjectBudget bounds the access checks of always-inject
	// ClusterBundles for one pod, together: the pod did not ask for them,
	// and the mutators after this one (pod identity) must still have time
	// before the fail-open webhook's timeout.
	alwaysInjectBudget time.Duration
	// encodedVolumes are the injected volumes encoded once per content
	// (a bundle generation's mounted objects), for the patch.
	encodedVolumes volumeCache
}

// byIndex is the part of an informer's cache the mutator reads the
// always-inject bundles through: it writes nothing to it.
type byIndex interface {
	ByIndex(indexName, indexedValue string) ([]any, error)
}

// AlwaysInjectBudget is how long the access checks of one pod's
// always-inject ClusterBundles may take together; past it, the bundles not
// yet checked are left out with a warning.
const AlwaysInjectBudget = time.Second

// AccessReviewer answers whether a service account may get a ClusterBundle.
// The server implements it with a SubjectAccessReview.
type AccessReviewer interface {
	MayGetClusterBundle(ctx context.Context, namespace, serviceAccount, bundle string) (bool, error)
}

// New returns the mutator over the Bundle and ClusterBundle caches, which
// must carry Indexers, and the access reviewer.
func New(bundles, clusterBundles cache.Indexer, access AccessReviewer) (*Mutator, error) {
	for i, indexer := range []cache.Indexer{bundles, clusterBundles} {
		if _, ok := indexer.GetIndexers()[AlwaysInjectIndex]; !ok {
			return nil, fmt.Errorf("the %s cache has no %s index: add subscription.Indexers() to its informer", []string{"Bundle", "ClusterBundle"}[i], AlwaysInjectIndex)
		}
	}
	return &Mutator{bundles: listers.NewBundleLister(bundles), clusterBundles: listers.NewClusterBundleLister(clusterBundles),
		alwaysBundles: bundles, alwaysClusterBundles: clusterBundles,
		access: access, operatorState: unknownOperatorState, now: time.Now, alwaysInjectBudget: AlwaysInjectBudget}, nil
}

// Name implements mutation.Mutator.
func (m *Mutator) Name() string { return "subscription" }

// ReadsVolume is true of the names the injection gives its volumes: of the
// pod's other volumes only the names are compared (a clash, a record's).
func (m *Mutator) ReadsVolume(name string) bool { return isInjectedVolume(name) }

// RequestAnnotations implements mutation.Mutator.
func (m *Mutator) RequestAnnotations() []string {
	return []string{subscriptionv1alpha1.InjectBundleAnnotation, subscriptionv1alpha1.InjectClusterBundleAnnotation}
}

// Mutate implements mutation.Mutator: parse, plan, fit to the pod
// (fitToPod, which lays out each try), patch.
func (m *Mutator) Mutate(ctx context.Context, req *mutation.Request) mutation.Result {
	switch {
	case req.SubResource == "ephemeralcontainers":
		return mutateEphemeral(req)
	case req.Operation != admissionv1.Create || req.SubResource != "":
		return mutation.Result{}
	}
	// Parsing and planning read the outline alone: most pods get no bundle,
	// and the whole pod is never decoded.
	pod := req.Outline
	r, d := parseRequest(req.Namespace, pod.Metadata.Annotations)
	if d != nil {
		return d.result()
	}
	p, d := m.plan(ctx, req.Namespace, pod, &r)
	if d != nil {
		return d.result()
	}
	// A pod with a record has the volumes it names, and their mounts,
	// replaced, even when nothing is injected now; anything else belongs to
	// the user.
	if p.generations.empty() && len(p.candidates) == 0 && !r.recorded {
		return mutation.Result{Warnings: p.warnings}
	}
	f, d := p.fitToPod(pod, r.own)
	if d != nil {
		return d.result()
	}
	patch, d := p.patch(pod, f, r.recorded)
	if d != nil {
		return d.result()
	}
	return mutation.Result{Patch: patch, Warnings: p.warnings}
}

// mutateEphemeral gives debug containers added to an injected pod the
// injected volumes too: only those its record owns. Bundles are not read
// again: the pod's volumes are what it was admitted with.
func mutateEphemeral(req *mutation.Request) mutation.Result {
	annotations := req.Outline.Metadata.Annotations
	if _, ok := annotations[subscriptionv1alpha1.BundleGenerationsAnnotation]; !ok {
		return mutation.Result{}
	}
	pod := req.Outline
	own := ownershipOf(annotations, subscriptionv1alpha1.BundleGenerationsAnnotation)
	l, partial := ephemeralLayout(pod.Spec.Volumes, own)
	if len(l.mounts) == 0 {
		return mutation.Result{}
	}
	var old mutation.PodOutline
	if err := req.DecodeOldPod(&old); err != nil {
		return mutation.Undecodable(err)
	}
	return fitEphemeral(pod, &old, l, partial, own)
}

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

// denial is a refusal found by any stage; Mutate turns it into the result.
type denial struct{ reason, message string }

func (d *denial) result() mutation.Result { return mutation.Deny(d.reason, d.message) }

func deny(reason, format string, args ...any) *denial {
	return &denial{reason: reason, message: fmt.Sprintf(format, args...)}
}
