// Package bundles validates namespaced Bundles and reports the key names of
// the Secrets and ConfigMaps they reference. Pods mount those through
// projected volumes, so nothing is generated: the status is the whole job.
package bundles

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/subscription/v1alpha1"
	subscriptioninformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/subscription/v1alpha1"
	subscriptionlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/reconcileloop"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlerefs"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlestatus"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/referencewatch"
)

// ControllerName owns the BundleDegraded condition.
const ControllerName = "Bundle"

type controller struct {
	bundleClient subscriptionclient.BundlesGetter
	events       record.EventRecorder
	reader       bundlerefs.Reader
}

// Inputs are what the Bundle controller needs.
type Inputs struct {
	Bundles      subscriptioninformers.BundleInformer
	BundleClient subscriptionclient.BundlesGetter
	// KubeClient reads the referenced Secrets and ConfigMaps (single GETs).
	KubeClient kubernetes.Interface
	// References wakes a bundle when what it references changes.
	References     *referencewatch.Watch
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
	// ObjectEvents records Events on the Bundles themselves.
	ObjectEvents record.EventRecorder
}

// New returns the controller: the shared bundle loop, reconciling Bundles,
// woken by changes of what they reference. Call it before the Bundle
// informer starts: it adds an index.
func New(in Inputs) (factory.Controller, error) {
	c := &controller{bundleClient: in.BundleClient, events: in.ObjectEvents, reader: bundlerefs.Reader{Kube: in.KubeClient}}
	triggers, err := in.References.For(in.Bundles.Informer(), References)
	if err != nil {
		return nil, err
	}
	return reconcileloop.New(ControllerName, Source(in.Bundles), referencewatch.Watched(triggers), c.syncBundle,
		in.OperatorClient, in.Recorder, "bundle"), nil
}

// References are the objects a Bundle references, as referencewatch indexes
// them: those the controller would read (references to other namespaces and
// repeats make it Invalid whatever they hold).
func References(obj any) []bundlerefs.Ref {
	bundle, ok := obj.(*subscriptionv1alpha1.Bundle)
	if !ok {
		return nil
	}
	entitlements, _ := refs(bundle, bundlerefs.Secret, "entitlement", bundle.Spec.Entitlements)
	yumRepositories, _ := refs(bundle, bundlerefs.ConfigMap, "yum repository", bundle.Spec.YumRepositories)
	return append(entitlements, yumRepositories...)
}

// Source reads Bundles from their informer.
func Source(informer subscriptioninformers.BundleInformer) reconcileloop.Source[*subscriptionv1alpha1.Bundle] {
	return source(informer.Informer(), informer.Lister())
}

func source(informer factory.Informer, lister subscriptionlisters.BundleLister) reconcileloop.Source[*subscriptionv1alpha1.Bundle] {
	return reconcileloop.Source[*subscriptionv1alpha1.Bundle]{
		Kind:     "Bundle",
		Informer: informer,
		Get: func(key string) (*subscriptionv1alpha1.Bundle, error) {
			namespace, name, err := cache.SplitMetaNamespaceKey(key)
			if err != nil {
				return nil, apierrors.NewNotFound(subscriptionv1alpha1.Resource("bundles"), key)
			}
			return lister.Bundles(namespace).Get(name)
		},
		List: func() ([]*subscriptionv1alpha1.Bundle, error) { return lister.List(labels.Everything()) },
	}
}

func (c *controller) syncBundle(ctx context.Context, syncCtx factory.SyncContext, bundle *subscriptionv1alpha1.Bundle) error {
	recorder := syncCtx.Recorder()
	entitlements, entitlementProblems := refs(bundle, bundlerefs.Secret, "entitlement", bundle.Spec.Entitlements)
	yumRepositories, yumProblems := refs(bundle, bundlerefs.ConfigMap, "yum repository", bundle.Spec.YumRepositories)
	problems := entitlementProblems.merge(yumProblems)
	if len(problems.crossNamespace) > 0 {
		return c.invalid(ctx, recorder, bundle, subscriptionv1alpha1.ReasonCrossNamespace, strings.Join(problems.crossNamespace, "; "))
	}
	if len(problems.duplicates) > 0 {
		return c.invalid(ctx, recorder, bundle, subscriptionv1alpha1.ReasonDuplicateReference, strings.Join(problems.duplicates, "; "))
	}

	all := append(append([]bundlerefs.Ref{}, entitlements...), yumRepositories...)
	keys, missing, err := c.reader.Resolve(ctx, all)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		// Their creation wakes the bundle (referencewatch); this retry is
		// the fallback should that event be missed.
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), bundlestatus.MissingRetry(bundle.Status.Conditions, time.Now()))
		return c.invalid(ctx, recorder, bundle, subscriptionv1alpha1.ReasonMissingReference, bundlerefs.MissingMessage(missing))
	}
	// Entitlements share one directory, yum repositories another.
	overlaps := append(bundlerefs.Overlaps(entitlements, keys), bundlerefs.Overlaps(yumRepositories, keys)...)
	if len(overlaps) > 0 {
		return c.invalid(ctx, recorder, bundle, subscriptionv1alpha1.ReasonOverlappingKeys, strings.Join(overlaps, "; "))
	}

	status := bundle.Status.DeepCopy()
	status.ObservedGeneration = bundle.Generation
	bundlestatus.SetValid(&status.Conditions, bundle.Generation)
	resolve := func(refs []bundlerefs.Ref) []subscriptionv1alpha1.ResolvedReference {
		var out []subscriptionv1alpha1.ResolvedReference
		for _, ref := range refs {
			out = append(out, subscriptionv1alpha1.ResolvedReference{Name: ref.Name, Namespace: ref.Namespace, Keys: keys[ref]})
		}
		return out
	}
	status.Entitlements = resolve(entitlements)
	status.YumRepositories = resolve(yumRepositories)
	return c.updateStatus(ctx, bundle, status)
}

// problems are mistakes in the spec, found before any API call.
type problems struct {
	crossNamespace []string
	duplicates     []string
}

func (p problems) merge(o problems) problems {
	return problems{
		crossNamespace: append(p.crossNamespace, o.crossNamespace...),
		duplicates:     append(p.duplicates, o.duplicates...),
	}
}

// refs resolves each reference's namespace to the bundle's and reports
// references to other namespaces, which a projected volume cannot read, and
// references listed twice.
func refs(bundle *subscriptionv1alpha1.Bundle, kind bundlerefs.Kind, what string, in []subscriptionv1alpha1.LocalReference) ([]bundlerefs.Ref, problems) {
	var out []bundlerefs.Ref
	var p problems
	seen := map[bundlerefs.Ref]bool{}
	for _, r := range in {
		ref := bundlerefs.Ref{Kind: kind, Namespace: r.Namespace, Name: r.Name}
		if ref.Namespace == "" {
			ref.Namespace = bundle.Namespace
		}
		if ref.Namespace != bundle.Namespace {
			p.crossNamespace = append(p.crossNamespace, fmt.Sprintf(
				"%s %s is not in the bundle's namespace %s: projected volumes cannot read other namespaces; use a ClusterBundle",
				what, ref, bundle.Namespace))
			continue
		}
		if seen[ref] {
			p.duplicates = append(p.duplicates, fmt.Sprintf("%s %s is listed more than once", what, ref))
			continue
		}
		seen[ref] = true
		out = append(out, ref)
	}
	return out, p
}

// invalid records why the bundle cannot be injected and touches nothing else.
func (c *controller) invalid(ctx context.Context, recorder events.Recorder, bundle *subscriptionv1alpha1.Bundle, reason, message string) error {
	status := bundle.Status.DeepCopy()
	status.ObservedGeneration = bundle.Generation
	bundlestatus.MarkInvalid(recorder, "Bundle", bundle, &status.Conditions, reason, message)
	return c.updateStatus(ctx, bundle, status)
}

// updateStatus writes only a status that changed: a resync of a settled
// bundle costs the API server reads, not writes. Once written, a change of
// validity becomes an Event on the bundle.
func (c *controller) updateStatus(ctx context.Context, bundle *subscriptionv1alpha1.Bundle, status *subscriptionv1alpha1.BundleStatus) error {
	if equality.Semantic.DeepEqual(&bundle.Status, status) {
		return nil
	}
	updated := bundle.DeepCopy()
	updated.Status = *status
	if _, err := c.bundleClient.Bundles(bundle.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return err
	}
	bundlestatus.RecordTransition(c.events, "Bundle", bundle, bundle.Status.Conditions, status.Conditions)
	return nil
}
