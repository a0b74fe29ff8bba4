package iamrolerequest

import (
	"context"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	configfake "github.com/openshift/client-go/config/clientset/versioned/fake"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	subscriptioninformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
)

// The controller as the starter builds it, on informers: a new request
// gets its finalizer, role and ServiceAccount through the event handlers,
// and the controller then settles: its own status write and finalizer do
// not keep it writing.
func TestControllerRunsOnInformers(t *testing.T) {
	f := newFixture(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kube := kubefake.NewClientset(f.secret, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps", UID: "uid-apps"}})
	clients := fake.NewSimpleClientset(f.wa)
	config := configfake.NewSimpleClientset(f.infra)
	namespaces := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithTransform(informerkit.SlimNamespace))
	shared := subscriptioninformers.NewSharedInformerFactory(clients, 0)
	configs := configinformers.NewSharedInformerFactory(config, 0)
	controller := New(Inputs{
		Requests: shared.PodIdentity().V1alpha1().IAMRoleRequests(), RequestClient: clients.PodIdentityV1alpha1(),
		WorkloadAccesses: shared.Operator().V1alpha1().WorkloadAccesses(), Config: configs.Config().V1(),
		Kube: kube, NamespaceEvents: namespaces.Core().V1().Namespaces(),
		ServiceAccounts: kube.CoreV1(), Namespaces: kube.CoreV1(),
		OperatorClient: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil),
		Recorder:       events.NewInMemoryRecorder("test", clock.RealClock{}), ObjectEvents: record.NewFakeRecorder(100),
	})
	namespaces.Start(ctx.Done())
	shared.Start(ctx.Done())
	configs.Start(ctx.Done())
	go controller.Run(ctx, 1)

	request := &podidentityv1alpha1.IAMRoleRequest{ObjectMeta: metav1.ObjectMeta{Name: "live", UID: "uid-live", Generation: 1},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage:      podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: "apps", Name: "live"}},
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{{Effect: "Allow", Action: []string{"s3:*"}, Resource: "*"}}},
		}}
	if _, err := clients.PodIdentityV1alpha1().IAMRoleRequests().Create(ctx, request, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := clients.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, "live", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return meta.IsStatusConditionTrue(got.Status.Conditions, podidentityv1alpha1.ConditionProvisioned) &&
			meta.IsStatusConditionTrue(got.Status.Conditions, podidentityv1alpha1.ConditionServiceAccountLinked), nil
	})
	if err != nil {
		got, _ := clients.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, "live", metav1.GetOptions{})
		t.Fatalf("the request was not provisioned: %v; status %+v", err, got.Status)
	}
	if _, err := kube.CoreV1().ServiceAccounts("apps").Get(ctx, "live", metav1.GetOptions{}); err != nil {
		t.Errorf("the ServiceAccount: %v", err)
	}
	if _, err := f.getRole("live"); err != nil {
		t.Errorf("the role: %v", err)
	}

	// Settled: nothing more is written.
	time.Sleep(500 * time.Millisecond)
	before := len(writes(clients.Actions())) + len(writes(kube.Actions()))
	time.Sleep(2 * time.Second)
	if after := len(writes(clients.Actions())) + len(writes(kube.Actions())); after != before {
		t.Errorf("the controller kept writing: %d writes in 2 s", after-before)
	}

	// The namespace starts terminating: its event wakes the request, and the
	// role is deleted at once, not at the next resync (DriftInterval).
	ns, err := kube.CoreV1().Namespaces().Get(ctx, "apps", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	ns.DeletionTimestamp = &now
	if _, err := kube.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := clients.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, "live", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, podidentityv1alpha1.ConditionProvisioned)
		return c != nil && c.Reason == podidentityv1alpha1.ReasonNamespaceDeleted, nil
	})
	if err != nil {
		got, _ := clients.PodIdentityV1alpha1().IAMRoleRequests().Get(ctx, "live", metav1.GetOptions{})
		t.Fatalf("the namespace's deletion did not revoke the role: %v; status %+v", err, got.Status)
	}
	if _, err := f.getRole("live"); awscall.ErrorCode(err) != "NoSuchEntity" {
		t.Errorf("the role after its namespace started terminating: %v, want NoSuchEntity", err)
	}
}

func writes[T interface{ GetVerb() string }](actions []T) []T {
	var out []T
	for _, a := range actions {
		if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
			out = append(out, a)
		}
	}
	return out
}
