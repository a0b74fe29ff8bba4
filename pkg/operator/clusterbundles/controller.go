// Package clusterbundles makes ClusterBundles injectable: for a valid bundle
// it creates one SharedSecret per entitlement Secret, one SharedConfigMap per
// yum repository ConfigMap, and a ClusterRole to get the bundle and use its
// shares, aggregated into the roles the bundle names; it reports the key
// names it found in the bundle's status. An invalid bundle gets Invalid=True
// and nothing else.
package clusterbundles

import (
	"context"
	"fmt"
	"strings"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	sharedresourcev1alpha1 "github.com/openshift/api/sharedresource/v1alpha1"
	sharedresourceclient "github.com/openshift/client-go/sharedresource/clientset/versioned"
	sharedresourceinformers "github.com/openshift/client-go/sharedresource/informers/externalversions"
	sharedresourcelisters "github.com/openshift/client-go/sharedresource/listers/sharedresource/v1alpha1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	rbacv1listers "k8s.io/client-go/listers/rbac/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/subscription/v1alpha1"
	subscriptioninformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/subscription/v1alpha1"
	subscriptionlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/bundlestatus"
)

// ControllerName owns the ClusterBundleDegraded condition.
const ControllerName = "ClusterBundle"

// Informers watch only what the controller generated, by label: the
// cluster's other ClusterRoles and shares are none of its business.
type Informers struct {
	Kube   informers.SharedInformerFactory
	Shares sharedresourceinformers.SharedInformerFactory
}

// NewInformers returns the label-filtered informer factories; start them
// with the others.
func NewInformers(kube kubernetes.Interface, shares sharedresourceclient.Interface, resync time.Duration) Informers {
	byLabel := func(options *metav1.ListOptions) { options.LabelSelector = BundleLabel }
	return Informers{
		Kube:   informers.NewSharedInformerFactoryWithOptions(kube, resync, informers.WithTweakListOptions(byLabel)),
		Shares: sharedresourceinformers.NewSharedInformerFactoryWithOptions(shares, resync, sharedresourceinformers.WithTweakListOptions(byLabel)),
	}
}

// Start starts both factories.
func (i Informers) Start(stop <-chan struct{}) {
	i.Kube.Start(stop)
	i.Shares.Start(stop)
}

type controller struct {
	operatorClient   v1helpers.OperatorClient
	bundles          subscriptionlisters.ClusterBundleLister
	bundleClient     subscriptionclient.ClusterBundlesGetter
	sharedSecrets    sharedresourcelisters.SharedSecretLister
	sharedConfigMaps sharedresourcelisters.SharedConfigMapLister
	roles            rbacv1listers.ClusterRoleLister
	shareClient      sharedresourceclient.Interface
	kubeClient       kubernetes.Interface
	reader           bundlestatus.Reader
	sweeps           bundlestatus.Sweeps
	failures         *bundlestatus.Failures
}

// New returns the controller.
func New(bundleInformer subscriptioninformers.ClusterBundleInformer, bundleClient subscriptionclient.ClusterBundlesGetter,
	owned Informers, shareClient sharedresourceclient.Interface, kubeClient kubernetes.Interface,
	operatorClient v1helpers.OperatorClient, recorder events.Recorder) factory.Controller {
	sharedSecrets := owned.Shares.Sharedresource().V1alpha1().SharedSecrets()
	sharedConfigMaps := owned.Shares.Sharedresource().V1alpha1().SharedConfigMaps()
	roles := owned.Kube.Rbac().V1().ClusterRoles()
	c := &controller{
		operatorClient:   operatorClient,
		bundles:          bundleInformer.Lister(),
		bundleClient:     bundleClient,
		sharedSecrets:    sharedSecrets.Lister(),
		sharedConfigMaps: sharedConfigMaps.Lister(),
		roles:            roles.Lister(),
		shareClient:      shareClient,
		kubeClient:       kubeClient,
		reader:           bundlestatus.Reader{Kube: kubeClient},
		failures:         bundlestatus.NewFailures(ControllerName, "ClusterBundle", operatorClient),
	}
	return factory.New().
		WithInformersQueueKeysFunc(nameKey, bundleInformer.Informer()).
		WithInformersQueueKeysFunc(ownerKey, sharedSecrets.Informer(), sharedConfigMaps.Informer(), roles.Informer()).
		// A change of management state, and the periodic resync, revisit
		// every bundle: Secrets are not watched, so a renamed key is found
		// only then. Other changes of the operator CR do not (see Sweeps).
		WithInformers(operatorClient.Informer()).
		// ClusterBundleDegraded names every failing bundle (see Failures).
		WithSync(func(ctx context.Context, syncCtx factory.SyncContext) error {
			return c.failures.Record(ctx, syncCtx.QueueKey(), c.sync(ctx, syncCtx))
		}).
		ResyncEvery(10*time.Minute).
		ToController(ControllerName, recorder.WithComponentSuffix("cluster-bundle"))
}

func nameKey(obj runtime.Object) []string {
	if bundle, ok := obj.(metav1.Object); ok {
		return []string{bundle.GetName()}
	}
	return nil
}

// ownerKey enqueues the bundle a generated object was made for.
func ownerKey(obj runtime.Object) []string {
	if o, ok := obj.(metav1.Object); ok && o.GetLabels()[BundleLabel] != "" {
		return []string{o.GetLabels()[BundleLabel]}
	}
	return nil
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
			syncCtx.Queue().Add(bundle.Name)
		}
		c.sweeps.Done(spec.ManagementState)
		return nil
	}
	if spec.ManagementState != operatorv1.Managed {
		return nil
	}
	bundle, err := c.bundles.Get(syncCtx.QueueKey())
	if apierrors.IsNotFound(err) {
		// Owner references let the garbage collector delete what was generated.
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

func (c *controller) syncBundle(ctx context.Context, syncCtx factory.SyncContext, bundle *subscriptionv1alpha1.ClusterBundle) error {
	recorder := syncCtx.Recorder()
	entitlements := refs(bundlestatus.Secret, bundle.Spec.Entitlements)
	yumRepositories := refs(bundlestatus.ConfigMap, bundle.Spec.YumRepositories)
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

	wanted := shares(bundle.Name, all)
	role := desiredClusterRole(bundle, wanted)
	// Decide everything before writing anything: a conflict found halfway
	// would leave a bundle half-created.
	plan, conflicts, err := c.plan(ctx, bundle, wanted, role)
	if err != nil {
		return err
	}
	if len(conflicts) > 0 {
		return c.invalid(ctx, recorder, bundle, subscriptionv1alpha1.ReasonConflict, strings.Join(conflicts, "; "))
	}
	if err := c.apply(ctx, recorder, bundle, plan); err != nil {
		return err
	}

	status := bundle.Status.DeepCopy()
	status.ObservedGeneration = bundle.Generation
	bundlestatus.SetValid(&status.Conditions, bundle.Generation)
	status.ClusterRole = role.Name
	status.Shares = shareReferences(wanted)
	shareOf := map[bundlestatus.Ref]string{}
	for _, s := range wanted {
		shareOf[s.ref] = s.name
	}
	resolve := func(refs []bundlestatus.Ref) []subscriptionv1alpha1.ResolvedReference {
		var out []subscriptionv1alpha1.ResolvedReference
		for _, ref := range refs {
			out = append(out, subscriptionv1alpha1.ResolvedReference{Name: ref.Name, Namespace: ref.Namespace, Keys: keys[ref], Share: shareOf[ref]})
		}
		return out
	}
	status.Entitlements = resolve(entitlements)
	status.YumRepositories = resolve(yumRepositories)
	return c.updateStatus(ctx, bundle, status)
}

func refs(kind bundlestatus.Kind, in []subscriptionv1alpha1.ClusterReference) []bundlestatus.Ref {
	out := make([]bundlestatus.Ref, 0, len(in))
	for _, r := range in {
		out = append(out, bundlestatus.Ref{Kind: kind, Namespace: r.Namespace, Name: r.Name})
	}
	return out
}

// invalid records why the bundle cannot be injected and touches nothing else.
func (c *controller) invalid(ctx context.Context, recorder events.Recorder, bundle *subscriptionv1alpha1.ClusterBundle, reason, message string) error {
	status := bundle.Status.DeepCopy()
	status.ObservedGeneration = bundle.Generation
	if bundlestatus.SetInvalid(&status.Conditions, bundle.Generation, reason, message) {
		recorder.Warningf("ClusterBundleInvalid", "ClusterBundle %s is invalid (%s): %s", bundle.Name, reason, message)
	}
	return c.updateStatus(ctx, bundle, status)
}

func (c *controller) updateStatus(ctx context.Context, bundle *subscriptionv1alpha1.ClusterBundle, status *subscriptionv1alpha1.ClusterBundleStatus) error {
	return updateStatus(ctx, c.bundleClient, bundle, status)
}

// updateStatus writes only a status that changed: a resync of a settled
// bundle costs the API server reads, not writes.
func updateStatus(ctx context.Context, client subscriptionclient.ClusterBundlesGetter, bundle *subscriptionv1alpha1.ClusterBundle, status *subscriptionv1alpha1.ClusterBundleStatus) error {
	if equality.Semantic.DeepEqual(&bundle.Status, status) {
		return nil
	}
	updated := bundle.DeepCopy()
	updated.Status = *status
	_, err := client.ClusterBundles().UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	return err
}

// plan is what exists of each generated object, or nil when it must be created.
type plan struct {
	secrets    []*sharedresourcev1alpha1.SharedSecret
	secretsNow []*sharedresourcev1alpha1.SharedSecret
	configMaps []*sharedresourcev1alpha1.SharedConfigMap
	cmsNow     []*sharedresourcev1alpha1.SharedConfigMap
	role       *rbacv1.ClusterRole
	roleNow    *rbacv1.ClusterRole
}

// plan finds the existing object of every desired one and names those that
// belong to someone else. The informers only see labelled objects, so one
// not in the cache is looked up live before it is called absent.
func (c *controller) plan(ctx context.Context, bundle *subscriptionv1alpha1.ClusterBundle, wanted []share, role *rbacv1.ClusterRole) (*plan, []string, error) {
	p := &plan{role: role}
	var conflicts []string
	conflict := func(kind, name string) {
		conflicts = append(conflicts, fmt.Sprintf("%s %s already exists and is not owned by ClusterBundle %s", kind, name, bundle.Name))
	}
	for _, s := range wanted {
		if s.kind() == KindSharedSecret {
			existing, err := c.sharedSecrets.Get(s.name)
			if apierrors.IsNotFound(err) {
				existing, err = c.shareClient.SharedresourceV1alpha1().SharedSecrets().Get(ctx, s.name, metav1.GetOptions{})
			}
			if apierrors.IsNotFound(err) {
				existing, err = nil, nil
			}
			if err != nil {
				return nil, nil, err
			}
			if existing != nil && !ownedBy(existing, bundle) {
				conflict(KindSharedSecret, s.name)
			}
			p.secrets = append(p.secrets, desiredSharedSecret(bundle, s))
			p.secretsNow = append(p.secretsNow, existing)
			continue
		}
		existing, err := c.sharedConfigMaps.Get(s.name)
		if apierrors.IsNotFound(err) {
			existing, err = c.shareClient.SharedresourceV1alpha1().SharedConfigMaps().Get(ctx, s.name, metav1.GetOptions{})
		}
		if apierrors.IsNotFound(err) {
			existing, err = nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if existing != nil && !ownedBy(existing, bundle) {
			conflict(KindSharedConfigMap, s.name)
		}
		p.configMaps = append(p.configMaps, desiredSharedConfigMap(bundle, s))
		p.cmsNow = append(p.cmsNow, existing)
	}
	existing, err := c.roles.Get(role.Name)
	if apierrors.IsNotFound(err) {
		existing, err = c.kubeClient.RbacV1().ClusterRoles().Get(ctx, role.Name, metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		existing, err = nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if existing != nil && !ownedBy(existing, bundle) {
		conflict("ClusterRole", role.Name)
	}
	p.roleNow = existing
	return p, conflicts, nil
}

// apply creates and updates the shares, then the role, then deletes the
// shares no longer wanted: a pod never holds a role naming a share that is
// yet to exist for longer than necessary, and a removed share is gone
// before anything else.
func (c *controller) apply(ctx context.Context, recorder events.Recorder, bundle *subscriptionv1alpha1.ClusterBundle, p *plan) error {
	secrets := c.shareClient.SharedresourceV1alpha1().SharedSecrets()
	configMaps := c.shareClient.SharedresourceV1alpha1().SharedConfigMaps()
	wanted := map[string]bool{}
	for i, desired := range p.secrets {
		wanted[KindSharedSecret+"/"+desired.Name] = true
		existing := p.secretsNow[i]
		switch {
		case existing == nil:
			if _, err := secrets.Create(ctx, desired, metav1.CreateOptions{}); err != nil {
				return err
			}
			recorder.Eventf("SharedSecretCreated", "Created SharedSecret %s for ClusterBundle %s", desired.Name, bundle.Name)
		case !equality.Semantic.DeepEqual(existing.Spec, desired.Spec) || !metaInSync(existing, desired):
			updated := existing.DeepCopy()
			updated.Spec = desired.Spec
			syncMeta(updated, desired)
			if _, err := secrets.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
				return err
			}
			recorder.Eventf("SharedSecretUpdated", "Updated SharedSecret %s for ClusterBundle %s", desired.Name, bundle.Name)
		}
	}
	for i, desired := range p.configMaps {
		wanted[KindSharedConfigMap+"/"+desired.Name] = true
		existing := p.cmsNow[i]
		switch {
		case existing == nil:
			if _, err := configMaps.Create(ctx, desired, metav1.CreateOptions{}); err != nil {
				return err
			}
			recorder.Eventf("SharedConfigMapCreated", "Created SharedConfigMap %s for ClusterBundle %s", desired.Name, bundle.Name)
		case !equality.Semantic.DeepEqual(existing.Spec, desired.Spec) || !metaInSync(existing, desired):
			updated := existing.DeepCopy()
			updated.Spec = desired.Spec
			syncMeta(updated, desired)
			if _, err := configMaps.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
				return err
			}
			recorder.Eventf("SharedConfigMapUpdated", "Updated SharedConfigMap %s for ClusterBundle %s", desired.Name, bundle.Name)
		}
	}

	roles := c.kubeClient.RbacV1().ClusterRoles()
	switch existing := p.roleNow; {
	case existing == nil:
		if _, err := roles.Create(ctx, p.role, metav1.CreateOptions{}); err != nil {
			return err
		}
		recorder.Eventf("ClusterRoleCreated", "Created ClusterRole %s for ClusterBundle %s", p.role.Name, bundle.Name)
	case !equality.Semantic.DeepEqual(existing.Rules, p.role.Rules) || existing.AggregationRule != nil || !metaInSync(existing, p.role):
		updated := existing.DeepCopy()
		updated.Rules = p.role.Rules
		updated.AggregationRule = nil
		syncMeta(updated, p.role)
		if _, err := roles.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
			return err
		}
		recorder.Eventf("ClusterRoleUpdated", "Updated ClusterRole %s for ClusterBundle %s", p.role.Name, bundle.Name)
	}

	return c.deleteUnwanted(ctx, recorder, bundle, wanted)
}

// metaInSync says whether existing carries desired's labels and owner.
// Labels others added stay, except aggregation labels, which are ours.
func metaInSync(existing, desired metav1.Object) bool {
	return equality.Semantic.DeepEqual(existing.GetLabels(), withLabels(existing.GetLabels(), desired.GetLabels())) &&
		equality.Semantic.DeepEqual(existing.GetOwnerReferences(), desired.GetOwnerReferences())
}

// syncMeta gives existing desired's labels and owner.
func syncMeta(existing, desired metav1.Object) {
	existing.SetLabels(withLabels(existing.GetLabels(), desired.GetLabels()))
	existing.SetOwnerReferences(desired.GetOwnerReferences())
}

// deleteUnwanted deletes this bundle's shares that its spec no longer
// names. The UID precondition spares a share re-created meanwhile.
func (c *controller) deleteUnwanted(ctx context.Context, recorder events.Recorder, bundle *subscriptionv1alpha1.ClusterBundle, wanted map[string]bool) error {
	selector := labels.SelectorFromSet(labels.Set{BundleLabel: bundle.Name})
	secrets, err := c.sharedSecrets.List(selector)
	if err != nil {
		return err
	}
	configMaps, err := c.sharedConfigMaps.List(selector)
	if err != nil {
		return err
	}
	deleted := func(kind, name string, err error) error {
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err == nil {
			recorder.Eventf(kind+"Deleted", "Deleted %s %s: ClusterBundle %s no longer references it", kind, name, bundle.Name)
		}
		return err
	}
	for _, s := range secrets {
		if wanted[KindSharedSecret+"/"+s.Name] || !ownedBy(s, bundle) {
			continue
		}
		err := c.shareClient.SharedresourceV1alpha1().SharedSecrets().Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(s.UID))})
		if err := deleted(KindSharedSecret, s.Name, err); err != nil {
			return err
		}
	}
	for _, s := range configMaps {
		if wanted[KindSharedConfigMap+"/"+s.Name] || !ownedBy(s, bundle) {
			continue
		}
		err := c.shareClient.SharedresourceV1alpha1().SharedConfigMaps().Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(s.UID))})
		if err := deleted(KindSharedConfigMap, s.Name, err); err != nil {
			return err
		}
	}
	return nil
}
