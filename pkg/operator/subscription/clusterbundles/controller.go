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
	"slices"
	"strings"
	"time"

	sharedresourcev1alpha1 "github.com/openshift/api/sharedresource/v1alpha1"
	sharedresourceclient "github.com/openshift/client-go/sharedresource/clientset/versioned"
	sharedresourceinformers "github.com/openshift/client-go/sharedresource/informers/externalversions"
	sharedresourcelisters "github.com/openshift/client-go/sharedresource/listers/sharedresource/v1alpha1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	rbacv1listers "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/subscription/v1alpha1"
	operatorinformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/operator/v1alpha1"
	subscriptioninformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/subscription/v1alpha1"
	subscriptionlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/reconcileloop"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlerefs"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlestatus"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/referencewatch"
)

// ControllerName owns the ClusterBundleDegraded condition.
const ControllerName = "ClusterBundle"

// Inputs are what the ClusterBundle controllers need.
type Inputs struct {
	ClusterBundles subscriptioninformers.ClusterBundleInformer
	BundleClient   subscriptionclient.ClusterBundlesGetter
	ShareClient    sharedresourceclient.Interface
	KubeClient     kubernetes.Interface
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
	// ObjectEvents records Events on the ClusterBundles themselves.
	ObjectEvents record.EventRecorder
	// Restart ends the operator so that its Deployment starts it again.
	Restart func(cause error)
	// Driver is the Shared Resource CSI driver's service account; empty
	// means DefaultDriverServiceAccount.
	Driver DriverServiceAccount
	// References wakes a bundle when what it references changes.
	References *referencewatch.Watch
	// WorkloadAccesses carries the operator-wide default of
	// aggregateToClusterRoles (spec.subscriptions).
	WorkloadAccesses operatorinformers.WorkloadAccessInformer
}

// New returns the ClusterBundle controllers that fit this cluster. With the
// Shared Resource CSI driver's API (OpenShift serves it only with
// TechPreview): the controller that generates shares and roles. Without it:
// a stand-in that marks every ClusterBundle Invalid, and a watch that
// restarts the operator once the API appears; informers on a missing API
// would never sync, and library-go would exit the process.
func New(in Inputs) ([]factory.Controller, error) {
	installed, err := SharedResourceAPIInstalled(in.KubeClient.Discovery())
	if err != nil {
		return nil, fmt.Errorf("looking for the sharedresource.openshift.io API: %w", err)
	}
	if !installed {
		klog.Warningf("the sharedresource.openshift.io API is not served: ClusterBundles are marked Invalid until it is")
		return []factory.Controller{
			newUnavailable(in),
			newAPIWatch(in.KubeClient.Discovery(), in.Restart, in.Recorder),
		}, nil
	}
	controller, err := newController(in)
	if err != nil {
		return nil, err
	}
	return []factory.Controller{controller}, nil
}

type controller struct {
	bundleClient subscriptionclient.ClusterBundlesGetter
	events       record.EventRecorder
	reader       bundlerefs.Reader
	driver       driverAccess
	secrets      generated[*sharedresourcev1alpha1.SharedSecret]
	configMaps   generated[*sharedresourcev1alpha1.SharedConfigMap]
	roles        generated[*rbacv1.ClusterRole]
	// aggregation is the operator-wide default of aggregateToClusterRoles;
	// nil reads as none.
	aggregation *aggregationDefault
}

// newController watches only what it generated, by label: the cluster's
// other ClusterRoles and shares are none of its business. It starts those
// informers itself, when it runs. Changes of referenced objects come from
// in.References, through an index it adds to the ClusterBundle informer.
func newController(in Inputs) (factory.Controller, error) {
	kubeInformers, shareInformers := generatedInformers(in.KubeClient, in.ShareClient)
	sharedSecrets := shareInformers.Sharedresource().V1alpha1().SharedSecrets()
	sharedConfigMaps := shareInformers.Sharedresource().V1alpha1().SharedConfigMaps()
	roles := kubeInformers.Rbac().V1().ClusterRoles()

	triggers, err := in.References.For(in.ClusterBundles.Informer(), References)
	if err != nil {
		return nil, err
	}
	c := newGenerator(in.BundleClient, in.KubeClient, in.ShareClient, sharedSecrets.Lister(), sharedConfigMaps.Lister(), roles.Lister(), in.ObjectEvents)
	c.driver.driver = in.driver()
	owned := reconcileloop.Watched{
		Informers: []factory.Informer{sharedSecrets.Informer(), sharedConfigMaps.Informer(), roles.Informer()},
		Key:       informerkit.LabelKey(BundleLabel),
	}
	c.aggregation = &aggregationDefault{workloadAccesses: in.WorkloadAccesses.Lister(), clusterBundles: in.ClusterBundles.Lister()}
	defaults := reconcileloop.Watched{Informers: []factory.Informer{in.WorkloadAccesses.Informer()}, Key: c.aggregation.changedKeys}
	controller := reconcileloop.New(ControllerName, Source(in.ClusterBundles),
		append(referencewatch.Watched(triggers), owned, defaults),
		c.syncBundle, in.OperatorClient, in.Recorder, "cluster-bundle")
	return informerkit.StartOnRun(controller, kubeInformers.Start, shareInformers.Start), nil
}

// generatedInformers are the informers of what the controller generated,
// found by label, cached without managedFields.
func generatedInformers(kubeClient kubernetes.Interface, shareClient sharedresourceclient.Interface) (informers.SharedInformerFactory, sharedresourceinformers.SharedInformerFactory) {
	byLabel := func(options *metav1.ListOptions) { options.LabelSelector = BundleLabel }
	return informers.NewSharedInformerFactoryWithOptions(kubeClient, informerkit.Resync,
			informers.WithTweakListOptions(byLabel), informers.WithTransform(informerkit.WithoutManagedFields)),
		sharedresourceinformers.NewSharedInformerFactoryWithOptions(shareClient, informerkit.Resync,
			sharedresourceinformers.WithTweakListOptions(byLabel), sharedresourceinformers.WithTransform(informerkit.WithoutManagedFields))
}

// References are the objects a ClusterBundle references, as referencewatch
// indexes them.
func References(obj any) []bundlerefs.Ref {
	bundle, ok := obj.(*subscriptionv1alpha1.ClusterBundle)
	if !ok {
		return nil
	}
	return append(refs(bundlerefs.Secret, bundle.Spec.Entitlements), refs(bundlerefs.ConfigMap, bundle.Spec.YumRepositories)...)
}

func newGenerator(bundleClient subscriptionclient.ClusterBundlesGetter, kubeClient kubernetes.Interface, shareClient sharedresourceclient.Interface,
	sharedSecrets sharedresourcelisters.SharedSecretLister, sharedConfigMaps sharedresourcelisters.SharedConfigMapLister, roles rbacv1listers.ClusterRoleLister,
	objectEvents record.EventRecorder) *controller {
	return &controller{
		bundleClient: bundleClient,
		events:       objectEvents,
		reader:       bundlerefs.Reader{Kube: kubeClient},
		driver:       driverAccess{reviews: kubeClient.AuthorizationV1().SubjectAccessReviews(), driver: DefaultDriverServiceAccount},
		secrets: generated[*sharedresourcev1alpha1.SharedSecret]{
			kind: KindSharedSecret, events: objectEvents, lister: sharedSecrets, client: shareClient.SharedresourceV1alpha1().SharedSecrets(),
			content: func(existing, desired *sharedresourcev1alpha1.SharedSecret) (*sharedresourcev1alpha1.SharedSecret, bool) {
				out := existing.DeepCopy()
				out.Spec = desired.Spec
				return out, !equality.Semantic.DeepEqual(existing.Spec, desired.Spec)
			},
		},
		configMaps: generated[*sharedresourcev1alpha1.SharedConfigMap]{
			kind: KindSharedConfigMap, events: objectEvents, lister: sharedConfigMaps, client: shareClient.SharedresourceV1alpha1().SharedConfigMaps(),
			content: func(existing, desired *sharedresourcev1alpha1.SharedConfigMap) (*sharedresourcev1alpha1.SharedConfigMap, bool) {
				out := existing.DeepCopy()
				out.Spec = desired.Spec
				return out, !equality.Semantic.DeepEqual(existing.Spec, desired.Spec)
			},
		},
		roles: generated[*rbacv1.ClusterRole]{
			kind: "ClusterRole", events: objectEvents, lister: roles, client: kubeClient.RbacV1().ClusterRoles(),
			content: func(existing, desired *rbacv1.ClusterRole) (*rbacv1.ClusterRole, bool) {
				out := existing.DeepCopy()
				out.Rules, out.AggregationRule = desired.Rules, nil
				return out, !equality.Semantic.DeepEqual(existing.Rules, desired.Rules) || existing.AggregationRule != nil
			},
		},
	}
}

// Source reads ClusterBundles from their informer.
func Source(informer subscriptioninformers.ClusterBundleInformer) reconcileloop.Source[*subscriptionv1alpha1.ClusterBundle] {
	return source(informer.Informer(), informer.Lister())
}

func source(informer factory.Informer, lister subscriptionlisters.ClusterBundleLister) reconcileloop.Source[*subscriptionv1alpha1.ClusterBundle] {
	return reconcileloop.Source[*subscriptionv1alpha1.ClusterBundle]{
		Kind:     "ClusterBundle",
		Informer: informer,
		Get:      lister.Get,
		List:     func() ([]*subscriptionv1alpha1.ClusterBundle, error) { return lister.List(labels.Everything()) },
	}
}

func (c *controller) syncBundle(ctx context.Context, syncCtx factory.SyncContext, bundle *subscriptionv1alpha1.ClusterBundle) error {
	recorder := syncCtx.Recorder()
	entitlements := refs(bundlerefs.Secret, bundle.Spec.Entitlements)
	yumRepositories := refs(bundlerefs.ConfigMap, bundle.Spec.YumRepositories)
	all := append(append([]bundlerefs.Ref{}, entitlements...), yumRepositories...)

	// Share names follow from the spec alone, so access the spec no longer
	// grants is revoked even when the bundle is invalid for another reason.
	wanted := shares(bundle.Name, all)
	invalid := func(reason, message string) error {
		if err := c.revoke(ctx, recorder, bundle, wanted); err != nil {
			return err
		}
		return c.invalid(ctx, recorder, bundle, reason, message)
	}

	keys, missing, err := c.reader.Resolve(ctx, all)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		// Their creation wakes the bundle (referencewatch); this retry is
		// the fallback should that event be missed.
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), bundlestatus.MissingRetry(bundle.Status.Conditions, time.Now()))
		return invalid(subscriptionv1alpha1.ReasonMissingReference, bundlerefs.MissingMessage(missing))
	}
	// Entitlements share one directory, yum repositories another.
	overlaps := append(bundlerefs.Overlaps(entitlements, keys), bundlerefs.Overlaps(yumRepositories, keys)...)
	if len(overlaps) > 0 {
		return invalid(subscriptionv1alpha1.ReasonOverlappingKeys, strings.Join(overlaps, "; "))
	}
	// The driver reads the sources with its own service account; without
	// read access pods mounting the shares hang in ContainerCreating. RBAC
	// is not watched: look again soon, as for a missing reference.
	unreadable, err := c.driver.unreadable(ctx, all)
	if err != nil {
		return err
	}
	if len(unreadable) > 0 {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), bundlestatus.InvalidRetry(bundle.Status.Conditions, subscriptionv1alpha1.ReasonDriverCannotRead, time.Now()))
		return invalid(subscriptionv1alpha1.ReasonDriverCannotRead, DriverCannotReadMessage(c.driver.driver, unreadable))
	}

	// Decide everything before writing anything: a conflict found halfway
	// would leave a bundle half-created.
	p, conflicts, err := c.plan(ctx, bundle, wanted)
	if err != nil {
		return err
	}
	if len(conflicts) > 0 {
		return invalid(subscriptionv1alpha1.ReasonConflict, strings.Join(conflicts, "; "))
	}
	if err := c.apply(ctx, recorder, bundle, p); err != nil {
		return err
	}

	status := bundle.Status.DeepCopy()
	status.ObservedGeneration = bundle.Generation
	bundlestatus.SetValid(&status.Conditions, bundle.Generation)
	status.ClusterRole = p.role.desired.Name
	status.Shares = shareReferences(wanted)
	shareOf := map[bundlerefs.Ref]string{}
	for _, s := range wanted {
		shareOf[s.ref] = s.name
	}
	resolve := func(refs []bundlerefs.Ref) []subscriptionv1alpha1.ResolvedReference {
		var out []subscriptionv1alpha1.ResolvedReference
		for _, ref := range refs {
			out = append(out, subscriptionv1alpha1.ResolvedReference{Name: ref.Name, Namespace: ref.Namespace, Keys: keys[ref], Share: shareOf[ref]})
		}
		return out
	}
	status.Entitlements = resolve(entitlements)
	status.YumRepositories = resolve(yumRepositories)
	return updateStatus(ctx, c.bundleClient, c.events, bundle, status)
}

func refs(kind bundlerefs.Kind, in []subscriptionv1alpha1.ClusterReference) []bundlerefs.Ref {
	out := make([]bundlerefs.Ref, 0, len(in))
	for _, r := range in {
		out = append(out, bundlerefs.Ref{Kind: kind, Namespace: r.Namespace, Name: r.Name})
	}
	return out
}

// invalid records why the bundle cannot be injected and touches nothing else.
func (c *controller) invalid(ctx context.Context, recorder events.Recorder, bundle *subscriptionv1alpha1.ClusterBundle, reason, message string) error {
	return markInvalid(ctx, c.bundleClient, recorder, c.events, bundle, reason, message)
}

func markInvalid(ctx context.Context, client subscriptionclient.ClusterBundlesGetter, recorder events.Recorder, objectEvents record.EventRecorder,
	bundle *subscriptionv1alpha1.ClusterBundle, reason, message string) error {
	status := bundle.Status.DeepCopy()
	status.ObservedGeneration = bundle.Generation
	bundlestatus.MarkInvalid(recorder, "ClusterBundle", bundle, &status.Conditions, reason, message)
	return updateStatus(ctx, client, objectEvents, bundle, status)
}

// updateStatus writes only a status that changed: a resync of a settled
// bundle costs the API server reads, not writes. Once written, a change of
// validity becomes an Event on the bundle.
func updateStatus(ctx context.Context, client subscriptionclient.ClusterBundlesGetter, objectEvents record.EventRecorder,
	bundle *subscriptionv1alpha1.ClusterBundle, status *subscriptionv1alpha1.ClusterBundleStatus) error {
	if equality.Semantic.DeepEqual(&bundle.Status, status) {
		return nil
	}
	updated := bundle.DeepCopy()
	updated.Status = *status
	if _, err := client.ClusterBundles().UpdateStatus(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return err
	}
	bundlestatus.RecordTransition(objectEvents, "ClusterBundle", bundle, bundle.Status.Conditions, status.Conditions)
	return nil
}

// plan is every generated object a bundle needs, with what exists of it.
type plan struct {
	secrets    []planned[*sharedresourcev1alpha1.SharedSecret]
	configMaps []planned[*sharedresourcev1alpha1.SharedConfigMap]
	role       planned[*rbacv1.ClusterRole]
}

// plan finds the existing object of every desired one and names those that
// belong to someone else.
func (c *controller) plan(ctx context.Context, bundle *subscriptionv1alpha1.ClusterBundle, wanted []share) (*plan, []string, error) {
	p := &plan{}
	var conflicts []string
	conflict := func(kind, name string) {
		conflicts = append(conflicts, fmt.Sprintf("%s %s already exists and is not owned by ClusterBundle %s", kind, name, bundle.Name))
	}
	for _, s := range wanted {
		if s.kind() == KindSharedSecret {
			found, conflicting, err := c.secrets.find(ctx, bundle, desiredSharedSecret(bundle, s))
			if err != nil {
				return nil, nil, err
			}
			if conflicting {
				conflict(KindSharedSecret, s.name)
			}
			p.secrets = append(p.secrets, found)
			continue
		}
		found, conflicting, err := c.configMaps.find(ctx, bundle, desiredSharedConfigMap(bundle, s))
		if err != nil {
			return nil, nil, err
		}
		if conflicting {
			conflict(KindSharedConfigMap, s.name)
		}
		p.configMaps = append(p.configMaps, found)
	}
	role, conflicting, err := c.roles.find(ctx, bundle, desiredClusterRole(bundle, wanted, c.aggregation.roles()))
	if err != nil {
		return nil, nil, err
	}
	if conflicting {
		conflict("ClusterRole", role.desired.Name)
	}
	p.role = role
	return p, conflicts, nil
}

// apply creates and updates the shares, then the role, then deletes the
// shares no longer wanted: a pod never holds a role naming a share that is
// yet to exist for longer than necessary, and a removed share is gone
// before anything else.
func (c *controller) apply(ctx context.Context, recorder events.Recorder, bundle *subscriptionv1alpha1.ClusterBundle, p *plan) error {
	wantedSecrets, wantedConfigMaps := map[string]bool{}, map[string]bool{}
	for _, s := range p.secrets {
		wantedSecrets[s.desired.Name] = true
		if err := c.secrets.ensure(ctx, recorder, bundle, s); err != nil {
			return err
		}
	}
	for _, s := range p.configMaps {
		wantedConfigMaps[s.desired.Name] = true
		if err := c.configMaps.ensure(ctx, recorder, bundle, s); err != nil {
			return err
		}
	}
	// The role is never deleted here: the garbage collector does that with
	// the bundle.
	if err := c.roles.ensure(ctx, recorder, bundle, p.role); err != nil {
		return err
	}
	if err := c.secrets.deleteUnwanted(ctx, recorder, bundle, wantedSecrets); err != nil {
		return err
	}
	return c.configMaps.deleteUnwanted(ctx, recorder, bundle, wantedConfigMaps)
}

// revoke takes back, from an invalid bundle, access its spec no longer
// grants: first the use grants of dropped shares in the bundle's role, then
// those shares. It creates and widens nothing: what the spec still names
// stays as it was until the bundle is valid again.
func (c *controller) revoke(ctx context.Context, recorder events.Recorder, bundle *subscriptionv1alpha1.ClusterBundle, wanted []share) error {
	wantedSecrets, wantedConfigMaps := map[string]bool{}, map[string]bool{}
	for _, s := range wanted {
		if s.kind() == KindSharedSecret {
			wantedSecrets[s.name] = true
		} else {
			wantedConfigMaps[s.name] = true
		}
	}
	// The cache alone: an invalid bundle is retried often, and a role
	// without our label is not one this path narrows.
	role, err := c.roles.lister.Get(ClusterRoleName(bundle.Name))
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	case ownedBy(role, bundle):
		if narrowed, changed := withoutUseOf(role, wantedSecrets, wantedConfigMaps); changed {
			if _, err := c.roles.client.Update(ctx, narrowed, metav1.UpdateOptions{}); err != nil {
				return err
			}
			recorder.Eventf("ClusterRoleUpdated", "Updated ClusterRole %s: ClusterBundle %s no longer references some of its shares", role.Name, bundle.Name)
			c.events.Eventf(bundle, corev1.EventTypeNormal, "AccessRevoked",
				"ClusterRole %s no longer lets pods use the shares the spec dropped; the rest is kept until the bundle is valid again", role.Name)
		}
	}
	if err := c.secrets.deleteUnwanted(ctx, recorder, bundle, wantedSecrets); err != nil {
		return err
	}
	return c.configMaps.deleteUnwanted(ctx, recorder, bundle, wantedConfigMaps)
}

// withoutUseOf returns a copy of role whose use rules name only shares in
// the wanted sets, and whether that removed anything.
func withoutUseOf(role *rbacv1.ClusterRole, secrets, configMaps map[string]bool) (*rbacv1.ClusterRole, bool) {
	out := role.DeepCopy()
	out.Rules = out.Rules[:0]
	changed := false
	for _, rule := range role.Rules {
		wanted := map[string]map[string]bool{"sharedsecrets": secrets, "sharedconfigmaps": configMaps}[singleResource(rule)]
		if wanted == nil || !slices.Equal(rule.APIGroups, []string{sharedresourcev1alpha1.GroupName}) {
			out.Rules = append(out.Rules, rule)
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(rule.ResourceNames), func(name string) bool { return !wanted[name] })
		if len(kept) != len(rule.ResourceNames) {
			changed = true
		}
		if len(kept) > 0 {
			rule.ResourceNames = kept
			out.Rules = append(out.Rules, rule)
		}
	}
	return out, changed
}

func singleResource(rule rbacv1.PolicyRule) string {
	if len(rule.Resources) != 1 {
		return ""
	}
	return rule.Resources[0]
}
