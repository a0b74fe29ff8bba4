// Package webhookdeployment runs the admission webhook's Deployment through
// library-go's deployment controller: the manifest from bindata, the image
// from the operator's environment, replicas and anti-affinity from the
// control-plane topology, TLS settings from the cluster's TLS security
// profile, pod identity from the platform and WorkloadAccess, and a hash of the serving certificate so that a rotation rolls the
// pods.
package webhookdeployment

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	configv1informers "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/bindata"
	operatorv1alpha1informers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions/operator/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/loglevel"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/topology"
)

// ControllerName owns WebhookDeploymentProgressing and WebhookDeploymentDegraded.
// WebhookAvailable is reported elsewhere: available replicas alone do not
// make the webhook reachable.
const ControllerName = "WebhookDeployment"

// ManifestFile is the Deployment in bindata.
const ManifestFile = "operand/webhook-deployment.yaml"

// ServingCertHashAnnotation on the pod template changes with the serving
// certificate, so a rotation rolls the pods even before the kubelet
// refreshes the mounted Secret.
const ServingCertHashAnnotation = "workload-access.openshift.io/serving-cert-hash"

// Inputs are what the controller needs.
type Inputs struct {
	// Image is the operator's own image: the webhook is a subcommand of the
	// same binary.
	Image            string
	KubeClient       kubernetes.Interface
	KubeInformers    v1helpers.KubeInformersForNamespaces
	Config           configv1informers.Interface
	WorkloadAccesses operatorv1alpha1informers.WorkloadAccessInformer
	OperatorClient   v1helpers.OperatorClientWithFinalizers
	Recorder         events.Recorder
}

// New returns the controller.
func New(in Inputs) (factory.Controller, error) {
	operand := in.KubeInformers.InformersFor(operatorclient.OperandNamespace)
	secrets := operand.Core().V1().Secrets()
	infrastructures, apiservers := in.Config.Infrastructures(), in.Config.APIServers()
	return deploymentcontroller.NewDeploymentControllerBuilder(
		ControllerName,
		bindata.MustAsset(ManifestFile),
		in.Recorder,
		in.OperatorClient,
		in.KubeClient,
		operand.Apps().V1().Deployments(),
	).WithConditions(
		operatorv1.OperatorStatusTypeProgressing,
		operatorv1.OperatorStatusTypeDegraded,
	).WithExtraInformers(
		secrets.Informer(), infrastructures.Informer(), apiservers.Informer(), in.WorkloadAccesses.Informer(),
	).WithManifestHooks(
		ReplacePlaceholders(in.Image),
	).WithDeploymentHooks(
		TopologyHook(infrastructures.Lister()),
		TLSProfileHook(apiservers.Lister()),
		ServingCertHashHook(secrets.Lister()),
		PodIdentityHook(infrastructures.Lister(), in.WorkloadAccesses.Lister()),
	).ToController()
}

// ReplacePlaceholders fills in ${IMAGE} and ${LOG_LEVEL} (from spec.logLevel).
func ReplacePlaceholders(image string) deploymentcontroller.ManifestHookFunc {
	return func(spec *operatorv1.OperatorSpec, manifest []byte) ([]byte, error) {
		// Checked here, not at startup: without an image only the webhook
		// cannot be deployed, and WebhookDeploymentDegraded says why.
		if image == "" {
			return nil, fmt.Errorf("the webhook image is unknown: set OPERATOR_IMAGE")
		}
		replacer := strings.NewReplacer("${IMAGE}", image, "${LOG_LEVEL}", fmt.Sprint(loglevel.Of(spec.LogLevel)))
		return []byte(replacer.Replace(string(manifest))), nil
	}
}

// TopologyHook runs one replica without anti-affinity on a single-replica
// control plane, surging during rollouts so one pod always admits; otherwise
// it keeps the manifest's two replicas, one per control-plane node.
func TopologyHook(infrastructures configv1listers.InfrastructureLister) deploymentcontroller.DeploymentHookFunc {
	return func(_ *operatorv1.OperatorSpec, deployment *appsv1.Deployment) error {
		single, err := topology.SingleReplica(infrastructures)
		if err != nil || !single {
			return err
		}
		deployment.Spec.Replicas = ptr.To[int32](1)
		deployment.Spec.Template.Spec.Affinity = nil
		deployment.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{
			MaxUnavailable: ptr.To(intstr.FromInt32(0)),
			MaxSurge:       ptr.To(intstr.FromInt32(1)),
		}
		return nil
	}
}

// ServingCertHashHook annotates the pod template with a hash of the serving
// certificate Secret. Until cert rotation has created it there is nothing
// to mount, so the Deployment waits.
func ServingCertHashHook(secrets corev1listers.SecretLister) deploymentcontroller.DeploymentHookFunc {
	return func(spec *operatorv1.OperatorSpec, deployment *appsv1.Deployment) error {
		// Under Removed the Deployment is only being deleted, and the
		// Secret may already be gone with the namespace: nothing to wait for.
		if spec.ManagementState == operatorv1.Removed {
			return nil
		}
		secret, err := secrets.Secrets(operatorclient.OperandNamespace).Get(operatorclient.WebhookServingCertSecret)
		if err != nil {
			return fmt.Errorf("waiting for the serving certificate: %w", err)
		}
		if deployment.Spec.Template.Annotations == nil {
			deployment.Spec.Template.Annotations = map[string]string{}
		}
		deployment.Spec.Template.Annotations[ServingCertHashAnnotation] = hashData(secret)
		return nil
	}
}

func hashData(secret *corev1.Secret) string {
	keys := make([]string, 0, len(secret.Data))
	for k := range secret.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%d:", k, len(secret.Data[k]))
		h.Write(secret.Data[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
