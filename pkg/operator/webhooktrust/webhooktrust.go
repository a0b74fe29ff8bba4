// Package webhooktrust is how the operator puts the webhook's serving CA
// into its MutatingWebhookConfiguration and tells whether a configuration
// trusts it: the webhookconfiguration controller writes it, the
// availability and version checks read it.
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
	if config == nil || len(config.Webhooks) == 0 || len(caBundle) == 0 {
		return false
	}
	for _, webhook := range config.Webhooks {
		if string(webhook.ClientConfig.CABundle) != string(caBundle) {
			return false
		}
	}
	return true
}
