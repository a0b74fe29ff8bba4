// Package webhooktrust is how the operator puts the webhook's serving CA
// into its webhook configurations (the MutatingWebhookConfiguration and the
// access-grants ValidatingWebhookConfiguration) and tells whether one
// trusts it: the webhookcabundle and accessgrantswebhook controllers
// write them, the availability and version checks read them.
package webhooktrust

import (
	"context"

	"github.com/openshift/library-go/pkg/operator/events"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// ServingCABundle is the serving-CA ConfigMap's bundle, or nil while the
// ConfigMap or its bundle does not exist yet.
func ServingCABundle(configMaps corev1listers.ConfigMapLister) ([]byte, error) {
	cm, err := configMaps.ConfigMaps(operatorclient.OperandNamespace).Get(operatorclient.WebhookServingCAConfigMap)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if bundle := cm.Data[operatorclient.CABundleKey]; bundle != "" {
		return []byte(bundle), nil
	}
	return nil, nil
}

// WithCABundle returns a copy of config with caBundle set on every webhook.
func WithCABundle(config *admissionregistrationv1.MutatingWebhookConfiguration, caBundle []byte) *admissionregistrationv1.MutatingWebhookConfiguration {
	out := config.DeepCopy()
	for i := range out.Webhooks {
		out.Webhooks[i].ClientConfig.CABundle = caBundle
	}
	return out
}

// WithValidatingCABundle is WithCABundle for a ValidatingWebhookConfiguration.
func WithValidatingCABundle(config *admissionregistrationv1.ValidatingWebhookConfiguration, caBundle []byte) *admissionregistrationv1.ValidatingWebhookConfiguration {
	out := config.DeepCopy()
	for i := range out.Webhooks {
		out.Webhooks[i].ClientConfig.CABundle = caBundle
	}
	return out
}

// Trusts reports whether every webhook of config trusts exactly caBundle.
func Trusts(config *admissionregistrationv1.MutatingWebhookConfiguration, caBundle []byte) bool {
	if config == nil {
		return false
	}
	return allTrust(caBundle, len(config.Webhooks), func(i int) []byte { return config.Webhooks[i].ClientConfig.CABundle })
}

// TrustsValidating is Trusts for a ValidatingWebhookConfiguration.
func TrustsValidating(config *admissionregistrationv1.ValidatingWebhookConfiguration, caBundle []byte) bool {
	if config == nil {
		return false
	}
	return allTrust(caBundle, len(config.Webhooks), func(i int) []byte { return config.Webhooks[i].ClientConfig.CABundle })
}

// allTrust says whether there are webhooks and each of the n carries caBundle.
func allTrust(caBundle []byte, n int, webhookCA func(i int) []byte) bool {
	if n == 0 || len(caBundle) == 0 {
		return false
	}
	for i := range n {
		if string(webhookCA(i)) != string(caBundle) {
			return false
		}
	}
	return true
}

// Remove deletes the operator's webhook configuration of kind under
// Removed, with an event saying so. cached is the lister's error for it:
// what the cache shows gone costs no API call, and one deleted by someone
// else meanwhile is no failure.
func Remove(ctx context.Context, recorder events.Recorder, kind string, cached error,
	deleteConfig func(ctx context.Context, name string, opts metav1.DeleteOptions) error) error {
	if apierrors.IsNotFound(cached) {
		return nil
	}
	err := deleteConfig(ctx, operatorclient.WebhookName, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	recorder.Eventf(kind+"Deleted", "Deleted %s: the operator is Removed", operatorclient.WebhookName)
	return nil
}
