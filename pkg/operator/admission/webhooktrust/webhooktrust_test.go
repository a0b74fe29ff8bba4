package webhooktrust

import (
	"context"
	"testing"

	"github.com/openshift/library-go/pkg/operator/events"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
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

func TestServingCABundle(t *testing.T) {
	for _, tc := range []struct {
		name string
		cm   *corev1.ConfigMap
		want string
	}{
		{"no ConfigMap yet", nil, ""},
		{"ConfigMap without a bundle", caConfigMap(""), ""},
		{"bundle", caConfigMap(bundle), bundle},
	} {
		indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		if tc.cm != nil {
			_ = indexer.Add(tc.cm)
		}
		got, err := ServingCABundle(corev1listers.NewConfigMapLister(indexer))
		if err != nil || string(got) != tc.want || (tc.want == "" && got != nil) {
			t.Errorf("%s: ServingCABundle = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func caConfigMap(data string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: operatorclient.OperandNamespace, Name: operatorclient.WebhookServingCAConfigMap},
		Data:       map[string]string{operatorclient.CABundleKey: data},
	}
}

func TestRemove(t *testing.T) {
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "validatingwebhookconfigurations"}, operatorclient.WebhookName)
	for _, tc := range []struct {
		name          string
		cached        error
		deleteErr     error
		wantDeletes   int
		wantErr       bool
		wantEventSaid bool
	}{
		{"the cache shows it gone: no call", notFound, nil, 0, false, false},
		{"deleted", nil, nil, 1, false, true},
		{"someone deleted it first", nil, notFound, 1, false, false},
		{"the API server refuses", nil, apierrors.NewForbidden(schema.GroupResource{}, "x", nil), 1, true, false},
	} {
		recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
		deletes := 0
		err := Remove(context.Background(), recorder, "ValidatingWebhookConfiguration", tc.cached,
			func(_ context.Context, name string, _ metav1.DeleteOptions) error {
				if name != operatorclient.WebhookName {
					t.Errorf("%s: deleted %q", tc.name, name)
				}
				deletes++
				return tc.deleteErr
			})
		if deletes != tc.wantDeletes || (err != nil) != tc.wantErr {
			t.Errorf("%s: %d deletes, error %v; want %d deletes, error %v", tc.name, deletes, err, tc.wantDeletes, tc.wantErr)
		}
		said := len(recorder.Events()) == 1 && recorder.Events()[0].Reason == "ValidatingWebhookConfigurationDeleted"
		if said != tc.wantEventSaid {
			t.Errorf("%s: events %v, want the deletion said: %v", tc.name, recorder.Events(), tc.wantEventSaid)
		}
	}
}
