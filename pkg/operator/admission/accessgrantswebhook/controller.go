// Package accessgrantswebhook applies the webhook's
// ValidatingWebhookConfiguration from bindata, the attenuation check on
// ScopeTemplates, ScopeInstances, APIAccessPolicies and IAMRoleRequests,
// with every webhook's caBundle set to the serving-CA ConfigMap's bundle;
// restores it when it drifts or is deleted, and deletes it under Removed,
// as the webhookcabundle controller does for the
// MutatingWebhookConfiguration.
// While it does not exist, the CVO-shipped ValidatingAdmissionPolicy
// workload-access-access-grants-checked refuses those objects.
package accessgrantswebhook

import (
	"context"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationinformers "k8s.io/client-go/informers/admissionregistration/v1"
	"k8s.io/client-go/kubernetes"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/openshift/cluster-workload-access-operator/bindata"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhooktrust"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// ControllerName owns the AccessGrantsWebhookDegraded condition.
const ControllerName = "AccessGrantsWebhook"

// ManifestFile is the ValidatingWebhookConfiguration in bindata. It has
// the MutatingWebhookConfiguration's name (another kind): the operator's
// RBAC and informers name that one object of each.
const ManifestFile = "operand/webhook-validatingwebhookconfiguration.yaml"

// Manifest is the configuration as shipped, without any caBundle.
func Manifest() *admissionregistrationv1.ValidatingWebhookConfiguration {
	return resourceread.ReadValidatingWebhookConfigurationV1OrDie(bindata.MustAsset(ManifestFile))
}

type controller struct {
	kubeClient     kubernetes.Interface
	operatorClient v1helpers.OperatorClient
	configMaps     corev1listers.ConfigMapLister
	webhookConfigs admissionregistrationlisters.ValidatingWebhookConfigurationLister
	cache          resourceapply.ResourceCache
}

// Inputs are what the controller needs.
type Inputs struct {
	KubeClient    kubernetes.Interface
	KubeInformers v1helpers.KubeInformersForNamespaces
	// WebhookConfigs must watch only the operator's own configuration (RBAC
	// names that one object).
	WebhookConfigs admissionregistrationinformers.ValidatingWebhookConfigurationInformer
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
		cache:          resourceapply.NewResourceCache(),
	}
	return factory.New().
		WithFilteredEventsInformers(factory.NamesFilter(operatorclient.WebhookServingCAConfigMap), configMaps.Informer()).
		WithInformers(in.WebhookConfigs.Informer(), in.OperatorClient.Informer()).
		WithSync(c.sync).
		WithSyncDegradedOnError(in.OperatorClient).
		ResyncEvery(10*time.Minute).
		ToController(ControllerName, in.Recorder.WithComponentSuffix("access-grants-webhook"))
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	return managementsync.Syncs{Managed: c.apply, Removed: c.remove}.Sync(c.operatorClient)(ctx, syncCtx)
}

func (c *controller) apply(ctx context.Context, syncCtx factory.SyncContext) error {
	caBundle, err := webhooktrust.ServingCABundle(c.configMaps)
	if err != nil || caBundle == nil {
		// Without trust the API server could not call the webhook; the
		// policy refuses the objects meanwhile. Cert rotation creates the
		// bundle and its event brings us back.
		return err
	}
	required := webhooktrust.WithValidatingCABundle(Manifest(), caBundle)
	// A resync with nothing changed costs no API call.
	if existing, err := c.webhookConfigs.Get(required.Name); err == nil && c.cache.SafeToSkipApply(required, existing) {
		return nil
	}
	_, _, err = resourceapply.ApplyValidatingWebhookConfigurationImproved(ctx, c.kubeClient.AdmissionregistrationV1(),
		syncCtx.Recorder(), required, c.cache)
	return err
}

func (c *controller) remove(ctx context.Context, syncCtx factory.SyncContext) error {
	_, cached := c.webhookConfigs.Get(operatorclient.WebhookName)
	return webhooktrust.Remove(ctx, syncCtx.Recorder(), "ValidatingWebhookConfiguration", cached,
		c.kubeClient.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete)
}
