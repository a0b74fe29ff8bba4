package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// operandObjects checks every object bindata/operand declares.
func operandObjectsPresent(ctx context.Context) error {
	if _, err := env.kube.CoreV1().Namespaces().Get(ctx, operandNS, metav1.GetOptions{}); err != nil {
		return err
	}
	if _, err := env.kube.CoreV1().ServiceAccounts(operandNS).Get(ctx, "workload-access-webhook", metav1.GetOptions{}); err != nil {
		return err
	}
	if _, err := env.kube.RbacV1().Roles(operandNS).Get(ctx, "workload-access-webhook", metav1.GetOptions{}); err != nil {
		return err
	}
	_, err := env.kube.RbacV1().RoleBindings(operandNS).Get(ctx, "workload-access-webhook", metav1.GetOptions{})
	return err
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

	// Deleted objects come back.
	if err := env.kube.CoreV1().ServiceAccounts(operandNS).Delete(ctx, "workload-access-webhook", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := env.kube.RbacV1().RoleBindings(operandNS).Delete(ctx, "workload-access-webhook", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, operandObjectsPresent)

	// Drift is reverted: a rule an admin slips into the webhook's Role goes.
	role, err := env.kube.RbacV1().Roles(operandNS).Get(ctx, "workload-access-webhook", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantRules := len(role.Rules)
	role.Rules = append(role.Rules, role.Rules[0])
	role.Rules[len(role.Rules)-1].Resources = []string{"secrets"}
	if _, err := env.kube.RbacV1().Roles(operandNS).Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		role, err := env.kube.RbacV1().Roles(operandNS).Get(ctx, "workload-access-webhook", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(role.Rules) != wantRules {
			return fmt.Errorf("role has %d rules, want %d: %v", len(role.Rules), wantRules, role.Rules)
		}
		return nil
	})

	// The whole namespace comes back too.
	if err := env.kube.CoreV1().Namespaces().Delete(ctx, operandNS, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		ns, err := env.kube.CoreV1().Namespaces().Get(ctx, operandNS, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace not recreated yet")
		}
		if err != nil {
			return err
		}
		if ns.DeletionTimestamp != nil {
			return fmt.Errorf("namespace still terminating")
		}
		return operandObjectsPresent(ctx)
	})
}
