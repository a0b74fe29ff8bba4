package iamroleboundary

import (
	"context"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	operatorv1alpha1listers "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	podidentitylisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

func indexer(objs ...runtime.Object) cache.Indexer {
	i := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, o := range objs {
		_ = i.Add(o)
	}
	return i
}

// The admin finds the missing boundary on WorkloadAccess (and so on the
// ClusterOperator), not only on each request; nothing waiting, nothing said.
func TestBoundaryStatus(t *testing.T) {
	infra := &configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Status: configv1.InfrastructureStatus{
		InfrastructureName: "t",
		PlatformStatus:     &configv1.PlatformStatus{Type: configv1.AWSPlatformType, AWS: &configv1.AWSPlatformStatus{Region: "us-east-1"}},
	}}
	wa := &operatorv1alpha1.WorkloadAccess{ObjectMeta: metav1.ObjectMeta{Name: operatorclient.ConfigName},
		Status: operatorv1alpha1.WorkloadAccessStatus{PodIdentity: operatorv1alpha1.PodIdentityStatus{
			Region: "us-east-1", IssuerURL: "https://oidc.example.test/t"}}}
	var requests []runtime.Object
	status := func() operatorv1.OperatorCondition {
		t.Helper()
		client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil)
		c := &controller{requests: podidentitylisters.NewIAMRoleRequestLister(indexer(requests...)),
			workloadAccesses: operatorv1alpha1listers.NewWorkloadAccessLister(indexer(wa)),
			infrastructures:  configv1listers.NewInfrastructureLister(indexer(infra)), operatorClient: client}
		if err := c.sync(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		_, got, _, err := client.GetOperatorState()
		if err != nil {
			t.Fatal(err)
		}
		condition := v1helpers.FindOperatorCondition(got.Conditions, ControllerName+"Degraded")
		if condition == nil {
			t.Fatalf("no %sDegraded among %+v", ControllerName, got.Conditions)
		}
		return *condition
	}
	want := func(s operatorv1.ConditionStatus, reason string, messageHas ...string) {
		t.Helper()
		got := status()
		if got.Status != s || got.Reason != reason {
			t.Fatalf("%sDegraded=%s %s (%s), want %s %s", ControllerName, got.Status, got.Reason, got.Message, s, reason)
		}
		for _, m := range messageHas {
			if !strings.Contains(got.Message, m) {
				t.Errorf("message %q does not say %q", got.Message, m)
			}
		}
	}

	want(operatorv1.ConditionFalse, "AsExpected") // no request waits
	for _, name := range []string{"d", "c", "b", "a"} {
		requests = append(requests, &podidentityv1alpha1.IAMRoleRequest{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	want(operatorv1.ConditionTrue, podidentityv1alpha1.ReasonPermissionsBoundaryNotSet,
		"4 IAMRoleRequests (a, b, c and 1 more) without a role", "oc patch workloadaccess cluster")
	wa.Spec.PodIdentity.Roles.PermissionsBoundary = "arn:aws:iam::123456789012:policy/other/boundary"
	want(operatorv1.ConditionTrue, podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, "not under the policy path /workload-access/")
	wa.Spec.PodIdentity.Roles.PermissionsBoundary = "arn:aws:iam::123456789012:policy/workload-access/boundary"
	want(operatorv1.ConditionFalse, "AsExpected")
	// An IAM-compatible service: its own grant decides, the operator does not.
	wa.Spec.PodIdentity.Roles.PermissionsBoundary, wa.Spec.PodIdentity.Roles.IAMEndpoint = "", "http://127.0.0.1:1"
	want(operatorv1.ConditionFalse, "AsExpected")
}
