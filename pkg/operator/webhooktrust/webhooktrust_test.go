package webhooktrust

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

const bundle = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

func TestTrusts(t *testing.T) {
	shipped := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "a"}, {Name: "b"}}}
	synced := WithCABundle(shipped, []byte(bundle))
	if shipped.Webhooks[0].ClientConfig.CABundle != nil {
		t.Fatal("WithCABundle changed its input")
	}
	half := synced.DeepCopy()
	half.Webhooks[1].ClientConfig.CABundle = []byte("old")
	for _, tc := range []struct {
		name   string
		config *admissionregistrationv1.MutatingWebhookConfiguration
		bundle string
		want   bool
	}{
		{"all webhooks carry it", synced, bundle, true},
		{"one webhook is behind", half, bundle, false},
		{"as shipped", shipped, bundle, false},
		{"no configuration", nil, bundle, false},
		{"no bundle yet", synced, "", false},
		{"no webhooks", &admissionregistrationv1.MutatingWebhookConfiguration{}, bundle, false},
	} {
		if got := Trusts(tc.config, []byte(tc.bundle)); got != tc.want {
			t.Errorf("%s: Trusts = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTrustsValidating(t *testing.T) {
	config := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{
		{Name: "a", ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: []byte(bundle)}},
		{Name: "b", ClientConfig: admissionregistrationv1.WebhookClientConfig{CABundle: []byte(bundle)}},
	}}
	if !TrustsValidating(config, []byte(bundle)) {
		t.Error("every webhook carries the bundle, yet not trusted")
	}
	config.Webhooks[1].ClientConfig.CABundle = []byte("old")
	for name, c := range map[string]*admissionregistrationv1.ValidatingWebhookConfiguration{
		"one webhook is behind": config, "no configuration": nil, "no webhooks": {},
	} {
		if TrustsValidating(c, []byte(bundle)) {
			t.Errorf("%s: trusted", name)
		}
	}
}
