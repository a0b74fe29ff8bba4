package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// dumpOnFailure prints the shared operator's log when t fails.
func dumpOnFailure(t *testing.T, processes ...*framework.Process) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		if len(processes) == 0 && env.running != nil {
			processes = append(processes, env.running)
		}
		for _, p := range processes {
			t.Log(p.Tail(60))
		}
	})
}

// clusterOperatorCondition returns the named condition of clusteroperator/workload-access.
func clusterOperatorCondition(ctx context.Context, condType configv1.ClusterStatusConditionType) (*configv1.ClusterOperatorStatusCondition, *configv1.ClusterOperator, error) {
	co, err := env.config.ConfigV1().ClusterOperators().Get(ctx, clusterOperator, metav1.GetOptions{})
	if err != nil {
		return nil, nil, err
	}
	for i := range co.Status.Conditions {
		if co.Status.Conditions[i].Type == condType {
			return &co.Status.Conditions[i], co, nil
		}
	}
	return nil, co, fmt.Errorf("clusteroperator/%s has no %s condition", clusterOperator, condType)
}

// expectClusterOperator waits until every given condition has its status
// (and reason, when not empty).
func expectClusterOperator(t *testing.T, timeout time.Duration, want map[configv1.ClusterStatusConditionType]configv1.ConditionStatus, reason string) *configv1.ClusterOperator {
	t.Helper()
	var co *configv1.ClusterOperator
	framework.Eventually(t, timeout, func(ctx context.Context) error {
		for condType, status := range want {
			cond, obj, err := clusterOperatorCondition(ctx, condType)
			if err != nil {
				return err
			}
			if cond.Status != status {
				return fmt.Errorf("%s is %s (%s: %s), want %s", condType, cond.Status, cond.Reason, cond.Message, status)
			}
			if reason != "" && cond.Reason != reason {
				return fmt.Errorf("%s reason is %q, want %q", condType, cond.Reason, reason)
			}
			co = obj
		}
		return nil
	})
	return co
}

// healthy is what a settled, managed operator shows.
var healthy = map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{
	configv1.OperatorAvailable:   configv1.ConditionTrue,
	configv1.OperatorProgressing: configv1.ConditionFalse,
	configv1.OperatorDegraded:    configv1.ConditionFalse,
	configv1.OperatorUpgradeable: configv1.ConditionTrue,
}

// operatorCondition returns a condition from WorkloadAccess cluster status.
func operatorCondition(ctx context.Context, condType string) (*operatorv1.OperatorCondition, error) {
	wa, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	cond := v1helpers.FindOperatorCondition(wa.Status.Conditions, condType)
	if cond == nil {
		return nil, fmt.Errorf("workloadaccess/cluster has no %s condition (has %v)", condType, wa.Status.Conditions)
	}
	return cond, nil
}

// setManagementState changes spec.managementState of WorkloadAccess cluster.
func setManagementState(t *testing.T, state operatorv1.ManagementState) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"managementState":%q}}`, state)
	if _, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Patch(context.Background(), "cluster", "application/merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if state == operatorv1.Unmanaged {
		// Until the operator has seen it, it still restores what a test
		// then deletes or edits. Its status controller reads the same
		// informer as every other controller: once the ClusterOperator
		// says Unmanaged, they all judge by it.
		expectClusterOperator(t, 30*time.Second, map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{
			configv1.OperatorAvailable: configv1.ConditionUnknown,
		}, "Unmanaged")
	}
}

// operatorWrites lists what the operator wrote after since, except what a
// healthy idle operator writes by design: its lease, events, and the token
// and access reviews with which its HTTPS endpoints check their callers.
func operatorWrites(since time.Time) ([]framework.AuditEvent, error) {
	return framework.Writes(env.cp.AuditLogPath, framework.OperatorUser, since, "leases", "events", "tokenreviews", "subjectaccessreviews")
}

// expectOperatorCreated waits until operatorWrites shows a create of
// resource, named name unless name is empty: proof that a "writes nothing"
// check can fail.
func expectOperatorCreated(t *testing.T, since time.Time, resource, name string) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		writes, err := operatorWrites(since)
		if err != nil {
			return err
		}
		for _, w := range writes {
			if w.Verb == "create" && w.ObjectRef != nil && w.ObjectRef.Resource == resource && (name == "" || w.ObjectRef.Name == name) {
				return nil
			}
		}
		return fmt.Errorf("the audit log shows no create of %s %q among %v", resource, name, writes)
	})
}

// grantEdit binds the built-in edit ClusterRole to subject in ns, in a
// RoleBinding called name.
func grantEdit(t *testing.T, ns, name string, subject rbacv1.Subject) {
	t.Helper()
	if _, err := env.kube.RbacV1().RoleBindings(ns).Create(context.Background(), &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{subject},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitNamespacesGone waits until no namespace is being deleted. Earlier
// tests delete theirs at cleanup, and the Secrets deleted with them really
// change the bundles that reference them: the operator updates their
// status, so a test that expects no writes must start after that.
func waitNamespacesGone(t *testing.T) {
	t.Helper()
	framework.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		list, err := env.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		var terminating []string
		for _, ns := range list.Items {
			if ns.Status.Phase == corev1.NamespaceTerminating {
				terminating = append(terminating, ns.Name)
			}
		}
		if len(terminating) > 0 {
			return fmt.Errorf("namespaces still being deleted: %v", terminating)
		}
		return nil
	})
}
