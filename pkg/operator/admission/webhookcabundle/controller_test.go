package webhookcabundle

import (
	"context"
	"slices"
	"strings"
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

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhooktrust"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation"
)

const bundle = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

func caConfigMap(data string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: operatorclient.OperandNamespace, Name: operatorclient.WebhookServingCAConfigMap},
		Data:       map[string]string{operatorclient.CABundleKey: data},
	}
}

func newController(t *testing.T, state operatorv1.ManagementState, cm *corev1.ConfigMap, objects ...runtime.Object) (*controller, *fake.Clientset) {
	t.Helper()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if cm != nil {
		if err := indexer.Add(cm); err != nil {
			t.Fatal(err)
		}
	}
	client := fake.NewClientset(objects...)
	configs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, o := range objects {
		if mwc, ok := o.(*admissionregistrationv1.MutatingWebhookConfiguration); ok {
			if err := configs.Add(mwc); err != nil {
				t.Fatal(err)
			}
		}
	}
	return &controller{
		kubeClient:     client,
		operatorClient: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: state}, &operatorv1.OperatorStatus{}, nil),
		configMaps:     corev1listers.NewConfigMapLister(indexer),
		webhookConfigs: admissionregistrationlisters.NewMutatingWebhookConfigurationLister(configs),
		podIdentity:    func() (podidentity.Decision, error) { return podidentity.Decision{}, nil },
		alwaysInject:   func() (bool, error) { return true, nil },
		cache:          resourceapply.NewResourceCache(),
	}, client
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

func TestSyncInjectsTheBundleIntoEveryWebhook(t *testing.T) {
	c, client := newController(t, operatorv1.Managed, caConfigMap(bundle))
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	mwc, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), operatorclient.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !webhooktrust.Trusts(mwc, []byte(bundle)) || len(mwc.Webhooks) != 2 {
		t.Fatalf("webhooks %v do not all carry the bundle", mwc.Webhooks)
	}

	// A second sync with nothing changed writes nothing.
	client.ClearActions()
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	if w := writes(client); len(w) != 0 {
		t.Errorf("an unchanged resync wrote %v", w)
	}
}

func TestSyncRestoresATamperedBundle(t *testing.T) {
	tampered := webhooktrust.WithCABundle(Manifest(false, true), []byte("someone else's CA"))
	c, client := newController(t, operatorv1.Managed, caConfigMap(bundle), tampered)
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	mwc, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), operatorclient.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !webhooktrust.Trusts(mwc, []byte(bundle)) {
		t.Fatal("the tampered caBundle was not replaced")
	}
	if w := writes(client); !slices.Equal(w, []string{"update mutatingwebhookconfigurations"}) {
		t.Errorf("writes %v, want one update", w)
	}
}

func TestSyncWaitsForTheBundle(t *testing.T) {
	for name, cm := range map[string]*corev1.ConfigMap{"no ConfigMap": nil, "empty bundle": caConfigMap("")} {
		t.Run(name, func(t *testing.T) {
			c, client := newController(t, operatorv1.Managed, cm)
			if err := c.sync(context.Background(), syncContext()); err != nil {
				t.Fatal(err)
			}
			if w := writes(client); len(w) != 0 {
				t.Errorf("wrote %v before a CA existed: a configuration nobody can verify only breaks admissions", w)
			}
		})
	}
}

func TestSyncFollowsManagementState(t *testing.T) {
	existing := webhooktrust.WithCABundle(Manifest(false, true), []byte(bundle))

	c, client := newController(t, operatorv1.Removed, caConfigMap(bundle), existing)
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	if w := writes(client); !slices.Equal(w, []string{"delete mutatingwebhookconfigurations"}) {
		t.Errorf("Removed: writes %v, want the configuration deleted", w)
	}
	client.ClearActions()
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatalf("Removed, already gone: %v", err)
	}

	c, client = newController(t, operatorv1.Unmanaged, caConfigMap("other"), existing)
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	if w := writes(client); len(w) != 0 {
		t.Errorf("Unmanaged: wrote %v", w)
	}
}

// The shipped configuration routes exactly the explicit requests the
// server knows to the fail-closed webhook, and everything else to the
// fail-open one; and it never sends the operator's own pods.
func TestManifestRoutesExplicitRequestsToTheFailClosedWebhook(t *testing.T) {
	m := Manifest(false, true)
	if m.Name != operatorclient.WebhookName || len(m.Webhooks) != 2 {
		t.Fatalf("manifest %s with %d webhooks", m.Name, len(m.Webhooks))
	}
	for _, w := range m.Webhooks {
		if len(w.MatchConditions) == 0 {
			t.Fatalf("%s: no matchConditions", w.Name)
		}
		expr := w.MatchConditions[0].Expression
		for _, annotation := range mutation.ExplicitRequestAnnotations {
			if !strings.Contains(expr, "'"+annotation+"'") {
				t.Errorf("%s: matchCondition does not mention %s: %s", w.Name, annotation, expr)
			}
		}
		fail := *w.FailurePolicy == admissionregistrationv1.Fail
		if fail == strings.HasPrefix(strings.TrimSpace(expr), "!") {
			t.Errorf("%s: failurePolicy %s with condition %q: the fail-closed webhook must match requests, the fail-open one the rest", w.Name, *w.FailurePolicy, expr)
		}
		svc := w.ClientConfig.Service
		if svc.Name != operatorclient.WebhookName || svc.Namespace != operatorclient.OperandNamespace {
			t.Errorf("%s: service %s/%s", w.Name, svc.Namespace, svc.Name)
		}
		excluded := false
		for _, e := range w.NamespaceSelector.MatchExpressions {
			if e.Key == "kubernetes.io/metadata.name" && slices.Contains(e.Values, operatorclient.OperandNamespace) && slices.Contains(e.Values, operatorclient.OperatorNamespace) {
				excluded = true
			}
		}
		if !excluded {
			t.Errorf("%s: the operator's namespaces are not excluded", w.Name)
		}
	}
}

// Without pod identity, the fail-open webhook skips platform pods (nothing
// automatic reaches them); with it, pod identity may inject into them, so
// they are sent. Empty request annotations ask for nothing in both
// webhooks' conditions.
func TestManifestSkipsPlatformPodsOnlyWithoutPodIdentity(t *testing.T) {
	conditions := func(m *admissionregistrationv1.MutatingWebhookConfiguration, webhook string) []string {
		var names []string
		for _, w := range m.Webhooks {
			if w.Name == webhook {
				for _, c := range w.MatchConditions {
					names = append(names, c.Name)
				}
			}
		}
		return names
	}
	if got := conditions(Manifest(false, true), OpportunisticWebhook); !slices.Equal(got, []string{"asks-for-nothing", PlatformPodCondition}) {
		t.Errorf("without pod identity: %v", got)
	}
	if got := conditions(Manifest(true, true), OpportunisticWebhook); !slices.Equal(got, []string{"asks-for-nothing"}) {
		t.Errorf("with pod identity: %v", got)
	}
	for _, w := range Manifest(false, true).Webhooks {
		for _, c := range w.MatchConditions {
			if c.Name == PlatformPodCondition {
				for _, want := range []string{"request.namespace != 'openshift'", "startsWith('openshift-')", "startsWith('kube-')", "'kubernetes.io/config.mirror'"} {
					if !strings.Contains(c.Expression, want) {
						t.Errorf("%s does not test %s: %s", c.Name, want, c.Expression)
					}
				}
				continue
			}
			for _, annotation := range mutation.ExplicitRequestAnnotations {
				if !strings.Contains(c.Expression, "object.metadata.annotations['"+annotation+"'].trim() != ''") {
					t.Errorf("%s/%s: an empty %s would count as a request: %s", w.Name, c.Name, annotation, c.Expression)
				}
			}
		}
	}
}

func TestResyncFromACurrentCacheCallsNothing(t *testing.T) {
	c, client := newController(t, operatorv1.Managed, caConfigMap(bundle))
	// The fake clientset does not version objects; the API server does.
	client.PrependReactor("create", "mutatingwebhookconfigurations", func(action clienttesting.Action) (bool, runtime.Object, error) {
		action.(clienttesting.CreateAction).GetObject().(*admissionregistrationv1.MutatingWebhookConfiguration).ResourceVersion = "1"
		return false, nil, nil
	})
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	applied, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), operatorclient.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	configs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := configs.Add(applied); err != nil {
		t.Fatal(err)
	}
	c.webhookConfigs = admissionregistrationlisters.NewMutatingWebhookConfigurationLister(configs)
	client.ClearActions()
	if err := c.sync(context.Background(), syncContext()); err != nil {
		t.Fatal(err)
	}
	if a := client.Actions(); len(a) != 0 {
		t.Errorf("a resync with the informer's object current made %d API calls: %v", len(a), a)
	}
}

// The pod identity webhook is in the configuration exactly while pod
// identity runs, so disabling it leaves nothing sending debug containers to
// a mutator that is off.
func TestPodIdentityWebhookFollowsTheDecision(t *testing.T) {
	c, client := newController(t, operatorv1.Managed, caConfigMap(bundle))
	names := func() []string {
		t.Helper()
		mwc, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), operatorclient.WebhookName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range mwc.Webhooks {
			out = append(out, w.Name)
		}
		return out
	}
	const podIdentityWebhook = "pod-identity-debug-containers.workload-access.openshift.io"
	for _, enabled := range []bool{true, false} {
		c.podIdentity = func() (podidentity.Decision, error) { return podidentity.Decision{Enabled: enabled}, nil }
		if err := c.sync(context.Background(), syncContext()); err != nil {
			t.Fatal(err)
		}
		got := names()
		if slices.Contains(got, podIdentityWebhook) != enabled || len(got) != 2+map[bool]int{true: 1}[enabled] {
			t.Errorf("pod identity %v: webhooks %v", enabled, got)
		}
	}
}

// The fail-open webhook, which every pod that asks for nothing goes
// through, is in the configuration only while some pod could get something
// without asking: pod identity runs, or a bundle is always injected.
func TestFailOpenWebhookOnlyWhileSomethingIsAutomatic(t *testing.T) {
	c, client := newController(t, operatorv1.Managed, caConfigMap(bundle))
	for _, tc := range []struct {
		podIdentity, alwaysInject bool
		want                      []string
	}{
		{false, false, []string{"requested.workload-access.openshift.io"}},
		{false, true, []string{"requested.workload-access.openshift.io", OpportunisticWebhook}},
		{true, false, []string{"requested.workload-access.openshift.io", OpportunisticWebhook, "pod-identity-debug-containers.workload-access.openshift.io"}},
		{false, false, []string{"requested.workload-access.openshift.io"}},
	} {
		c.podIdentity = func() (podidentity.Decision, error) {
			return podidentity.Decision{Enabled: tc.podIdentity}, nil
		}
		c.alwaysInject = func() (bool, error) { return tc.alwaysInject, nil }
		if err := c.sync(context.Background(), syncContext()); err != nil {
			t.Fatal(err)
		}
		mwc, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), operatorclient.WebhookName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range mwc.Webhooks {
			got = append(got, w.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("pod identity %v, always-inject %v: webhooks %v, want %v", tc.podIdentity, tc.alwaysInject, got, tc.want)
		}
	}
}

func TestAlwaysInjectLabelFilter(t *testing.T) {
	labelled := &subscriptionv1alpha1.ClusterBundle{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{subscriptionv1alpha1.AlwaysInjectLabel: "true"}}}
	plain := &subscriptionv1alpha1.ClusterBundle{ObjectMeta: metav1.ObjectMeta{Name: "b"}}
	off := &subscriptionv1alpha1.Bundle{ObjectMeta: metav1.ObjectMeta{Name: "c", Labels: map[string]string{subscriptionv1alpha1.AlwaysInjectLabel: "false"}}}
	for obj, want := range map[any]bool{labelled: true, plain: false, off: false, cache.DeletedFinalStateUnknown{Obj: labelled}: true, "junk": false} {
		if got := hasAlwaysInjectLabel(obj); got != want {
			t.Errorf("%v: %v, want %v", obj, got, want)
		}
	}
}
