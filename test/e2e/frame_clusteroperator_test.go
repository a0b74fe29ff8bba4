package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/relatedobjects"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

func TestClusterOperatorReportsHealthVersionAndRelatedObjects(t *testing.T) {
	dumpOnFailure(t)
	co := expectClusterOperator(t, time.Minute, healthy, "")

	// The version the CVO waits for, from the payload's own manifest.
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		co, err := env.config.ConfigV1().ClusterOperators().Get(ctx, clusterOperator, metav1.GetOptions{})
		if err != nil {
			return err
		}
		want := env.payload.ClusterOperator.Status.Versions
		if fmt.Sprint(co.Status.Versions) != fmt.Sprint(want) {
			return fmt.Errorf("versions %v, want %v", co.Status.Versions, want)
		}
		return nil
	})
	if len(env.payload.ClusterOperator.Status.Versions) != 1 || env.payload.ClusterOperator.Status.Versions[0].Version != releaseVersion {
		t.Fatalf("payload ClusterOperator versions %v should name the release version", env.payload.ClusterOperator.Status.Versions)
	}

	// relatedObjects: what the operator publishes equals what the CVO
	// pre-creates, and covers both namespaces and the configuration.
	if got, want := refs(co.Status.RelatedObjects), refs(env.payload.ClusterOperator.Status.RelatedObjects); got != want {
		t.Errorf("relatedObjects at runtime:\n%s\nin the manifest:\n%s", got, want)
	}
	if got, want := refs(co.Status.RelatedObjects), refs(relatedobjects.List()); got != want {
		t.Errorf("relatedObjects:\n%s\nwant:\n%s", got, want)
	}
	for _, ns := range []string{operatorNS, operandNS} {
		if !strings.Contains(refs(co.Status.RelatedObjects), refs([]configv1.ObjectReference{{Resource: "namespaces", Name: ns}})) {
			t.Errorf("relatedObjects lack namespace %s", ns)
		}
	}

	// Per-controller conditions on the configuration explain the summary.
	for _, condType := range []string{"StaticResourcesDegraded", "OperatorVersionProgressing"} {
		cond, err := operatorCondition(context.Background(), condType)
		if err != nil {
			t.Fatal(err)
		}
		if cond.Status != operatorv1.ConditionFalse {
			t.Errorf("%s is %s: %s", condType, cond.Status, cond.Message)
		}
	}
}

func refs(objs []configv1.ObjectReference) string {
	var lines []string
	for _, o := range objs {
		lines = append(lines, fmt.Sprintf("%s/%s/%s/%s", o.Group, o.Resource, o.Namespace, o.Name))
	}
	return strings.Join(lines, "\n")
}

func TestClusterOperatorIsRecreatedWhenDeleted(t *testing.T) {
	dumpOnFailure(t)
	expectClusterOperator(t, time.Minute, healthy, "")
	if err := env.config.ConfigV1().ClusterOperators().Delete(context.Background(), clusterOperator, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	co := expectClusterOperator(t, time.Minute, healthy, "")
	if len(co.Status.Versions) == 0 || co.Status.Versions[0].Version != releaseVersion {
		t.Errorf("recreated clusteroperator reports versions %v", co.Status.Versions)
	}
	if len(co.Status.RelatedObjects) != len(relatedobjects.List()) {
		t.Errorf("recreated clusteroperator has %d relatedObjects, want %d", len(co.Status.RelatedObjects), len(relatedobjects.List()))
	}
}

// A failure shows on the failing controller's condition at once, but the
// ClusterOperator says Degraded only when it lasts: a blip is not a page.
func TestDegradedOnlyForSustainedFailure(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	framework.Eventually(t, time.Minute, operandObjectsPresent)
	expectClusterOperator(t, time.Minute, healthy, "")

	// Someone edits the operator's Role in the operand namespace (the CVO
	// would put it back; here the test plays the CVO, later) and deletes the
	// namespace's default-deny NetworkPolicy: the operator cannot restore
	// it. (Not a ServiceAccount: the operator's cluster-wide grant for
	// IAMRoleRequests' ServiceAccounts would still let it.)
	role, err := env.kube.RbacV1().Roles(operandNS).Get(ctx, operatorclient.OperatorName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kept []rbacv1.PolicyRule
	for _, rule := range role.Rules {
		rule.Resources = slices.DeleteFunc(slices.Clone(rule.Resources), func(r string) bool { return r == "networkpolicies" })
		if len(rule.Resources) > 0 {
			kept = append(kept, rule)
		}
	}
	role.Rules = kept
	if _, err := env.kube.RbacV1().Roles(operandNS).Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	restore := func() {
		if err := env.payload.Apply(ctx, env.cp.Config); err != nil {
			t.Errorf("reapplying the payload: %v", err)
		}
	}
	defer restore()
	if err := env.kube.NetworkingV1().NetworkPolicies(operandNS).Delete(ctx, "default-deny-ingress", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		cond, err := operatorCondition(ctx, "StaticResourcesDegraded")
		if err != nil {
			return err
		}
		if cond.Status != operatorv1.ConditionTrue {
			return fmt.Errorf("StaticResourcesDegraded is %s", cond.Status)
		}
		if !strings.Contains(cond.Message, "forbidden") {
			return fmt.Errorf("message does not say why: %q", cond.Message)
		}
		return nil
	})
	framework.Consistently(t, 10*time.Second, func(ctx context.Context) error {
		cond, _, err := clusterOperatorCondition(ctx, configv1.OperatorDegraded)
		if err != nil {
			return err
		}
		if cond.Status != configv1.ConditionFalse {
			return fmt.Errorf("clusteroperator Degraded=%s within the inertia window: %s", cond.Status, cond.Message)
		}
		return nil
	})

	restore()
	framework.Eventually(t, 2*time.Minute, operandObjectsPresent)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		cond, err := operatorCondition(ctx, "StaticResourcesDegraded")
		if err != nil {
			return err
		}
		if cond.Status != operatorv1.ConditionFalse {
			return fmt.Errorf("StaticResourcesDegraded is still %s: %s", cond.Status, cond.Message)
		}
		return nil
	})
	expectClusterOperator(t, time.Minute, healthy, "")
}

// The CVO's Deployment manifest is admitted by the restricted pod security
// level of its namespace and schedules onto a tainted control-plane node.
// (kwok simulates the pod: the operator under test runs as a process.)
func TestPayloadDeploymentRunsOnControlPlane(t *testing.T) {
	ctx := context.Background()
	var deploy *appsv1.Deployment
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		var err error
		deploy, err = env.kube.AppsV1().Deployments(operatorNS).Get(ctx, framework.OperatorName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if deploy.Status.AvailableReplicas != 1 {
			return fmt.Errorf("deployment has %d available replicas: %v", deploy.Status.AvailableReplicas, deploy.Status.Conditions)
		}
		return nil
	})
	pods, err := env.kube.CoreV1().Pods(operatorNS).List(ctx, metav1.ListOptions{LabelSelector: "app=" + framework.OperatorName})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 1 || !slices.Contains(controlplane.ControlPlaneNodes, pods.Items[0].Spec.NodeName) {
		t.Fatalf("operator pods: %v", pods.Items)
	}
	if pods.Items[0].Spec.PriorityClassName != "system-cluster-critical" || pods.Items[0].Spec.Priority == nil {
		t.Errorf("operator pod priority: %q %v", pods.Items[0].Spec.PriorityClassName, pods.Items[0].Spec.Priority)
	}
	// The image the release tooling substitutes reaches both the container and its env.
	c := deploy.Spec.Template.Spec.Containers[0]
	if c.Image != operatorImage {
		t.Errorf("image %q, want %q", c.Image, operatorImage)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if env["RELEASE_VERSION"] != releaseVersion || env["OPERATOR_IMAGE"] != operatorImage {
		t.Errorf("env %v does not carry the release version and image", env)
	}
}
