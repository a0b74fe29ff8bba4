package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// operandObjects checks every object bindata/operand declares.
func operandObjectsPresent(ctx context.Context) error {
	if _, err := env.kube.CoreV1().Namespaces().Get(ctx, operandNS, metav1.GetOptions{}); err != nil {
		return err
	}
	if _, err := env.kube.CoreV1().ServiceAccounts(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{}); err != nil {
		return err
	}
	if _, err := env.kube.CoreV1().Services(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{}); err != nil {
		return err
	}
	for _, name := range []string{framework.WebhookName, defaultDenyPolicy} {
		if _, err := env.kube.NetworkingV1().NetworkPolicies(operandNS).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// defaultDenyPolicy is each namespace's NetworkPolicy that admits nothing.
const defaultDenyPolicy = "default-deny-ingress"

// Who may reach the operator and the webhook is shipped with them: the
// operand namespace's policies by the operator, the operator's by the CVO.
// The local control plane enforces no NetworkPolicy; their selectors and
// ports are checked against the Deployments in pkg/operator/frame/staticresources.
func TestNetworkPoliciesExist(t *testing.T) {
	dumpOnFailure(t)
	framework.Eventually(t, time.Minute, operandObjectsPresent)
	ctx := context.Background()
	for _, name := range []string{framework.OperatorName, defaultDenyPolicy} {
		if _, err := env.kube.NetworkingV1().NetworkPolicies(operatorNS).Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Error(err)
		}
	}
	// The webhook's policy is restored like any static resource.
	if err := env.kube.NetworkingV1().NetworkPolicies(operandNS).Delete(ctx, framework.WebhookName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, operandObjectsPresent)
}

func TestStaticResourcesAreAppliedAndRestored(t *testing.T) {
	dumpOnFailure(t)
	framework.Eventually(t, time.Minute, operandObjectsPresent)
	ctx := context.Background()

	ns, err := env.kube.CoreV1().Namespaces().Get(ctx, operandNS, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ns.Labels["pod-security.kubernetes.io/enforce"]; got != "restricted" {
		t.Errorf("operand namespace enforces pod security %q, want restricted", got)
	}

	// Deleted objects come back. The webhook's token dies with its
	// ServiceAccount, as a pod's would, and the Service comes back with
	// another ClusterIP: the next test that needs the webhook starts one
	// with a token of the restored ServiceAccount, on the new address.
	stopWebhook()
	if err := deleteWebhookServiceAccount(ctx); err != nil {
		t.Fatal(err)
	}
	if err := env.kube.CoreV1().Services(operandNS).Delete(ctx, framework.WebhookName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, operandObjectsPresent)

	// Drift is reverted: the Service pointed at other pods points back.
	service, err := env.kube.CoreV1().Services(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantSelector := service.Spec.Selector["app"]
	service.Spec.Selector = map[string]string{"app": "someone-else"}
	if _, err := env.kube.CoreV1().Services(operandNS).Update(ctx, service, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		service, err := env.kube.CoreV1().Services(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := service.Spec.Selector["app"]; got != wantSelector {
			return fmt.Errorf("service selects app=%q, want %q", got, wantSelector)
		}
		return nil
	})
}

// The operator works inside its operand namespace through the Role the CVO
// binds there and cannot create namespaces. It may write RoleBindings and
// bind and escalate ClusterRoles only for APIAccessPolicies, ScopeTemplates
// and ScopeInstances: RBAC cannot narrow those verbs by name; the
// workload-access-operator-writes admission policy narrows them to the generated shapes
// (TestAPIAccessOperatorIsRefusedWiderRoles, TestScopeWritesPolicyRefusesTheOperator).
func TestOperatorRightsEndAtItsOperandNamespace(t *testing.T) {
	for _, c := range []struct {
		attrs authorizationv1.ResourceAttributes
		want  bool
	}{
		{authorizationv1.ResourceAttributes{Namespace: operandNS, Verb: "create", Resource: "serviceaccounts"}, true},
		{authorizationv1.ResourceAttributes{Namespace: operandNS, Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}, true},
		{authorizationv1.ResourceAttributes{Namespace: operandNS, Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "roles"}, false},
		{authorizationv1.ResourceAttributes{Namespace: operandNS, Verb: "delete", Resource: "secrets"}, true},
		{authorizationv1.ResourceAttributes{Verb: "create", Resource: "namespaces"}, false},
		{authorizationv1.ResourceAttributes{Verb: "delete", Resource: "namespaces", Name: operandNS}, false},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}, true},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "roles"}, false},
		{authorizationv1.ResourceAttributes{Verb: "update", Resource: "namespaces", Name: "default"}, false},
		// The ServiceAccounts IAMRoleRequests name, in any namespace: RBAC
		// cannot narrow create and update to them; the
		// workload-access-operator-serviceaccount-writes admission policy does
		// (TestTheOperatorWritesOnlyRoleAnnotationsOfServiceAccounts). Delete
		// only for OwnerReferencesPermissionEnforcement; the policy refuses
		// every delete the operator sends.
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "create", Resource: "serviceaccounts"}, true},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "delete", Resource: "serviceaccounts"}, true},
		// Running pods and ServiceAccounts listed and watched cluster-wide
		// for the pods that run without their credentials
		// (uncredentialedpods, docs/security.md); pods never written.
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "list", Resource: "serviceaccounts"}, true},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "watch", Resource: "pods"}, true},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "get", Resource: "pods"}, false},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "delete", Resource: "pods"}, false},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "update", Resource: "pods"}, false},
		// Listed and watched cluster-wide, metadata only, to wake bundles
		// (referencewatch, docs/security.md); never written outside its namespace.
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "list", Resource: "secrets"}, true},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "delete", Resource: "secrets"}, false},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "update", Resource: "secrets"}, false},
		{authorizationv1.ResourceAttributes{Verb: "bind", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "admin"}, true},
		{authorizationv1.ResourceAttributes{Verb: "escalate", Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}, true},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "bind", Group: "rbac.authorization.k8s.io", Resource: "roles"}, false},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "escalate", Group: "rbac.authorization.k8s.io", Resource: "roles"}, false},
	} {
		review, err := env.kube.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: framework.OperatorUser, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + operatorNS, "system:authenticated"}, ResourceAttributes: &c.attrs},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if review.Status.Allowed != c.want {
			t.Errorf("operator may %s %s %q in %q: %v, want %v", c.attrs.Verb, c.attrs.Resource, c.attrs.Name, c.attrs.Namespace, review.Status.Allowed, c.want)
		}
	}
}
