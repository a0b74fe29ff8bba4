// Package webhooktrust is how the operator puts the webhook's serving CA
// into its MutatingWebhookConfiguration and tells whether a configuration
// (that one, or the access-grants ValidatingWebhookConfiguration) trusts
// it: the webhookconfiguration controller writes it, the availability and
// version checks read it.
package webhooktrust

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// WithCABundle returns a copy of config with caBundle set on every webhook.
func WithCABundle(config *admissionregistrationv1.MutatingWebhookConfiguration, caBundle []byte) *admissionregistrationv1.MutatingWebhookConfiguration {
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
