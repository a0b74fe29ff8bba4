// Package webhookavailability reports WebhookAvailable: the webhook can be
// called only when its Deployment has available replicas and both its
// configurations (the MutatingWebhookConfiguration for pods, the access-grants
// ValidatingWebhookConfiguration) trust the current serving CA. The same
// checks, made strict (every replica updated), tell the version controller
// when the webhook is at level.
package webhookavailability

import (
	"fmt"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	admissionregistrationinformers "k8s.io/client-go/informers/admissionregistration/v1"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"
	appsv1listers "k8s.io/client-go/listers/apps/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhooktrust"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// ControllerName owns the WebhookAvailable condition.
const ControllerName = "WebhookAvailability"

// ConditionType is unioned into the ClusterOperator's Available.
const ConditionType = "WebhookAvailable"

// Operand reads the webhook's objects through the operator's informers.
type Operand struct {
	operatorClient v1helpers.OperatorClient
	deployments    appsv1listers.DeploymentLister
	configMaps     corev1listers.ConfigMapLister
	webhookConfigs admissionregistrationlisters.MutatingWebhookConfigurationLister
	grantsConfigs  admissionregistrationlisters.ValidatingWebhookConfigurationLister
	// image is what every webhook container must run to be at level.
	image     string
	informers []factory.Informer
}

// OperandInputs are what the Operand reads.
type OperandInputs struct {
	// Image is what every webhook container must run to be at level.
	Image          string
	KubeInformers  v1helpers.KubeInformersForNamespaces
	WebhookConfigs admissionregistrationinformers.MutatingWebhookConfigurationInformer
	GrantsConfigs  admissionregistrationinformers.ValidatingWebhookConfigurationInformer
	OperatorClient v1helpers.OperatorClient
}

// NewOperand builds the Operand.
func NewOperand(in OperandInputs) *Operand {
	operand := in.KubeInformers.InformersFor(operatorclient.OperandNamespace)
	return &Operand{
		operatorClient: in.OperatorClient,
		deployments:    operand.Apps().V1().Deployments().Lister(),
		configMaps:     operand.Core().V1().ConfigMaps().Lister(),
		webhookConfigs: in.WebhookConfigs.Lister(),
		grantsConfigs:  in.GrantsConfigs.Lister(),
		image:          in.Image,
		informers: []factory.Informer{
			operand.Apps().V1().Deployments().Informer(),
			operand.Core().V1().ConfigMaps().Informer(),
			in.WebhookConfigs.Informer(),
			in.GrantsConfigs.Informer(),
		},
	}
}

// Informers are those the Operand reads.
func (o *Operand) Informers() []factory.Informer { return o.informers }

// NewController returns the WebhookAvailable controller.
func NewController(operand *Operand, recorder events.Recorder) factory.Controller {
	return factory.New().
		WithInformers(append(operand.Informers(), operand.operatorClient.Informer())...).
		WithSync(operand.syncAvailability()).
		ResyncEvery(5*time.Minute).
		ToController(ControllerName, recorder.WithComponentSuffix("webhook-availability"))
}

func (o *Operand) syncAvailability() factory.SyncFunc {
	return conditions.AvailabilitySync(o.operatorClient, ControllerName, ConditionType,
		"The webhook is removed, as managementState Removed asks", o.unavailable)
}

// unavailable says why the API server cannot call the webhook, or else
// describes what serves it.
func (o *Operand) unavailable() (conditions.Unavailable, string, error) {
	deployment, err := o.deployment()
	if err != nil {
		return conditions.Unavailable{}, "", err
	}
	if deployment == nil {
		return conditions.Unavailable{Reason: "DeploymentMissing",
			Message: fmt.Sprintf("Deployment %s/%s does not exist yet", operatorclient.OperandNamespace, operatorclient.WebhookName)}, "", nil
	}
	if deployment.Status.AvailableReplicas == 0 {
		return conditions.Unavailable{Reason: "NoAvailableReplicas",
			Message: fmt.Sprintf("Deployment %s/%s has no available replica", deployment.Namespace, deployment.Name)}, "", nil
	}
	if reason, message, err := o.caBundleNotSynced(); err != nil || reason != "" {
		return conditions.Unavailable{Reason: reason, Message: message}, "", err
	}
	return conditions.Unavailable{}, fmt.Sprintf("%d of %d webhook replicas available", deployment.Status.AvailableReplicas, ptrValue(deployment.Spec.Replicas)), nil
}

func (o *Operand) caBundleNotSynced() (reason, message string, err error) {
	caBundle, err := webhooktrust.ServingCABundle(o.configMaps)
	if err != nil {
		return "", "", err
	}
	if caBundle == nil {
		return "CABundleMissing", fmt.Sprintf("ConfigMap %s/%s does not hold the serving CA yet", operatorclient.OperandNamespace, operatorclient.WebhookServingCAConfigMap), nil
	}
	config, err := o.webhookConfigs.Get(operatorclient.WebhookName)
	if apierrors.IsNotFound(err) {
		return "WebhookConfigurationMissing", fmt.Sprintf("MutatingWebhookConfiguration %s does not exist yet", operatorclient.WebhookName), nil
	}
	if err != nil {
		return "", "", err
	}
	if !webhooktrust.Trusts(config, caBundle) {
		return "CABundleNotSynced", fmt.Sprintf("MutatingWebhookConfiguration %s does not trust the current serving CA yet", operatorclient.WebhookName), nil
	}
	// Without it, ScopeTemplates, ScopeInstances and APIAccessPolicies are
	// refused (the access-grants check fails closed).
	grants, err := o.grantsConfigs.Get(operatorclient.WebhookName)
	if apierrors.IsNotFound(err) {
		return "WebhookConfigurationMissing", fmt.Sprintf("ValidatingWebhookConfiguration %s does not exist yet", operatorclient.WebhookName), nil
	}
	if err != nil {
		return "", "", err
	}
	if !webhooktrust.TrustsValidating(grants, caBundle) {
		return "CABundleNotSynced", fmt.Sprintf("ValidatingWebhookConfiguration %s does not trust the current serving CA yet", operatorclient.WebhookName), nil
	}
	return "", "", nil
}

func (o *Operand) deployment() (*appsv1.Deployment, error) {
	deployment, err := o.deployments.Deployments(operatorclient.OperandNamespace).Get(operatorclient.WebhookName)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return deployment, err
}

// AtLevel implements operatorversion.Operand: under Managed every replica
// runs this operator's image and is available, and the CA bundle is synced;
// under Removed the Deployment and the configuration are gone.
func (o *Operand) AtLevel(spec *operatorv1.OperatorSpec) (bool, string, error) {
	deployment, err := o.deployment()
	if err != nil {
		return false, "", err
	}
	if spec.ManagementState == operatorv1.Removed {
		_, err := o.webhookConfigs.Get(operatorclient.WebhookName)
		_, grantsErr := o.grantsConfigs.Get(operatorclient.WebhookName)
		switch {
		case err != nil && !apierrors.IsNotFound(err):
			return false, "", err
		case grantsErr != nil && !apierrors.IsNotFound(grantsErr):
			return false, "", grantsErr
		case deployment != nil || err == nil || grantsErr == nil:
			return false, "waiting for removal of the webhook", nil
		}
		return true, "", nil
	}
	if deployment == nil {
		return false, "waiting for the webhook Deployment", nil
	}
	for _, c := range deployment.Spec.Template.Spec.Containers {
		if c.Image != o.image {
			return false, fmt.Sprintf("waiting for the webhook Deployment to use image %s", o.image), nil
		}
	}
	want := ptrValue(deployment.Spec.Replicas)
	s := deployment.Status
	if s.ObservedGeneration < deployment.Generation || s.UpdatedReplicas != want || s.AvailableReplicas != want || s.Replicas != want {
		return false, fmt.Sprintf("waiting for the webhook rollout (%d of %d replicas updated and available)", min(s.UpdatedReplicas, s.AvailableReplicas), want), nil
	}
	if reason, message, err := o.caBundleNotSynced(); err != nil || reason != "" {
		return false, message, err
	}
	return true, "", nil
}

func ptrValue(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}
