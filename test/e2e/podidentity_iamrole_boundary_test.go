package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamroleboundary"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// This cluster's WorkloadAccess names AWS IAM (no iamEndpoint) and no
// permissions boundary: a request waits, says why on itself, and the
// WorkloadAccess says it where the ClusterOperator's Degraded is made from;
// with no request waiting, nothing is said. No IAM is reachable here, and
// none is needed: nothing is sent to IAM without a boundary.
func TestIAMRoleRequestWithoutABoundaryIsShownToTheAdmin(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	waitRoleRequestsChecked(t)
	ctx := context.Background()
	condition := iamroleboundary.ControllerName + operatorv1.OperatorStatusTypeDegraded
	boundaryCondition := func(want operatorv1.ConditionStatus, messageHas string) {
		t.Helper()
		framework.Eventually(t, time.Minute, func(ctx context.Context) error {
			cond, err := operatorCondition(ctx, condition)
			if err != nil {
				return err
			}
			if cond.Status != want || !strings.Contains(cond.Message, messageHas) {
				return fmt.Errorf("%s=%s (%s: %s), want %s saying %q", condition, cond.Status, cond.Reason, cond.Message, want, messageHas)
			}
			return nil
		})
	}
	boundaryCondition(operatorv1.ConditionFalse, "")

	ns := testNamespace(t, "iam-boundary-")
	requests := env.operator.PodIdentityV1alpha1().IAMRoleRequests()
	created, err := requests.Create(ctx, &podidentityv1alpha1.IAMRoleRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-boundary-" + rand.String(5)},
		Spec: podidentityv1alpha1.IAMRoleRequestSpec{
			Storage: podidentityv1alpha1.Storage{ServiceAccount: podidentityv1alpha1.ServiceAccountStorage{Namespace: ns, Name: "app"}},
			ProviderSpec: podidentityv1alpha1.AWSProviderSpec{StatementEntries: []podidentityv1alpha1.StatementEntry{
				{Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "arn:aws:s3:::e2e/*"}}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	remove := func() {
		// The finalizer would wait for an IAM this cluster cannot reach.
		_, _ = requests.Patch(context.Background(), created.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		_ = requests.Delete(context.Background(), created.Name, metav1.DeleteOptions{})
	}
	t.Cleanup(remove)

	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		r, err := requests.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := meta.FindStatusCondition(r.Status.Conditions, podidentityv1alpha1.ConditionProvisioned)
		if c == nil || c.Reason != podidentityv1alpha1.ReasonPermissionsBoundaryNotSet ||
			!strings.Contains(c.Message, "aws iam create-policy --path /workload-access/") || !strings.Contains(c.Message, "nothing was sent to IAM") {
			return fmt.Errorf("Provisioned %+v, want %s with the day-1 commands", c, podidentityv1alpha1.ReasonPermissionsBoundaryNotSet)
		}
		return nil
	})
	boundaryCondition(operatorv1.ConditionTrue, "IAMRoleRequest "+created.Name+" without a role")
	cond, err := operatorCondition(ctx, condition)
	if err != nil {
		t.Fatal(err)
	}
	if cond.Reason != podidentityv1alpha1.ReasonPermissionsBoundaryNotSet || !strings.Contains(cond.Message, "oc patch workloadaccess cluster") {
		t.Errorf("%s: %s %q, want %s with the command", condition, cond.Reason, cond.Message, podidentityv1alpha1.ReasonPermissionsBoundaryNotSet)
	}

	remove()
	boundaryCondition(operatorv1.ConditionFalse, "")
}
