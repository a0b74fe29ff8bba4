// Package bundles validates namespaced Bundles and reports the key names of
// the Secrets and ConfigMaps they reference. Pods mount those through
// projected volumes, so nothing is generated: the status is the whole job.
package bundles

import (
	"context"
	"fmt"
	"strings"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/subscription/v1alpha1"
	subscriptioninformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/subscription/v1alpha1"
	subscriptionlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/bundlestatus"
)

// ControllerName owns the BundleDegraded condition.
const ControllerName = "Bundle"

type controller struct {
	operatorClient v1helpers.OperatorClient
	bundles        subscriptionlisters.BundleLister
	bundleClient   subscriptionclient.BundlesGetter
	reader         bundlestatus.Reader
	sweeps         bundlestatus.Sweeps
	failures       *bundlestatus.Failures
}

// New returns the controller.
func New(bundleInformer subscriptioninformers.BundleInformer, bundleClient subscriptionclient.BundlesGetter,
	kubeClient kubernetes.Interface, operatorClient v1helpers.OperatorClient, recorder events.Recorder) factory.Controller {
	c := &controller{
		operatorClient: operatorClient,
		bundles:        bundleInformer.Lister(),
		bundleClient:   bundleClient,
		reader:         bundlestatus.Reader{Kube: kubeClient},
		failures:       bundlestatus.NewFailures(ControllerName, "Bundle", operatorClient),
	}
	return factory.New().
		WithInformersQueueKeysFunc(namespacedKey, bundleInformer.Informer()).
		// A change of management state, and the periodic resync, revisit
		// every bundle: Secrets are not watched, so a renamed key is found
		// only then. Other changes of the operator CR do not (see Sweeps).
		WithInformers(operatorClient.Informer()).
		// BundleDegraded names every failing bundle (see Failures).
		WithSync(func(ctx context.Context, syncCtx factory.SyncContext) error {
			return c.failures.Record(ctx, syncCtx.QueueKey(), c.sync(ctx, syncCtx))
		}).
		ResyncEvery(10*time.Minute).
		ToController(ControllerName, recorder.WithComponentSuffix("bundle"))
}

func namespacedKey(obj runtime.Object) []string {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil
	}
	return []string{key}
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	spec, _, _, err := c.operatorClient.GetOperatorState()
	if err != nil {
		return err
	}
	if syncCtx.QueueKey() == factory.DefaultQueueKey {
		if !c.sweeps.Due(spec.ManagementState) {
			return nil
		}
		if spec.ManagementState != operatorv1.Managed {
			// Failures of bundles no longer managed are no longer ours.
			c.sweeps.Done(spec.ManagementState)
			return c.failures.Clear(ctx)
		}
		all, err := c.bundles.List(labels.Everything())
		if err != nil {
			return err
		}
		for _, bundle := range all {
			syncCtx.Queue().Add(bundle.Namespace + "/" + bundle.Name)
		}
		c.sweeps.Done(spec.ManagementState)
		return nil
	}
	if spec.ManagementState != operatorv1.Managed {
		return nil
	}
	namespace, name, err := cache.SplitMetaNamespaceKey(syncCtx.QueueKey())
	if err != nil {
		return nil
	}
	bundle, err := c.bundles.Bundles(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if bundle.DeletionTimestamp != nil {
		return nil
	}
	return c.syncBundle(ctx, syncCtx, bundle)
}

func (c *controller) syncBundle(ctx context.Context, syncCtx factory.SyncContext, bundle *subscriptionv1alpha1.Bundle) error {
	recorder := syncCtx.Recorder()
	entitlements, entitlementProblems := refs(bundle, bundlestatus.Secret, "entitlement", bundle.Spec.Entitlements)
	yumRepositories, yumProblems := refs(bundle, bundlestatus.ConfigMap, "yum repository", bundle.Spec.YumRepositories)
	problems := entitlementProblems.merge(yumProblems)
	if len(problems.crossNamespace) > 0 {
		return c.invalid(ctx, recorder, bundle, subscriptionv1alpha1.ReasonCrossNamespace, strings.Join(problems.crossNamespace, "; "))
	}
	if len(problems.duplicates) > 0 {
		return c.invalid(ctx, recorder, bundle, subscriptionv1alpha1.ReasonDuplicateReference, strings.Join(problems.duplicates, "; "))
	}

	all := append(append([]bundlestatus.Ref{}, entitlements...), yumRepositories...)
	keys, missing, err := c.reader.Resolve(ctx, all)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		// Secrets and ConfigMaps are not watched: look again soon rather
		// than at the next sweep, in case they are being created.
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), bundlestatus.MissingRetry(bundle.Status.Conditions, time.Now()))
		return c.invalid(ctx, recorder, bundle, subscriptionv1alpha1.ReasonMissingReference, bundlestatus.MissingMessage(missing))
	}
	// Entitlements share one directory, yum repositories another.
	overlaps := append(bundlestatus.Overlaps(entitlements, keys), bundlestatus.Overlaps(yumRepositories, keys)...)
	if len(overlaps) > 0 {
		return c.invalid(ctx, recorder, bundle, subscriptionv1alpha1.ReasonOverlappingKeys, strings.Join(overlaps, "; "))
	}

	status := bundle.Status.DeepCopy()
	status.ObservedGeneration = bundle.Generation
	bundlestatus.SetValid(&status.Conditions, bundle.Generation)
	resolve := func(refs []bundlestatus.Ref) []subscriptionv1alpha1.ResolvedReference {
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
func refs(bundle *subscriptionv1alpha1.Bundle, kind bundlestatus.Kind, what string, in []subscriptionv1alpha1.LocalReference) ([]bundlestatus.Ref, problems) {
	var out []bundlestatus.Ref
	var p problems
	seen := map[bundlestatus.Ref]bool{}
	for _, r := range in {
		ref := bundlestatus.Ref{Kind: kind, Namespace: r.Namespace, Name: r.Name}
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
	if bundlestatus.SetInvalid(&status.Conditions, bundle.Generation, reason, message) {
		recorder.Warningf("BundleInvalid", "Bundle %s/%s is invalid (%s): %s", bundle.Namespace, bundle.Name, reason, message)
	}
	return c.updateStatus(ctx, bundle, status)
}

// updateStatus writes only a status that changed: a resync of a settled
// bundle costs the API server reads, not writes.
func (c *controller) updateStatus(ctx context.Context, bundle *subscriptionv1alpha1.Bundle, status *subscriptionv1alpha1.BundleStatus) error {
	if equality.Semantic.DeepEqual(&bundle.Status, status) {
		return nil
	}
	updated := bundle.DeepCopy()
	updated.Status = *status
	_, err := c.bundleClient.Bundles(bundle.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	return err
}
