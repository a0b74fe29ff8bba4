package accessgrantswebhook

import (
	"context"
	"slices"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

const bundle = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

func newController(t *testing.T, state operatorv1.ManagementState, caBundle string, objects ...runtime.Object) (*controller, *fake.Clientset, cache.Indexer) {
	t.Helper()
	cms := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if caBundle != "" {
		_ = cms.Add(&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: operatorclient.OperandNamespace, Name: operatorclient.WebhookServingCAConfigMap},
			Data:       map[string]string{operatorclient.CABundleKey: caBundle},
		})
	}
	client := fake.NewClientset(objects...)
	configs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, o := range objects {
		_ = configs.Add(o)
	}
	return &controller{
		kubeClient:     client,
		operatorClient: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: state}, &operatorv1.OperatorStatus{}, nil),
		configMaps:     corev1listers.NewConfigMapLister(cms),
		webhookConfigs: admissionregistrationlisters.NewValidatingWebhookConfigurationLister(configs),
		cache:          resourceapply.NewResourceCache(),
	}, client, configs
}

func syncContext() factory.SyncContext {
	return factory.NewSyncContext("test", events.NewInMemoryRecorder("test", clock.RealClock{}))
}

func writes(client *fake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	return out
}

func get(t *testing.T, client *fake.Clientset) *admissionregistrationv1.ValidatingWebhookConfiguration {
	t.Helper()
	vwc, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), operatorclient.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return vwc
}

// The shipped configuration is what the safety-net policy expects: one
// fail-closed webhook on the check's path for the four kinds, and for the
// deletes of IAMRoleRequests, which can move a role's trust.
func TestManifestFailsClosed(t *testing.T) {
	m := Manifest()
	if m.Name != operatorclient.WebhookName || len(m.Webhooks) != 1 {
		t.Fatalf("configuration %s with %d webhooks", m.Name, len(m.Webhooks))
	}
	w := m.Webhooks[0]
	if w.Name != "access-grants.workload-access.openshift.io" || *w.FailurePolicy != admissionregistrationv1.Fail ||
		*w.SideEffects != admissionregistrationv1.SideEffectClassNone || *w.ClientConfig.Service.Path != "/validate-access-grants" ||
		*w.TimeoutSeconds != 15 {
		t.Errorf("webhook %+v", w)
	}
	var resources []string
	for _, r := range w.Rules {
		want := []admissionregistrationv1.OperationType{"CREATE", "UPDATE"}
		if slices.Equal(r.Resources, []string{"iamrolerequests"}) {
			want = append(want, "DELETE")
		}
		if !slices.Equal(r.Operations, want) {
			t.Errorf("rule %v: operations %v, want %v", r.Resources, r.Operations, want)
		}
		resources = append(resources, r.Resources...)
	}
	if !slices.Equal(resources, []string{"scopetemplates", "scopeinstances", "apiaccesspolicies", "iamrolerequests"}) {
		t.Errorf("resources %v", resources)
	}
}

func TestSyncAppliesWithTheBundleAndThenWritesNothing(t *testing.T) {
	c, client, configs := newController(t, operatorv1.Managed, bundle)
	client.PrependReactor("create", "validatingwebhookconfigurations", func(action clienttesting.Action) (bool, runtime.Object, error) {
		action.(clienttesting.CreateAction).GetObject().(*admissionregistrationv1.ValidatingWebhookConfiguration).ResourceVersion = "1"
		return false, nil, nil
	})
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	vwc := get(t, client)
	if string(vwc.Webhooks[0].ClientConfig.CABundle) != bundle {
		t.Fatalf("caBundle %q", vwc.Webhooks[0].ClientConfig.CABundle)
	}
	_ = configs.Add(vwc)
	client.ClearActions()
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	if a := client.Actions(); len(a) != 0 {
		t.Errorf("a resync with nothing changed made %d API calls: %v", len(a), a)
	}
}

func TestSyncRestoresATamperedConfiguration(t *testing.T) {
	tampered := Manifest()
	tampered.Webhooks[0].ClientConfig.CABundle = []byte("someone else's CA")
	ignore := admissionregistrationv1.Ignore
	tampered.Webhooks[0].FailurePolicy = &ignore
	c, client, _ := newController(t, operatorv1.Managed, bundle, tampered)
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	vwc := get(t, client)
	if string(vwc.Webhooks[0].ClientConfig.CABundle) != bundle || *vwc.Webhooks[0].FailurePolicy != admissionregistrationv1.Fail {
		t.Errorf("not restored: %+v", vwc.Webhooks[0])
	}
	if w := writes(client); !slices.Equal(w, []string{"update validatingwebhookconfigurations"}) {
		t.Errorf("writes %v, want one update", w)
	}
}

func TestSyncWaitsForTheBundle(t *testing.T) {
	c, client, _ := newController(t, operatorv1.Managed, "")
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	if w := writes(client); len(w) != 0 {
		t.Errorf("wrote %v before a CA existed", w)
	}
}

func TestSyncFollowsManagementState(t *testing.T) {
	existing := Manifest()
	c, client, _ := newController(t, operatorv1.Removed, bundle, existing)
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	if w := writes(client); !slices.Equal(w, []string{"delete validatingwebhookconfigurations"}) {
		t.Errorf("Removed: writes %v", w)
	}
	c, client, _ = newController(t, operatorv1.Unmanaged, bundle, existing)
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	if w := writes(client); len(w) != 0 {
		t.Errorf("Unmanaged: wrote %v", w)
	}
}
