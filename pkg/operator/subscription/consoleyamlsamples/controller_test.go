package consoleyamlsamples

import (
	"context"
	"reflect"
	"strings"
	"testing"

	consolev1 "github.com/openshift/api/console/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	consolefake "github.com/openshift/client-go/console/clientset/versioned/fake"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/clock"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

func newController(t *testing.T, state operatorv1.ManagementState, objects ...runtime.Object) (*controller, *consolefake.Clientset) {
	t.Helper()
	samples, err := Samples()
	if err != nil {
		t.Fatal(err)
	}
	client := consolefake.NewSimpleClientset(objects...)
	return &controller{
		client:         client.ConsoleV1(),
		operatorClient: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: state}, &operatorv1.OperatorStatus{}, nil),
		samples:        samples,
	}, client
}

func sync(t *testing.T, c *controller) {
	t.Helper()
	if err := c.sync(context.Background(), factory.NewSyncContext("test", events.NewInMemoryRecorder("test", clock.RealClock{}))); err != nil {
		t.Fatal(err)
	}
}

func writes(client *consolefake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	return out
}

func TestSamplesTargetTheSubscriptionAPI(t *testing.T) {
	samples, err := Samples()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range samples {
		names = append(names, s.Name)
		if s.Spec.TargetResource.APIVersion != "subscription.openshift.io/v1alpha1" ||
			!strings.Contains(string(s.Spec.YAML), "apiVersion: subscription.openshift.io/v1alpha1\nkind: "+s.Spec.TargetResource.Kind+"\n") {
			t.Errorf("%s targets %v with\n%s", s.Name, s.Spec.TargetResource, s.Spec.YAML)
		}
	}
	if want := []string{operatorclient.ClusterBundleSample, operatorclient.BundleSample}; !reflect.DeepEqual(names, want) {
		t.Errorf("samples %v, want %v", names, want)
	}
}

func TestManagedCreatesThenLeavesAlone(t *testing.T) {
	c, client := newController(t, operatorv1.Managed)
	sync(t, c)
	if got, want := writes(client), []string{"create consoleyamlsamples", "create consoleyamlsamples"}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
	client.ClearActions()
	sync(t, c)
	if w := writes(client); len(w) != 0 {
		t.Errorf("an unchanged resync wrote %v", w)
	}
}

func TestManagedRestoresAnEditedSample(t *testing.T) {
	edited := c0(t)
	edited.Spec.Title = "changed"
	edited.Labels = map[string]string{"someone": "else"}
	c, client := newController(t, operatorv1.Managed, edited)
	sync(t, c)
	got, err := client.ConsoleV1().ConsoleYAMLSamples().Get(context.Background(), edited.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec != c.samples[0].Spec || got.Labels["someone"] != "else" {
		t.Errorf("sample not restored: %+v", got)
	}
}

func c0(t *testing.T) *consolev1.ConsoleYAMLSample {
	samples, err := Samples()
	if err != nil {
		t.Fatal(err)
	}
	return samples[0]
}

func TestWithoutTheConsoleThereIsNothingToDo(t *testing.T) {
	c, client := newController(t, operatorv1.Managed)
	client.PrependReactor("*", "consoleyamlsamples", func(action clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Group: "console.openshift.io", Resource: "consoleyamlsamples"}, "")
	})
	sync(t, c)
	c.operatorClient = v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Removed}, &operatorv1.OperatorStatus{}, nil)
	sync(t, c)
}

func TestRemovedDeletesTheSamples(t *testing.T) {
	samples, err := Samples()
	if err != nil {
		t.Fatal(err)
	}
	c, client := newController(t, operatorv1.Removed, samples[0], samples[1])
	sync(t, c)
	list, err := client.ConsoleV1().ConsoleYAMLSamples().List(context.Background(), metav1.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Errorf("samples left under Removed: %v %v", list, err)
	}
	client.ClearActions()
	sync(t, c)
}

func TestUnmanagedDoesNothing(t *testing.T) {
	c, client := newController(t, operatorv1.Unmanaged)
	sync(t, c)
	if len(client.Actions()) != 0 {
		t.Errorf("Unmanaged acted: %v", client.Actions())
	}
}
