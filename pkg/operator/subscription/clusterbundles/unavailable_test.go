package clusterbundles

import (
	"context"
	"errors"
	"reflect"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	discoveryfake "k8s.io/client-go/discovery/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionfake "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	subscriptionlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/reconcileloop"
)

func TestUnavailableMarksEveryBundleInvalidOnce(t *testing.T) {
	ctx := context.Background()
	subs := subscriptionfake.NewSimpleClientset(clusterBundle("rhel", nil, []subscriptionv1alpha1.ClusterReference{ref("ns", "ent")}))
	operatorClient := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil)
	bundles := indexer(t)
	loop := reconcileloop.NewLoop(ControllerName, source(nil, subscriptionlisters.NewClusterBundleLister(bundles)),
		markUnavailable(subs.SubscriptionV1alpha1(), record.NewFakeRecorder(100)), operatorClient)
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	sync := func() []string {
		t.Helper()
		list, err := subs.SubscriptionV1alpha1().ClusterBundles().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var items []interface{}
		for i := range list.Items {
			items = append(items, &list.Items[i])
		}
		replace(t, bundles, items)
		subs.ClearActions()
		if err := loop.Sync(ctx, keyedContext{factory.NewSyncContext("test", recorder), "rhel"}); err != nil {
			t.Fatal(err)
		}
		var writes []string
		for _, a := range subs.Actions() {
			if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
				writes = append(writes, a.GetVerb()+" "+a.GetResource().Resource+"/"+a.GetSubresource())
			}
		}
		return writes
	}

	if got, want := sync(), []string{"update clusterbundles/status"}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
	b, err := subs.SubscriptionV1alpha1().ClusterBundles().Get(ctx, "rhel", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(b.Status.Conditions, subscriptionv1alpha1.ConditionInvalid)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != subscriptionv1alpha1.ReasonSharedResourceUnavailable ||
		cond.Message != UnavailableMessage || cond.ObservedGeneration != 1 || b.Status.ObservedGeneration != 1 {
		t.Errorf("status %+v", b.Status)
	}
	if events := recorder.Events(); len(events) != 1 || events[0].Reason != "ClusterBundleInvalid" {
		t.Errorf("events %v", events)
	}
	if w := sync(); len(w) != 0 {
		t.Errorf("a second sync wrote %v", w)
	}
}

func TestSharedResourceAPIInstalled(t *testing.T) {
	for _, tc := range []struct {
		name      string
		resources []*metav1.APIResourceList
		want      bool
	}{
		{"absent", nil, false},
		{"both", []*metav1.APIResourceList{{GroupVersion: "sharedresource.openshift.io/v1alpha1",
			APIResources: []metav1.APIResource{{Name: "sharedsecrets"}, {Name: "sharedconfigmaps"}}}}, true},
		{"only SharedSecrets", []*metav1.APIResourceList{{GroupVersion: "sharedresource.openshift.io/v1alpha1",
			APIResources: []metav1.APIResource{{Name: "sharedsecrets"}}}}, false},
	} {
		client := kubefake.NewClientset()
		client.Resources = tc.resources
		got, err := SharedResourceAPIInstalled(client.Discovery().(*discoveryfake.FakeDiscovery))
		if err != nil || got != tc.want {
			t.Errorf("%s: %v (%v), want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestAPIWatchRestartsOnceTheAPIIsServed(t *testing.T) {
	client := kubefake.NewClientset()
	var causes []error
	watch := newAPIWatch(client.Discovery(), func(cause error) { causes = append(causes, cause) },
		events.NewInMemoryRecorder("test", clock.RealClock{}))
	sync := func() {
		t.Helper()
		if err := watch.Sync(context.Background(), factory.NewSyncContext("test", events.NewInMemoryRecorder("test", clock.RealClock{}))); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	if len(causes) != 0 {
		t.Fatalf("restarted without the API: %v", causes)
	}
	client.Resources = []*metav1.APIResourceList{{GroupVersion: "sharedresource.openshift.io/v1alpha1",
		APIResources: []metav1.APIResource{{Name: "sharedsecrets"}, {Name: "sharedconfigmaps"}}}}
	sync()
	if len(causes) != 1 || !errors.Is(causes[0], ErrSharedResourceAPIAppeared) {
		t.Errorf("restart causes %v, want one ErrSharedResourceAPIAppeared", causes)
	}
}
