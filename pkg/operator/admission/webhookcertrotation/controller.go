// Package webhookcertrotation keeps the webhook's serving certificate valid with
// library-go's certrotation: a signer Secret, the serving-CA ConfigMap (every
// signer not yet expired, so trust overlaps a rotation) and the serving
// certificate Secret for the webhook Service, all in the operand namespace.
package webhookcertrotation

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/certrotation"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// ControllerName owns the WebhookCertRotationDegraded condition.
const ControllerName = "WebhookCertRotation"

// Rotation timing. The signer lives two years and is replaced after one; the
// old one stays in the CA bundle until it expires, so every serving
// certificate it signed stays trusted. A serving certificate lives 30 days
// and is replaced after 15, always by the current signer, which has then
// been in the bundle for at least a day and a half (certrotation waits 10% of
// the refresh period before it uses a new signer).
const (
	SignerValidity      = 2 * 365 * 24 * time.Hour
	SignerRefresh       = 365 * 24 * time.Hour
	ServingCertValidity = 30 * 24 * time.Hour
	ServingCertRefresh  = 15 * 24 * time.Hour
)

// Hostnames are the names the API server may verify: it dials the Service's
// ClusterIP and checks <service>.<namespace>.svc.
func Hostnames() []string {
	svc := operatorclient.WebhookName + "." + operatorclient.OperandNamespace + ".svc"
	return []string{svc, svc + ".cluster.local"}
}

type controller struct {
	rotation       certrotation.CertRotationController
	operatorClient v1helpers.OperatorClient
	kubeClient     kubernetes.Interface
	secrets        corev1listers.SecretLister
	configMaps     corev1listers.ConfigMapLister
}

// Inputs are what the controller needs.
type Inputs struct {
	KubeClient     kubernetes.Interface
	KubeInformers  v1helpers.KubeInformersForNamespaces
	OperatorClient v1helpers.OperatorClient
	Recorder       events.Recorder
}

// New returns the controller. It rotates only while the operator is
// Managed, and under Removed deletes the signer, the serving certificate and
// the CA bundle: a removed webhook leaves no key behind.
func New(in Inputs) factory.Controller {
	ns := operatorclient.OperandNamespace
	informers := in.KubeInformers.InformersFor(ns)
	secrets := informers.Core().V1().Secrets()
	configMaps := informers.Core().V1().ConfigMaps()
	recorder := in.Recorder.WithComponentSuffix("webhook-cert-rotation")
	annotations := certrotation.AdditionalAnnotations{JiraComponent: "cluster-workload-access-operator"}

	c := &controller{
		operatorClient: in.OperatorClient,
		kubeClient:     in.KubeClient,
		secrets:        secrets.Lister(),
		configMaps:     configMaps.Lister(),
		rotation: certrotation.CertRotationController{
			Name: ControllerName,
			RotatedSigningCASecret: certrotation.RotatedSigningCASecret{
				Namespace: ns, Name: operatorclient.WebhookSignerSecret,
				Validity: SignerValidity, Refresh: SignerRefresh,
				AdditionalAnnotations: withDescription(annotations, "Signs the serving certificate of the workload-access admission webhook."),
				Informer:              secrets, Lister: secrets.Lister(), Client: in.KubeClient.CoreV1(), EventRecorder: recorder,
			},
			CABundleConfigMap: certrotation.CABundleConfigMap{
				Namespace: ns, Name: operatorclient.WebhookServingCAConfigMap,
				AdditionalAnnotations: withDescription(annotations, "CA bundle the API server trusts for the workload-access admission webhook."),
				Informer:              configMaps, Lister: configMaps.Lister(), Client: in.KubeClient.CoreV1(), EventRecorder: recorder,
			},
			RotatedSelfSignedCertKeySecret: certrotation.RotatedSelfSignedCertKeySecret{
				Namespace: ns, Name: operatorclient.WebhookServingCertSecret,
				Validity: ServingCertValidity, Refresh: ServingCertRefresh,
				CertCreator:           &certrotation.ServingRotation{Hostnames: Hostnames},
				AdditionalAnnotations: withDescription(annotations, "Serving certificate of the workload-access admission webhook."),
				Informer:              secrets, Lister: secrets.Lister(), Client: in.KubeClient.CoreV1(), EventRecorder: recorder,
			},
			StatusReporter: &conditionReporter{operatorClient: in.OperatorClient},
		},
	}
	return factory.New().
		WithFilteredEventsInformers(isRotated, secrets.Informer(), configMaps.Informer()).
		WithInformers(in.OperatorClient.Informer()).
		WithSync(c.sync).
		// The certificates' clocks move without any event.
		ResyncEvery(time.Minute).
		ToController(ControllerName, recorder)
}

func withDescription(a certrotation.AdditionalAnnotations, description string) certrotation.AdditionalAnnotations {
	a.Description = description
	return a
}

func isRotated(obj interface{}) bool {
	switch t := obj.(type) {
	case *corev1.Secret:
		return t.Name == operatorclient.WebhookSignerSecret || t.Name == operatorclient.WebhookServingCertSecret
	case *corev1.ConfigMap:
		return t.Name == operatorclient.WebhookServingCAConfigMap
	}
	return false
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	return managementsync.Syncs{Managed: c.rotation.Sync, Removed: c.deleteAll}.Sync(c.operatorClient)(ctx, syncCtx)
}

// deleteAll deletes what rotation created, reading the listers first so a
// resync after removal costs no API call.
func (c *controller) deleteAll(ctx context.Context, syncCtx factory.SyncContext) error {
	recorder := syncCtx.Recorder()
	ns := operatorclient.OperandNamespace
	var errs []error
	for _, name := range []string{operatorclient.WebhookSignerSecret, operatorclient.WebhookServingCertSecret} {
		if _, err := c.secrets.Secrets(ns).Get(name); apierrors.IsNotFound(err) {
			continue
		}
		err := c.kubeClient.CoreV1().Secrets(ns).Delete(ctx, name, metav1.DeleteOptions{})
		if err == nil {
			recorder.Eventf("SecretDeleted", "Deleted Secret %s/%s: the operator is Removed", ns, name)
		}
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	name := operatorclient.WebhookServingCAConfigMap
	if _, err := c.configMaps.ConfigMaps(ns).Get(name); !apierrors.IsNotFound(err) {
		err := c.kubeClient.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{})
		if err == nil {
			recorder.Eventf("ConfigMapDeleted", "Deleted ConfigMap %s/%s: the operator is Removed", ns, name)
		}
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// conditionReporter is certrotation's StatusReporter for a non-static-pod
// operator: WebhookCertRotationDegraded on WorkloadAccess, applied like
// every other condition.
type conditionReporter struct {
	operatorClient v1helpers.OperatorClient
}

func (r *conditionReporter) Report(ctx context.Context, controllerName string, syncErr error) (bool, error) {
	if syncErr != nil {
		syncErr = fmt.Errorf("Rotating the webhook serving certificate: %w", syncErr)
	}
	condition := conditions.Degraded(controllerName, "RotationError", syncErr)
	_, status, _, err := r.operatorClient.GetOperatorState()
	if err != nil {
		return false, err
	}
	before := v1helpers.FindOperatorCondition(status.Conditions, *condition.Type)
	if err := conditions.Apply(ctx, r.operatorClient, controllerName, condition); err != nil {
		return false, err
	}
	return before == nil || before.Status != *condition.Status || before.Message != *condition.Message, nil
}
