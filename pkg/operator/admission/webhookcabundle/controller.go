// Package webhookcabundle applies the webhook's
// MutatingWebhookConfiguration from bindata (with the pod identity webhooks
// while pod identity runs, and the fail-open webhook only while some pod
// could get something it did not ask for) with every webhook's caBundle
// set to the serving-CA ConfigMap's bundle, restores it when it drifts or is
// deleted, and deletes it under Removed. It is applied by the operator, never
// shipped through the CVO, whose apply would wipe the caBundle.
package webhookcabundle

import (
	"context"
	"slices"
	"time"

	configv1informers "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	admissionregistrationinformers "k8s.io/client-go/informers/admissionregistration/v1"
	"k8s.io/client-go/kubernetes"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/cluster-workload-access-operator/bindata"
	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	operatorv1alpha1informers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/operator/v1alpha1"
	subscriptionv1alpha1informers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhooktrust"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity"
)

// ControllerName owns the WebhookCABundleDegraded condition.
const ControllerName = "WebhookCABundle"

// ManifestFile is the MutatingWebhookConfiguration in bindata;
// PodIdentityManifestFile holds the webhooks added to it while pod
// identity runs.
const (
	ManifestFile            = "operand/webhook-mutatingwebhookconfiguration.yaml"
	PodIdentityManifestFile = "operand/webhook-mutatingwebhookconfiguration-pod-identity.yaml"
)

// OpportunisticWebhook is the fail-open webhook every pod that asks for
// nothing goes through.
const OpportunisticWebhook = "opportunistic.workload-access.openshift.io"

// PlatformPodCondition is the fail-open webhook's matchCondition that keeps
// platform pods (openshift, openshift-*, kube-* namespaces, static pods) from
// it: automatic subscription injection never reaches them, so without pod
// identity they cost no webhook call.
const PlatformPodCondition = "not-a-platform-pod"

// Manifest is the configuration as shipped, without any caBundle, with the
// pod identity webhooks when podIdentity is set. Without pod identity and
// without automatic injections (no always-inject bundle anywhere) no pod
// can get anything it did not ask for, so the fail-open webhook that every
// other pod goes through is left out: pod creations cost the cluster no
// webhook call at all. Pod identity injects into platform pods too, so
// while it runs the fail-open webhook sees them.
func Manifest(podIdentity, automatic bool) *admissionregistrationv1.MutatingWebhookConfiguration {
	m := resourceread.ReadMutatingWebhookConfigurationV1OrDie(bindata.MustAsset(ManifestFile))
	if !podIdentity && !automatic {
		m.Webhooks = slices.DeleteFunc(m.Webhooks, func(w admissionregistrationv1.MutatingWebhook) bool { return w.Name == OpportunisticWebhook })
	}
	if podIdentity {
		for i := range m.Webhooks {
			m.Webhooks[i].MatchConditions = slices.DeleteFunc(m.Webhooks[i].MatchConditions, func(c admissionregistrationv1.MatchCondition) bool {
				return c.Name == PlatformPodCondition
			})
		}
		extra := resourceread.ReadMutatingWebhookConfigurationV1OrDie(bindata.MustAsset(PodIdentityManifestFile))
		m.Webhooks = append(m.Webhooks, extra.Webhooks...)
	}
	return m
}

type controller struct {
	kubeClient     kubernetes.Interface
	operatorClient v1helpers.OperatorClient
	configMaps     corev1listers.ConfigMapLister
	webhookConfigs admissionregistrationlisters.MutatingWebhookConfigurationLister
	// podIdentity says whether the pod identity webhooks belong in the
	// configuration.
	podIdentity func() (podidentity.Decision, error)
	// alwaysInject says whether any Bundle or ClusterBundle is injected into
	// pods that do not ask for it.
	alwaysInject func() (bool, error)
	cache        resourceapply.ResourceCache
}

// Inputs are what the controller needs.
type Inputs struct {
	KubeClient    kubernetes.Interface
	KubeInformers v1helpers.KubeInformersForNamespaces
	// WebhookConfigs must watch the operator's own configuration (RBAC
	// names that one object).
	WebhookConfigs   admissionregistrationinformers.MutatingWebhookConfigurationInformer
	Infrastructures  configv1informers.InfrastructureInformer
	WorkloadAccesses operatorv1alpha1informers.WorkloadAccessInformer
	// Bundles and ClusterBundles say whether any is injected into pods
	// that do not ask for it.
	Bundles        subscriptionv1alpha1informers.BundleInformer
	ClusterBundles subscriptionv1alpha1informers.ClusterBundleInformer
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
}

// New returns the controller.
func New(in Inputs) factory.Controller {
	configMaps := in.KubeInformers.InformersFor(operatorclient.OperandNamespace).Core().V1().ConfigMaps()
	c := &controller{
		kubeClient:     in.KubeClient,
		operatorClient: in.OperatorClient,
		configMaps:     configMaps.Lister(),
		webhookConfigs: in.WebhookConfigs.Lister(),
		podIdentity: func() (podidentity.Decision, error) {
			return podidentity.Read(in.Infrastructures.Lister(), in.WorkloadAccesses.Lister())
		},
		alwaysInject: func() (bool, error) {
			namespaced, err := in.Bundles.Lister().List(alwaysInjectSelector)
			if err != nil || len(namespaced) > 0 {
				return len(namespaced) > 0, err
			}
			cluster, err := in.ClusterBundles.Lister().List(alwaysInjectSelector)
			return len(cluster) > 0, err
		},
		cache: resourceapply.NewResourceCache(),
	}
	return factory.New().
		WithFilteredEventsInformers(factory.NamesFilter(operatorclient.WebhookServingCAConfigMap), configMaps.Informer()).
		WithFilteredEventsInformers(hasAlwaysInjectLabel, in.Bundles.Informer(), in.ClusterBundles.Informer()).
		WithInformers(in.WebhookConfigs.Informer(), in.OperatorClient.Informer(), in.Infrastructures.Informer(), in.WorkloadAccesses.Informer()).
		WithSync(c.sync).
		WithSyncDegradedOnError(in.OperatorClient).
		ResyncEvery(10*time.Minute).
		ToController(ControllerName, in.Recorder.WithComponentSuffix("webhook-cabundle"))
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	return managementsync.Syncs{Managed: c.apply, Removed: c.remove}.Sync(c.operatorClient)(ctx, syncCtx)
}

func (c *controller) apply(ctx context.Context, syncCtx factory.SyncContext) error {
	caBundle, err := webhooktrust.ServingCABundle(c.configMaps)
	if err != nil || caBundle == nil {
		// No trust to publish yet: a configuration without it would only make
		// the API server fail every call. Cert rotation creates the bundle and
		// its event brings us back.
		return err
	}
	podIdentity, err := c.podIdentity()
	if err != nil {
		return err
	}
	automatic, err := c.alwaysInject()
	if err != nil {
		return err
	}
	required := webhooktrust.WithCABundle(Manifest(podIdentity.Enabled, automatic), caBundle)
	// A resync with nothing changed costs no API call: the cached object is
	// what the last apply wrote.
	if existing, err := c.webhookConfigs.Get(required.Name); err == nil && c.cache.SafeToSkipApply(required, existing) {
		return nil
	}
	_, _, err = resourceapply.ApplyMutatingWebhookConfigurationImproved(ctx, c.kubeClient.AdmissionregistrationV1(),
		syncCtx.Recorder(), required, c.cache)
	return err
}

func (c *controller) remove(ctx context.Context, syncCtx factory.SyncContext) error {
	_, cached := c.webhookConfigs.Get(operatorclient.WebhookName)
	return webhooktrust.Remove(ctx, syncCtx.Recorder(), "MutatingWebhookConfiguration", cached,
		c.kubeClient.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete)
}

var alwaysInjectSelector = labels.SelectorFromSet(labels.Set{subscriptionv1alpha1.AlwaysInjectLabel: "true"})

// hasAlwaysInjectLabel passes the bundle events that can change whether
// any bundle is always injected; client-go's filtering handler turns the
// label added to or removed from a bundle into an add or a delete.
func hasAlwaysInjectLabel(obj any) bool {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	o, err := meta.Accessor(obj)
	return err == nil && alwaysInjectSelector.Matches(labels.Set(o.GetLabels()))
}
